package queue_test

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"slices"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/gocurator/curator/framework"
	"github.com/gocurator/curator/recipes/queue"
	"github.com/gocurator/curator/recipestest"
	"github.com/gocurator/curator/zkharness"
)

// Simple: offers come back in order; Peek leaves the head, Poll takes it;
// an empty queue is ErrEmpty; Take waits for an offer; the nodes are
// qn-NNNNNNNNNN holding the raw bytes, under a container.
func TestSimple(t *testing.T) {
	recipestest.LeakCheck(t)
	cs := clients(t, 2)
	ctx := ctxT(t)
	s1, err := queue.NewSimple(cs[0], "/simple")
	if err != nil {
		t.Fatal(err)
	}
	s2, _ := queue.NewSimple(cs[1], "/simple")
	if _, err := s2.Poll(ctx); !errors.Is(err, queue.ErrEmpty) {
		t.Fatalf("Poll of a missing queue: %v, want ErrEmpty", err)
	}
	for i := range 3 {
		if err := s1.Offer(ctx, fmt.Appendf(nil, "item-%d", i)); err != nil {
			t.Fatal(err)
		}
	}
	if kids := children(t, cs[0], "/simple"); !slices.Equal(kids, []string{"qn-0000000000", "qn-0000000001", "qn-0000000002"}) {
		t.Fatalf("nodes %v", kids)
	}
	if data, _, _ := cs[0].Get(ctx, "/simple/qn-0000000000"); string(data) != "item-0" {
		t.Fatalf("node data %q, want the raw item", data)
	}
	if head, err := s2.Peek(ctx); err != nil || string(head) != "item-0" {
		t.Fatalf("Peek: %q, %v", head, err)
	}
	for i := range 2 {
		if got, err := s2.Poll(ctx); err != nil || string(got) != fmt.Sprint("item-", i) {
			t.Fatalf("Poll %d: %q, %v", i, got, err)
		}
	}
	if got, err := s2.Take(ctx); err != nil || string(got) != "item-2" {
		t.Fatalf("Take: %q, %v", got, err)
	}
	if _, err := s2.Peek(ctx); !errors.Is(err, queue.ErrEmpty) {
		t.Fatalf("Peek of an empty queue: %v", err)
	}
	taken := make(chan []byte, 1)
	go func() {
		b, err := s2.Take(ctx)
		if err != nil {
			t.Error(err)
		}
		taken <- b
	}()
	if err := s1.Offer(ctx, []byte("late")); err != nil {
		t.Fatal(err)
	}
	if b := <-taken; string(b) != "late" {
		t.Fatalf("Take got %q", b)
	}
	cctx, cancel := context.WithTimeout(ctx, 50*time.Millisecond)
	defer cancel()
	if _, err := s2.Take(cctx); !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("Take of an empty queue past its deadline: %v", err)
	}
}

// Simple takers on four sessions share the offers: each item once.
func TestSimpleTakersShare(t *testing.T) {
	recipestest.LeakCheck(t)
	const takers, items = 4, 80
	cs := clients(t, takers+1)
	ctx := ctxT(t)
	prod, _ := queue.NewSimple(cs[takers], "/simple")
	r := newRecord[string]()
	var wg sync.WaitGroup
	tctx, stop := context.WithCancel(ctx)
	for i := range takers {
		s, _ := queue.NewSimple(cs[i], "/simple")
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				b, err := s.Take(tctx)
				if err != nil {
					if tctx.Err() == nil {
						t.Error(err)
					}
					return
				}
				r.add(string(b))
			}
		}()
	}
	for i := range items {
		if err := prod.Offer(ctx, fmt.Appendf(nil, "%d", i)); err != nil {
			t.Fatal(err)
		}
	}
	r.wait(t, items)
	stop()
	wg.Wait()
	for item, n := range r.counts() {
		if n != 1 {
			t.Errorf("%s taken %d times", item, n)
		}
	}
	if n := len(r.counts()); n != items {
		t.Fatalf("%d items taken, want %d", n, items)
	}
}

