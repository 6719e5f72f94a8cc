package queue_test

import (
	"context"
	"errors"
	"fmt"
	"regexp"
	"slices"
	"testing"
	"time"

	"github.com/gocurator/curator/framework"
	"github.com/gocurator/curator/recipes/leader"
	"github.com/gocurator/curator/recipes/queue"
	"github.com/gocurator/curator/recipestest"
)

// shardName is Curator's shard node name: queue-<a version 4 UUID, as
// Java's UUID.randomUUID writes it>.
var shardName = regexp.MustCompile(`^queue-[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$`)

// shardAllocator returns an allocator of lock-safe string queues, each
// locked under lockRoot/<shard name>, whose consumers wait for open to be
// closed and then call got with "<item>@<shard name>".
func shardAllocator(c *framework.Client, lockRoot string, open <-chan struct{}, got func(string)) func(string) (*queue.Queue[string], error) {
	return func(path string) (*queue.Queue[string], error) {
		_, name := framework.SplitPath(path)
		consume := func(ctx context.Context, item string) error {
			select {
			case <-open:
			case <-ctx.Done():
				return ctx.Err()
			}
			got(item + "@" + name)
			return nil
		}
		return queue.New(c, path, queue.String{}, consume, queue.WithLockPath(framework.JoinPath(lockRoot, name)))
	}
}

// startSharder starts a Sharder that the test's cleanup closes.
func startSharder(t *testing.T, c *framework.Client, path, leaderPath string, pol queue.SharderPolicies, alloc func(string) (*queue.Queue[string], error)) *queue.Sharder[*queue.Queue[string]] {
	t.Helper()
	s, err := queue.NewSharder(c, path, leaderPath, pol, alloc)
	if err != nil {
		t.Fatal(err)
	}
	if err := s.Start(ctxT(t)); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}

// put puts items through the sharder, each in the shard Queue picks.
func put(t *testing.T, s *queue.Sharder[*queue.Queue[string]], items ...string) {
	t.Helper()
	for _, it := range items {
		q, err := s.Queue()
		if err != nil {
			t.Fatal(err)
		}
		if err := q.Put(ctxT(t), it); err != nil {
			t.Fatal(err)
		}
	}
}

// names returns n item names prefix0 ... prefix<n-1>.
func names(prefix string, from, n int) []string {
	var out []string
	for i := from; i < from+n; i++ {
		out = append(out, fmt.Sprint(prefix, i))
	}
	return out
}

// awaitShards waits until s runs a queue on n shards, and returns them.
func awaitShards(t *testing.T, s *queue.Sharder[*queue.Queue[string]], n int) []string {
	t.Helper()
	var paths []string
	recipestest.Eventually(t, fmt.Sprintf("%d shards", n), func() (bool, string) {
		paths = s.Paths()
		return len(paths) == n, fmt.Sprint(paths)
	})
	return paths
}