// IDQueue: nodes queue-|<id>|NNNNNNNNNN; Remove takes every item with an
// id (fixed as Curator fixes it) before a consumer does; the rest come in
// the order they were put.
func TestIDQueue(t *testing.T) {
	recipestest.LeakCheck(t)
	for _, lock := range []string{"", "/locks"} {
		t.Run("lock="+lock, func(t *testing.T) {
			cs := clients(t, 2)
			ctx := ctxT(t)
			var opts []queue.Option
			if lock != "" {
				opts = append(opts, queue.WithLockPath(lock))
			}
			prod, err := queue.NewID(cs[0], "/q", queue.String{}, nil, opts...)
			if err != nil {
				t.Fatal(err)
			}
			if err := prod.Start(ctx); err != nil {
				t.Fatal(err)
			}
			defer prod.Close()
			ids := []string{"x", "a/b", "y", "x", "a|b", "z"}
			for i, id := range ids {
				if err := prod.Put(ctx, fmt.Sprintf("%d-%s", i, id), id); err != nil {
					t.Fatal(err)
				}
			}
			if kids := children(t, cs[0], "/q"); !slices.Contains(kids, "queue-|a_b|0000000001") || !slices.Contains(kids, "queue-|x|0000000000") {
				t.Fatalf("nodes %v", kids)
			}
			if n, err := prod.Remove(ctx, "x"); err != nil || n != 2 {
				t.Fatalf("Remove(x) = %d, %v; want 2", n, err)
			}
			// "a/b" and "a|b" are the same id once fixed, as in Curator.
			if n, err := prod.Remove(ctx, "a/b"); err != nil || n != 2 {
				t.Fatalf("Remove(a/b) = %d, %v; want 2", n, err)
			}
			if n, err := prod.Remove(ctx, "nobody"); err != nil || n != 0 {
				t.Fatalf("Remove(nobody) = %d, %v", n, err)
			}
			r := newRecord[string]()
			cons, err := queue.NewID(cs[1], "/q", queue.String{}, recorder(r), opts...)
			if err != nil {
				t.Fatal(err)
			}
			if err := cons.Start(ctx); err != nil {
				t.Fatal(err)
			}
			defer cons.Close()
			if err := prod.Put(ctx, "6-w", "w"); err != nil {
				t.Fatal(err)
			}
			if got := r.wait(t, 3); !slices.Equal(got, []string{"2-y", "5-z", "6-w"}) {
				t.Fatalf("consumed %v", got)
			}
			if lock != "" {
				recipestest.Eventually(t, "no lock node", func() (bool, string) {
					kids := children(t, cs[0], lock)
					return len(kids) == 0, fmt.Sprint(kids)
				})
			}
		})
	}
}

// Remove in a lock-safe IDQueue leaves an item its consumer holds, though
// the consumer is on the same client (the same session) as the Remove: the
// lock node is the consumer's, not Remove's. The consumer, failing, then
// has the item requeued, and consumes it the second time.
func TestIDQueueRemoveLeavesItsOwnConsumersItem(t *testing.T) {
	recipestest.LeakCheck(t)
	cs := clients(t, 1)
	ctx := ctxT(t)
	inside, release := make(chan struct{}), make(chan struct{})
	r := newRecord[string]()
	var calls atomic.Int32
	q, err := queue.NewID(cs[0], "/q", queue.String{}, func(_ context.Context, item string) error {
		r.add(item)
		if calls.Add(1) == 1 {
			close(inside)
			<-release
			return errors.New("fail: requeue me")
		}
		return nil
	}, queue.WithLockPath("/locks"))
	if err != nil {
		t.Fatal(err)
	}
	if err := q.Start(ctx); err != nil {
		t.Fatal(err)
	}
	defer q.Close()
	letGo := sync.OnceFunc(func() { close(release) })
	defer letGo()
	if err := q.Put(ctx, "x", "id1"); err != nil {
		t.Fatal(err)
	}
	<-inside
	if n, err := q.Remove(ctx, "id1"); n != 0 || err != nil {
		t.Fatalf("Remove while the queue's own consumer holds the item = %d, %v; want 0", n, err)
	}
	if kids, locks := children(t, cs[0], "/q"), children(t, cs[0], "/locks"); len(kids) != 1 || len(locks) != 1 {
		t.Fatalf("after Remove, the consumer still running: queue %v, locks %v; want the item and its lock", kids, locks)
	}
	letGo()
	if got := r.wait(t, 2); !slices.Equal(got, []string{"x", "x"}) {
		t.Fatalf("consumed %v, want x failed and then x again", got)
	}
	waitEmpty(t, cs[0], "/q", "/locks")
}