// A Sharder on a new path makes Curator's nodes: the path a container
// with no data, one shard queue-<uuid> (the queue's node, persistent, as
// DistributedQueue.start makes it) and a leader latch node
// _c_<uuid>-latch-NNNNNNNNNN with no data. Items go through the shard.
// Closing leaves the election and keeps the shard, which a second Sharder
// on the path takes up rather than making another.
func TestSharderNodes(t *testing.T) {
	recipestest.LeakCheck(t)
	c := clients(t, 1)[0]
	ctx := ctxT(t)
	r := newRecord[string]()
	open := make(chan struct{})
	close(open)
	s, err := queue.NewSharder(c, "/q", "/leader", queue.SharderPolicies{}, shardAllocator(c, "/locks", open, r.add))
	if err != nil {
		t.Fatal(err)
	}
	if err := s.Start(ctx); err != nil {
		t.Fatal(err)
	}
	paths := s.Paths()
	if len(paths) != 1 {
		t.Fatalf("shards of a new sharder: %v, want one", paths)
	}
	if _, name := framework.SplitPath(paths[0]); !shardName.MatchString(name) || children(t, c, "/q")[0] != name {
		t.Fatalf("shard %s, in /q: %v; want queue-<uuid>", paths[0], children(t, c, "/q"))
	}
	data, stat, err := c.Get(ctx, "/q")
	if err != nil || len(data) != 0 || stat.EphemeralOwner != 0 {
		t.Fatalf("/q: %q, %+v, %v; want a node without data", data, stat, err)
	}
	if _, stat, err := c.Get(ctx, paths[0]); err != nil || stat.EphemeralOwner != 0 {
		t.Fatalf("the shard: %+v, %v; want a persistent node", stat, err)
	}
	var latch []string
	recipestest.Eventually(t, "the latch node", func() (bool, string) { // the latch joins in the background, as Curator's
		latch = children(t, c, "/leader")
		return len(latch) > 0, ""
	})
	if len(latch) != 1 || !regexp.MustCompile(`^_c_[0-9a-f-]{36}-latch-\d{10}$`).MatchString(latch[0]) {
		t.Fatalf("leader nodes %v, want one _c_<uuid>-latch-NNNNNNNNNN", latch)
	}
	if data, _, err := c.Get(ctx, "/leader/"+latch[0]); err != nil || len(data) != 0 {
		t.Fatalf("the latch node holds %q, %v; want no data (Curator's empty id)", data, err)
	}
	put(t, s, "a", "b")
	_, shard := framework.SplitPath(paths[0])
	if got := r.wait(t, 2); !slices.Equal(got, []string{"a@" + shard, "b@" + shard}) {
		t.Fatalf("consumed %v", got)
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	if got := children(t, c, "/leader"); len(got) != 0 {
		t.Fatalf("leader nodes after Close: %v", got)
	}
	again := startSharder(t, c, "/q", "/leader", queue.SharderPolicies{}, shardAllocator(c, "/locks", open, r.add))
	if got := again.Paths(); !slices.Equal(got, paths) || len(children(t, c, "/q")) != 1 {
		t.Fatalf("a second sharder runs on %v (and /q holds %v), want the first's %v", got, children(t, c, "/q"), paths)
	}
}

// The leader adds a shard while one holds Threshold nodes or more, at
// every check, up to MaxShards, and then only warns; puts go to the shards
// that are not full. Every item is consumed once.
func TestSharderAddsShardsAtTheThreshold(t *testing.T) {
	recipestest.LeakCheck(t)
	logger, maxed := recipestest.LogSignal("shards are at their maximum")
	c := clients(t, 1, framework.WithLogger(logger))[0]
	r := newRecord[string]()
	open := make(chan struct{})
	s := startSharder(t, c, "/q", "/leader", queue.SharderPolicies{Threshold: 4, CheckInterval: 20 * time.Millisecond, MaxShards: 3}, shardAllocator(c, "/locks", open, r.add))
	first := s.Paths()
	put(t, s, names("a", 0, 4)...)
	// The first shard stays full (its consumer waits): the leader adds a
	// shard at each check until there are 3, and then warns.
	select {
	case <-maxed:
	case <-ctxT(t).Done():
		t.Fatal("no warning that the shards are at their maximum")
	}
	if got := children(t, c, "/q"); len(got) != 3 {
		t.Fatalf("shards: %v, want the maximum, 3", got)
	}
	paths := awaitShards(t, s, 3)
	for _, p := range paths {
		if _, name := framework.SplitPath(p); !shardName.MatchString(name) {
			t.Fatalf("shard %s: want queue-<uuid>", p)
		}
	}
	put(t, s, names("b", 0, 6)...)
	if got := children(t, c, first[0]); len(got) != 4 {
		t.Fatalf("the full shard holds %v: a put went to it", got)
	}
	close(open)
	got := r.wait(t, 10)
	if counts := r.counts(); len(counts) != 10 {
		t.Fatalf("consumed %v, want 10 items once each", got)
	}
}

// A Sharder that does not lead adds no shard, however full one is; once it
// leads, it does.
func TestSharderOnlyTheLeaderAddsShards(t *testing.T) {
	recipestest.LeakCheck(t)
	cs := clients(t, 2)
	ctx := ctxT(t)
	other, err := leader.NewLatch(cs[0], "/leader")
	if err != nil {
		t.Fatal(err)
	}
	if err := other.Start(ctx); err != nil {
		t.Fatal(err)
	}
	defer other.Close()
	if _, err := other.Await(ctx); err != nil {
		t.Fatal(err)
	}
	r := newRecord[string]()
	open := make(chan struct{})
	defer close(open)
	s := startSharder(t, cs[1], "/q", "/leader", queue.SharderPolicies{Threshold: 2, CheckInterval: 20 * time.Millisecond, MaxShards: 4}, shardAllocator(cs[1], "/locks", open, r.add))
	put(t, s, "a", "b")
	// Each shard made by hand is taken up by a check that follows the last:
	// once the second is, a whole check has seen the full shard.
	for i := range 2 {
		if _, err := cs[0].Create(ctx, fmt.Sprint("/q/byhand-", i), nil); err != nil {
			t.Fatal(err)
		}
		awaitShards(t, s, 2+i)
	}
	if got := children(t, cs[0], "/q"); len(got) != 3 {
		t.Fatalf("shards made by a sharder that does not lead: %v", got)
	}
	if err := other.Close(); err != nil {
		t.Fatal(err)
	}
	awaitShards(t, s, 4)
}

// Start's context is the Sharder's lifetime: when it ends, the Sharder
// leaves the election and stops its shards, as Close does. Queue before
// Start, a second Start and a Start after Close are errors.
// A shard's Consumer may close its Sharder: Close returns instead of
// waiting for that shard, whose Close waits for the Consumer; everything
// stops once the Consumer has returned.
func TestSharderCloseFromAConsumer(t *testing.T) {
	recipestest.LeakCheck(t)
	c := clients(t, 1)[0]
	ctx := ctxT(t)
	var s *queue.Sharder[*queue.Queue[string]]
	closed := make(chan error, 1)
	alloc := func(path string) (*queue.Queue[string], error) {
		return queue.New(c, path, queue.String{}, func(context.Context, string) error {
			closed <- s.Close()
			return nil
		})
	}
	s, err := queue.NewSharder(c, "/q", "/leader", queue.SharderPolicies{}, alloc)
	if err != nil {
		t.Fatal(err)
	}
	if err := s.Start(ctx); err != nil {
		t.Fatal(err)
	}
	q, err := s.Queue()
	if err != nil {
		t.Fatal(err)
	}
	if err := q.Put(ctx, "stop"); err != nil {
		t.Fatal(err)
	}
	select {
	case err := <-closed:
		if err != nil {
			t.Fatalf("Close from a Consumer: %v", err)
		}
	case <-ctx.Done():
		t.Fatal("Close from a Consumer did not return")
	}
	if err := s.Close(); err != nil { // from another goroutine: waits for everything
		t.Fatal(err)
	}
	if got := children(t, c, "/leader"); len(got) != 0 {
		t.Fatalf("latch nodes after Close: %v", got)
	}
}

func TestSharderLifecycle(t *testing.T) {
	recipestest.LeakCheck(t)
	c := clients(t, 1)[0]
	r := newRecord[string]()
	alloc := shardAllocator(c, "/locks", nil, r.add)
	closed, _ := queue.NewSharder(c, "/q", "/leader", queue.SharderPolicies{}, alloc)
	if err := closed.Close(); err != nil {
		t.Fatalf("Close before Start: %v", err)
	}
	if err := closed.Start(ctxT(t)); !errors.Is(err, queue.ErrClosed) || !errors.Is(err, framework.ErrClosed) {
		t.Fatalf("Start after Close: %v, want ErrClosed", err)
	}
	s, _ := queue.NewSharder(c, "/q", "/leader", queue.SharderPolicies{}, alloc)
	if _, err := s.Queue(); !errors.Is(err, queue.ErrNotStarted) || !errors.Is(err, framework.ErrNotStarted) {
		t.Fatalf("Queue before Start: %v, want ErrNotStarted", err)
	}
	life, end := context.WithCancel(ctxT(t))
	if err := s.Start(life); err != nil {
		t.Fatal(err)
	}
	if err := s.Start(life); !errors.Is(err, queue.ErrAlreadyStarted) {
		t.Fatalf("second Start: %v, want ErrAlreadyStarted", err)
	}
	recipestest.Eventually(t, "the latch node", func() (bool, string) {
		got := children(t, c, "/leader")
		return len(got) == 1, fmt.Sprint(got)
	})
	end()
	if _, err := s.Queue(); !errors.Is(err, queue.ErrClosed) {
		t.Fatalf("Queue after the lifetime ended: %v, want ErrClosed", err)
	}
	recipestest.Eventually(t, "the latch node deleted", func() (bool, string) {
		got := children(t, c, "/leader")
		return len(got) == 0, fmt.Sprint(got)
	})
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	if err := s.Close(); err != nil {
		t.Fatalf("second Close: %v", err)
	}
}

// itemsIn returns the items in a shard's nodes, in node order.
func itemsIn(t *testing.T, c *framework.Client, shard string) []string {
	t.Helper()
	var items []string
	for _, name := range children(t, c, shard) {
		data, _, err := c.Get(ctxT(t), shard+"/"+name)
		if errors.Is(err, framework.ErrNoNode) {
			continue
		}
		if err != nil {
			t.Fatal(err)
		}
		if len(data) < 10 { // version, opcode, length ... end
			t.Fatalf("node %s/%s holds %x", shard, name, data)
		}
		items = append(items, string(data[9:len(data)-1]))
	}
	return items
}