// PriorityQueue: items put before the consumer starts come out by
// priority (lower first, negatives before), then in the order they were
// put; an urgent item put while it consumes overtakes the queued ones.
func TestPriorityQueue(t *testing.T) {
	recipestest.LeakCheck(t)
	cs := clients(t, 2)
	ctx := ctxT(t)
	prod, err := queue.NewPriority(cs[0], "/q", queue.String{}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if err := prod.Start(ctx); err != nil {
		t.Fatal(err)
	}
	defer prod.Close()
	type put struct {
		item string
		p    int32
	}
	var puts []put
	rng := rand.New(rand.NewPCG(1, 2))
	for i := range 30 {
		p := int32(rng.IntN(7) - 3)
		if i == 7 {
			p = -1 << 31
		}
		puts = append(puts, put{fmt.Sprint(i), p})
		if err := prod.Put(ctx, fmt.Sprint(i), p); err != nil {
			t.Fatal(err)
		}
	}
	if err := prod.PutMulti(ctx, []string{"m1", "m2"}, 1<<31-1); err != nil {
		t.Fatal(err)
	}
	want := slices.Clone(puts)
	slices.SortStableFunc(want, func(a, b put) int { return int(int64(a.p) - int64(b.p)) })
	var wantItems []string
	for _, p := range want {
		wantItems = append(wantItems, p.item)
	}
	wantItems = append(wantItems, "m1", "m2")

	r := newRecord[string]()
	first := make(chan struct{})
	release := make(chan struct{})
	cons, err := queue.NewPriority(cs[1], "/q", queue.String{}, func(_ context.Context, item string) error {
		r.add(item)
		if len(r.got()) == 1 {
			close(first)
			<-release
		}
		return nil
	}, queue.WithLockPath("/locks"))
	if err != nil {
		t.Fatal(err)
	}
	if err := cons.Start(ctx); err != nil {
		t.Fatal(err)
	}
	defer cons.Close()
	<-first
	if err := prod.Put(ctx, "urgent", -1<<31); err != nil { // while the consumer holds the first item
		t.Fatal(err)
	}
	close(release)
	got := r.wait(t, len(wantItems)+1)
	wantItems = slices.Insert(wantItems, 1, "urgent")
	if !slices.Equal(got, wantItems) {
		t.Fatalf("consumed %v, want %v", got, wantItems)
	}
}

// DelayQueue: items come out in due-time order, none before it is due,
// whatever the order they were put in; an item due in the past comes at
// once.
func TestDelayQueue(t *testing.T) {
	recipestest.LeakCheck(t)
	cs := clients(t, 2)
	ctx := ctxT(t)
	type got struct {
		item string
		at   time.Time
	}
	var mu sync.Mutex
	var gots []got
	r := newRecord[string]()
	cons, err := queue.NewDelay(cs[1], "/q", queue.String{}, func(_ context.Context, item string) error {
		mu.Lock()
		gots = append(gots, got{item, time.Now()})
		mu.Unlock()
		r.add(item)
		return nil
	}, queue.WithLockPath("/locks"))
	if err != nil {
		t.Fatal(err)
	}
	prod, _ := queue.NewDelay(cs[0], "/q", queue.String{}, nil)
	if err := prod.Start(ctx); err != nil {
		t.Fatal(err)
	}
	defer prod.Close()
	base := time.Now()
	due := map[string]time.Time{}
	offsets := []int{400, 100, 300, 250, 150, 350, 200}
	for i, ms := range offsets {
		item := fmt.Sprint("d", i)
		due[item] = base.Add(time.Duration(ms) * time.Millisecond)
		if err := prod.Put(ctx, item, due[item]); err != nil {
			t.Fatal(err)
		}
	}
	if err := prod.Put(ctx, "past", base.Add(-time.Hour)); err != nil {
		t.Fatal(err)
	}
	due["past"] = base.Add(-time.Hour)
	// The consumer starts once every item is in: on a loaded machine the
	// puts may outlast the first delays, and an item put after another was
	// consumed would come out of due order.
	if err := cons.Start(ctx); err != nil {
		t.Fatal(err)
	}
	defer cons.Close()
	r.wait(t, len(due))
	mu.Lock()
	defer mu.Unlock()
	if gots[0].item != "past" {
		t.Errorf("first %s, want the item due in the past", gots[0].item)
	}
	for i, g := range gots {
		// Due times are whole milliseconds in the node's name.
		if g.at.UnixMilli() < due[g.item].UnixMilli() {
			t.Errorf("%s delivered at %v, before it was due at %v", g.item, g.at, due[g.item])
		}
		if i > 0 && due[g.item].Before(due[gots[i-1].item]) {
			t.Errorf("%s (due %v) after %s (due %v)", g.item, due[g.item], gots[i-1].item, due[gots[i-1].item])
		}
	}
}

// Bad input fails before any request, with ErrInvalidArg; calls out of
// order fail with ErrNotStarted, ErrAlreadyStarted and ErrClosed.
func TestBadInputSendsNothing(t *testing.T) {
	recipestest.LeakCheck(t)
	counter := zkharness.NewCounter()
	c := recipestest.NewClient(t, server.ConnectString(), framework.WithNamespace(recipestest.Namespace(t)), framework.WithDialer(counter.Dialer(nil)))
	ctx := ctxT(t)
	before := counter.Requests()
	var nilSer queue.Serializer[string]
	bad := map[string]error{}
	for _, path := range []string{"", "/", "q", "/a//b", "/a/", "/a/\x00"} {
		_, bad["New "+path] = queue.New(c, path, queue.String{}, nil)
		_, bad["NewSimple "+path] = queue.NewSimple(c, path)
		_, bad["lock path "+path] = queue.New(c, "/q", queue.String{}, nil, queue.WithLockPath(path))
	}
	_, bad["nil client"] = queue.New(nil, "/q", queue.String{}, nil)
	_, bad["nil client (simple)"] = queue.NewSimple(nil, "/q")
	_, bad["nil serializer"] = queue.New(c, "/q", nilSer, nil)
	_, bad["nil option"] = queue.New(c, "/q", queue.String{}, nil, nil)
	_, bad["lock path is the queue"] = queue.New(c, "/q", queue.String{}, nil, queue.WithLockPath("/q"))
	_, bad["lock path under the queue"] = queue.New(c, "/q", queue.String{}, nil, queue.WithLockPath("/q/locks"))
	_, bad["error mode without a lock"] = queue.New(c, "/q", queue.String{}, nil, queue.WithErrorMode(queue.Delete))
	_, bad["bad error mode"] = queue.New(c, "/q", queue.String{}, nil, queue.WithLockPath("/l"), queue.WithErrorMode(9))
	_, bad["max items 0"] = queue.New(c, "/q", queue.String{}, nil, queue.WithMaxItems(0))
	_, bad["max items -1"] = queue.New(c, "/q", queue.String{}, nil, queue.WithMaxItems(-1))
	_, bad["min items -1"] = queue.NewPriority(c, "/q", queue.String{}, nil, queue.WithMinItemsBeforeRefresh(-1))
	_, bad["min items on a queue"] = queue.New(c, "/q", queue.String{}, nil, queue.WithMinItemsBeforeRefresh(3))
	_, bad["id queue path with |"] = queue.NewID(c, "/q|x", queue.String{}, nil)
	alloc := func(p string) (*queue.Queue[string], error) { return queue.New(c, p, queue.String{}, nil) }
	for name, args := range map[string]struct {
		path, leader string
		pol          queue.SharderPolicies
	}{
		"sharder: empty path":          {"", "/l", queue.SharderPolicies{}},
		"sharder: root":                {"/", "/l", queue.SharderPolicies{}},
		"sharder: relative leader":     {"/s", "l", queue.SharderPolicies{}},
		"sharder: root leader":         {"/s", "/", queue.SharderPolicies{}},
		"sharder: leader is the path":  {"/s", "/s", queue.SharderPolicies{}},
		"sharder: leader under it":     {"/s", "/s/leader", queue.SharderPolicies{}},
		"sharder: path under leader":   {"/l/s", "/l", queue.SharderPolicies{}},
		"sharder: negative threshold":  {"/s", "/l", queue.SharderPolicies{Threshold: -1}},
		"sharder: negative interval":   {"/s", "/l", queue.SharderPolicies{CheckInterval: -time.Second}},
		"sharder: negative max shards": {"/s", "/l", queue.SharderPolicies{MaxShards: -1}},
	} {
		_, bad[name] = queue.NewSharder(c, args.path, args.leader, args.pol, alloc)
	}
	_, bad["sharder: nil client"] = queue.NewSharder(nil, "/s", "/l", queue.SharderPolicies{}, alloc)
	_, bad["sharder: nil allocator"] = queue.NewSharder[*queue.Queue[string]](c, "/s", "/l", queue.SharderPolicies{}, nil)

	q, _ := queue.New(c, "/q", queue.String{}, nil)
	idq, _ := queue.NewID(c, "/idq", queue.String{}, nil)
	dq, _ := queue.NewDelay(c, "/dq", queue.String{}, nil)
	bad["empty PutMulti"] = q.PutMulti(ctx, nil)
	bad["empty id"] = idq.Put(ctx, "x", "")
	bad["id with a bad character"] = idq.Put(ctx, "x", "\x00")
	_, bad["Remove empty id"] = idq.Remove(ctx, "")
	bad["due at the epoch"] = dq.Put(ctx, "x", time.UnixMilli(0))
	bad["due before the epoch"] = dq.Put(ctx, "x", time.Time{})
	for name, err := range bad {
		if !errors.Is(err, queue.ErrInvalidArg) || !errors.Is(err, framework.ErrInvalidArg) {
			t.Errorf("%s: %v, want ErrInvalidArg (framework.ErrInvalidArg)", name, err)
		}
	}
	if err := q.Put(ctx, "x"); !errors.Is(err, queue.ErrNotStarted) || !errors.Is(err, framework.ErrNotStarted) {
		t.Errorf("Put before Start: %v, want ErrNotStarted and framework.ErrNotStarted", err)
	}
	if _, err := idq.Remove(ctx, "x"); !errors.Is(err, queue.ErrNotStarted) || !errors.Is(err, framework.ErrNotStarted) {
		t.Errorf("Remove before Start: %v, want ErrNotStarted and framework.ErrNotStarted", err)
	}
	if n := counter.Requests() - before; n != 0 {
		t.Errorf("bad input sent %d requests", n)
	}
	if err := q.Start(ctx); err != nil {
		t.Fatal(err)
	}
	if err := q.Start(ctx); !errors.Is(err, queue.ErrAlreadyStarted) {
		t.Errorf("second Start: %v, want ErrAlreadyStarted", err)
	}
	q.Close()
	if err := q.Close(); err != nil {
		t.Errorf("second Close: %v", err)
	}
	if err := q.Put(ctx, "x"); !errors.Is(err, queue.ErrClosed) || !errors.Is(err, framework.ErrClosed) {
		t.Errorf("Put after Close: %v, want ErrClosed and framework.ErrClosed", err)
	}
	if err := q.Start(ctx); !errors.Is(err, queue.ErrClosed) || !errors.Is(err, framework.ErrClosed) {
		t.Errorf("Start after Close: %v, want ErrClosed and framework.ErrClosed", err)
	}
	if errors.Is(queue.ErrNotStarted, framework.ErrClosed) || errors.Is(queue.ErrClosed, framework.ErrNotStarted) {
		t.Error("ErrNotStarted and ErrClosed each match the other's framework error")
	}
	if err := idq.Close(); err != nil {
		t.Errorf("Close before Start: %v", err)
	}
	if err := idq.Start(ctx); !errors.Is(err, framework.ErrClosed) {
		t.Errorf("Start after Close: %v, want an error wrapping framework.ErrClosed", err)
	}
}
