package queue_test

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sync/atomic"
	"testing"

	"github.com/gocurator/curator/framework"
	"github.com/gocurator/curator/recipes/queue"
	"github.com/gocurator/curator/recipestest"
	"github.com/gocurator/curator/zkharness"
)

// startQueue makes and starts a Queue[string], closed when the test ends.
func startQueue(t testing.TB, c *framework.Client, path string, fn queue.Consumer[string], opts ...queue.Option) *queue.Queue[string] {
	t.Helper()
	q, err := queue.New(c, path, queue.String{}, fn, opts...)
	if err != nil {
		t.Fatal(err)
	}
	if err := q.Start(ctxT(t)); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { q.Close() })
	return q
}

// recorder is a Consumer that records every item.
func recorder(r *record[string]) queue.Consumer[string] {
	return func(_ context.Context, item string) error {
		r.add(item)
		return nil
	}
}

// One producer, one lock-safe consumer: every item once, first in first
// out, the items of a PutMulti together and in order; afterwards the queue
// and the lock path are empty.
func TestQueueFIFO(t *testing.T) {
	recipestest.LeakCheck(t)
	cs := clients(t, 2)
	ctx := ctxT(t)
	prod := startQueue(t, cs[0], "/q", nil)
	var want []string
	for i := range 10 {
		item := fmt.Sprint("item-", i)
		want = append(want, item)
		if err := prod.Put(ctx, item); err != nil {
			t.Fatal(err)
		}
	}
	if err := prod.PutMulti(ctx, []string{"multi-a", "multi-b", "multi-c"}); err != nil {
		t.Fatal(err)
	}
	want = append(want, "multi-a", "multi-b", "multi-c")
	if kids := children(t, cs[0], "/q"); len(kids) != 11 || kids[0] != "queue-0000000000" {
		t.Fatalf("queue nodes %v, want 11 from queue-0000000000", kids)
	}
	r := newRecord[string]()
	cons := startQueue(t, cs[1], "/q", recorder(r), queue.WithLockPath("/locks"))
	if got := r.wait(t, len(want)); !slices.Equal(got, want) {
		t.Fatalf("consumed %v, want %v", got, want)
	}
	cons.Close()
	if kids := children(t, cs[0], "/q"); len(kids) != 0 {
		t.Fatalf("left in the queue: %v", kids)
	}
	if kids := children(t, cs[0], "/locks"); len(kids) != 0 {
		t.Fatalf("left in the lock path: %v", kids)
	}
	if got := r.got(); len(got) != len(want) {
		t.Fatalf("consumed %d after close, want %d", len(got), len(want))
	}
}

// Four lock-safe consumers and two producers on separate sessions, items
// put while they consume: every item exactly once.
func TestQueueLockSafeConsumersShareItems(t *testing.T) {
	recipestest.LeakCheck(t)
	testConsumersShare(t, queue.WithLockPath("/locks"))
}

// The same without a lock: at most once, and with nothing failing, every
// item once.
func TestQueuePlainConsumersShareItems(t *testing.T) {
	recipestest.LeakCheck(t)
	testConsumersShare(t)
}

func testConsumersShare(t *testing.T, opts ...queue.Option) {
	const consumers, items = 4, 120
	cs := clients(t, consumers+2)
	ctx := ctxT(t)
	r := newRecord[string]()
	var took [consumers]atomic.Int32 // how the items spread over the consumers
	for i := range consumers {
		startQueue(t, cs[i], "/q", func(_ context.Context, item string) error {
			took[i].Add(1)
			r.add(item)
			return nil
		}, opts...)
	}
	done := make(chan error, 2)
	for p := range 2 {
		prod := startQueue(t, cs[consumers+p], "/q", nil)
		go func() {
			for i := range items / 2 {
				if err := prod.Put(ctx, fmt.Sprintf("p%d-%d", p, i)); err != nil {
					done <- err
					return
				}
			}
			done <- nil
		}()
	}
	for range 2 {
		if err := <-done; err != nil {
			t.Fatal(err)
		}
	}
	r.wait(t, items)
	for item, n := range r.counts() {
		if n != 1 {
			t.Errorf("%s consumed %d times", item, n)
		}
	}
	if n := len(r.counts()); n != items {
		t.Fatalf("%d distinct items consumed, want %d", n, items)
	}
	recipestest.Eventually(t, "the queue and lock path to be empty", func() (bool, string) {
		q, l := children(t, cs[0], "/q"), children(t, cs[0], "/locks")
		return len(q) == 0 && len(l) == 0, fmt.Sprint(q, l)
	})
	var spread []int32
	for i := range took {
		spread = append(spread, took[i].Load())
	}
	t.Logf("items per consumer: %v", spread)
}

// A lock-safe consumer that fails: in Requeue mode the item goes to the
// back of the queue and comes again; in Delete mode it is gone. A
// PutMulti node that fails midway is requeued whole.
func TestQueueErrorModes(t *testing.T) {
	recipestest.LeakCheck(t)
	cs := clients(t, 1)
	ctx := ctxT(t)
	for _, mode := range []queue.ErrorMode{queue.Requeue, queue.Delete} {
		t.Run(mode.String(), func(t *testing.T) {
			path := "/q-" + mode.String()
			r := newRecord[string]()
			failed := map[string]bool{}
			q := startQueue(t, cs[0], path, func(_ context.Context, item string) error {
				r.add(item)
				if (item == "bad" || item == "m2") && !failed[item] {
					failed[item] = true
					return errors.New("consumer failed")
				}
				return nil
			}, queue.WithLockPath(path+"-locks"), queue.WithErrorMode(mode))
			for _, it := range []string{"a", "bad", "b"} {
				if err := q.Put(ctx, it); err != nil {
					t.Fatal(err)
				}
			}
			if err := q.PutMulti(ctx, []string{"m1", "m2", "m3"}); err != nil {
				t.Fatal(err)
			}
			want := []string{"a", "bad", "b", "m1", "m2", "bad", "m1", "m2", "m3"}
			if mode == queue.Delete {
				want = []string{"a", "bad", "b", "m1", "m2", "m3"}
			}
			if got := r.wait(t, len(want)); !slices.Equal(got, want) {
				t.Fatalf("consumed %v, want %v", got, want)
			}
			recipestest.Eventually(t, "the queue to be empty", func() (bool, string) {
				kids := children(t, cs[0], path)
				return len(kids) == 0, fmt.Sprint(kids)
			})
		})
	}
}

// Closing while the Consumer is busy: its context ends; it returns an
// error, and the item stays in the queue, unlocked, for the next consumer,
// however the error mode says to treat failures.
func TestQueueCloseLeavesTheItemBeingConsumed(t *testing.T) {
	recipestest.LeakCheck(t)
	cs := clients(t, 2)
	ctx := ctxT(t)
	inside := make(chan struct{})
	q1 := startQueue(t, cs[0], "/q", func(ctx context.Context, item string) error {
		close(inside)
		<-ctx.Done()
		if context.Cause(ctx) == queue.ErrLockLost {
			t.Errorf("the consumer's context ended with ErrLockLost, at a close")
		}
		return ctx.Err()
	}, queue.WithLockPath("/locks"), queue.WithErrorMode(queue.Delete))
	if err := q1.Put(ctx, "x"); err != nil {
		t.Fatal(err)
	}
	<-inside
	if kids := children(t, cs[1], "/locks"); len(kids) != 1 {
		t.Fatalf("lock nodes while consuming: %v", kids)
	}
	q1.Close()
	if kids := children(t, cs[1], "/locks"); len(kids) != 0 {
		t.Fatalf("lock nodes after close: %v", kids)
	}
	if kids := children(t, cs[1], "/q"); len(kids) != 1 {
		t.Fatalf("queue after close: %v, want the item", kids)
	}
	r := newRecord[string]()
	startQueue(t, cs[1], "/q", recorder(r), queue.WithLockPath("/locks"))
	if got := r.wait(t, 1); got[0] != "x" {
		t.Fatalf("the next consumer got %v", got)
	}
}

// A plain (not lock-safe) consumer that has read an item as its queue
// closes does not remove it: the queue would hand it to a Consumer whose
// context has ended, and the item, removed, would be lost. The removal
// step a plain take makes after its read, given an ended context, leaves
// the item, which the next consumer gets; given a live one, it removes it.
func TestQueuePlainTakeAtCloseLeavesTheItem(t *testing.T) {
	recipestest.LeakCheck(t)
	c := clients(t, 1)[0]
	ctx := ctxT(t)
	q := startQueue(t, c, "/q", nil)
	for _, item := range []string{"x", "y"} {
		if err := q.Put(ctx, item); err != nil {
			t.Fatal(err)
		}
	}
	names := children(t, c, "/q")
	version := func(name string) int32 {
		_, stat, err := c.Get(ctx, "/q/"+name)
		if err != nil {
			t.Fatal(err)
		}
		return stat.Version
	}
	closing, cancel := context.WithCancel(ctx)
	cancel()
	if ok, err := queue.Claim(closing, q, names[0], version(names[0])); ok || err != nil {
		t.Fatalf("a plain take's removal with its queue's context ended: %v, %v; want nothing removed", ok, err)
	}
	if ok, err := queue.Claim(ctx, q, names[1], version(names[1])); !ok || err != nil {
		t.Fatalf("a plain take's removal with its queue's context live: %v, %v; want the item removed", ok, err)
	}
	if kids := children(t, c, "/q"); !slices.Equal(kids, names[:1]) {
		t.Fatalf("queue after the removals: %v, want %v", kids, names[:1])
	}
	r := newRecord[string]()
	startQueue(t, c, "/q", recorder(r))
	if got := r.wait(t, 1); got[0] != "x" {
		t.Fatalf("the next consumer got %v, want x", got)
	}
}

// A Consumer that closes its own queue at a "poison pill": Close returns
// (it does not wait for the Consumer calling it), the pill is removed as
// any item whose Consumer returned nil, nothing after it is delivered, and
// a Close from outside then returns once the queue's goroutine is done.
func TestQueueCloseFromTheConsumer(t *testing.T) {
	recipestest.LeakCheck(t)
	cs := clients(t, 2)
	ctx := ctxT(t)
	prod := startQueue(t, cs[0], "/q", nil)
	for _, it := range []string{"a", "stop", "b"} {
		if err := prod.Put(ctx, it); err != nil {
			t.Fatal(err)
		}
	}
	r := newRecord[string]()
	closed := make(chan error, 1)
	var q *queue.Queue[string]
	q, err := queue.New(cs[1], "/q", queue.String{}, func(_ context.Context, item string) error {
		r.add(item)
		if item == "stop" {
			closed <- q.Close()
		}
		return nil
	}, queue.WithLockPath("/locks"))
	if err != nil {
		t.Fatal(err)
	}
	// No Close in a cleanup: had the Consumer's Close deadlocked, it would
	// hang the test instead of failing it.
	if err := q.Start(ctx); err != nil {
		t.Fatal(err)
	}
	select {
	case err := <-closed:
		if err != nil {
			t.Fatalf("Close from the Consumer: %v", err)
		}
	case <-ctx.Done():
		t.Fatal("Close called from the Consumer never returned")
	}
	if err := q.Close(); err != nil {
		t.Fatal(err)
	}
	if got := r.got(); !slices.Equal(got, []string{"a", "stop"}) {
		t.Fatalf("consumed %v, want a and stop", got)
	}
	if kids, locks := children(t, cs[0], "/q"), children(t, cs[0], "/locks"); len(kids) != 1 || len(locks) != 0 {
		t.Fatalf("after the close: queue %v, locks %v; want b alone in the queue", kids, locks)
	}
	if err := q.Put(ctx, "c"); !errors.Is(err, queue.ErrClosed) {
		t.Fatalf("Put after a Close from the Consumer: %v, want ErrClosed", err)
	}
}

// Every Close waits for the consumer to stop, not only the first: a second
// Close, made while the first waits for a Consumer that is slow to return,
// returns after the Consumer did.
func TestQueueEveryCloseWaits(t *testing.T) {
	recipestest.LeakCheck(t)
	cs := clients(t, 1)
	ctx := ctxT(t)
	for round := range 5 {
		inside, stopping, release := make(chan struct{}), make(chan struct{}), make(chan struct{})
		var returned atomic.Bool
		path := fmt.Sprint("/q", round)
		q := startQueue(t, cs[0], path, func(ctx context.Context, _ string) error {
			close(inside)
			<-ctx.Done()
			close(stopping)
			<-release // slow to return
			returned.Store(true)
			return ctx.Err()
		}, queue.WithLockPath(path+"-locks"))
		if err := q.Put(ctx, "x"); err != nil {
			t.Fatal(err)
		}
		<-inside
		first := make(chan error, 1)
		go func() { first <- q.Close() }()
		<-stopping // the first Close has begun
		go func() { close(release) }()
		if err := q.Close(); err != nil {
			t.Fatal(err)
		}
		if !returned.Load() {
			t.Fatalf("round %d: a second Close returned while the Consumer was still running", round)
		}
		if err := <-first; err != nil {
			t.Fatal(err)
		}
	}
}

// The context given to Start is the queue's lifetime: when it ends the
// consumer stops, and Put says the queue is closed.
func TestQueueStartContextEnds(t *testing.T) {
	recipestest.LeakCheck(t)
	cs := clients(t, 1)
	lctx, end := context.WithCancel(context.Background())
	r := newRecord[string]()
	q, err := queue.New(cs[0], "/q", queue.String{}, recorder(r))
	if err != nil {
		t.Fatal(err)
	}
	if err := q.Start(lctx); err != nil {
		t.Fatal(err)
	}
	if err := q.Put(ctxT(t), "a"); err != nil {
		t.Fatal(err)
	}
	r.wait(t, 1)
	end()
	if err := q.Put(ctxT(t), "b"); !errors.Is(err, queue.ErrClosed) {
		t.Fatalf("Put after the lifetime ended: %v, want ErrClosed", err)
	}
	if err := q.Close(); err != nil {
		t.Fatal(err)
	}
}

// A node that is not in Curator's format, or that the serializer refuses,
// is logged and removed, and the items after it are delivered.
func TestQueueCorruptNodesRemoved(t *testing.T) {
	recipestest.LeakCheck(t)
	ns := recipestest.Namespace(t)
	cs := []*framework.Client{recipestest.NewClient(t, server.ConnectString(), framework.WithNamespace(ns))}
	ctx := ctxT(t)
	for _, lock := range []string{"", "/locks"} {
		path := "/q" + lock
		if _, err := cs[0].Create(ctx, path+"/queue-", []byte("not curator"), framework.WithMode(framework.PersistentSequential), framework.WithParents()); err != nil {
			t.Fatal(err)
		}
		var opts []queue.Option
		if lock != "" {
			opts = append(opts, queue.WithLockPath(lock))
		}
		logger, logged := recipestest.LogSignal("corrupt item node removed")
		c := recipestest.NewClient(t, server.ConnectString(), framework.WithNamespace(ns), framework.WithLogger(logger))
		r := newRecord[string]()
		q := startQueue(t, c, path, recorder(r), opts...)
		if err := q.Put(ctx, "good"); err != nil {
			t.Fatal(err)
		}
		if got := r.wait(t, 1); got[0] != "good" {
			t.Fatalf("consumed %v", got)
		}
		<-logged
		recipestest.Eventually(t, "the corrupt node to be removed", func() (bool, string) {
			kids := children(t, cs[0], path)
			return len(kids) == 0, fmt.Sprint(kids)
		})
	}
}

// An item the consumer may not read (another producer's, under an ACL that
// leaves it out) is left in the queue and logged, and the items after it
// are delivered, in either mode: Curator's consumer logs such an item and
// goes on.
func TestQueueUnreadableItemIsPassed(t *testing.T) {
	recipestest.LeakCheck(t)
	ns := recipestest.Namespace(t)
	admin := recipestest.NewClient(t, server.ConnectString(), framework.WithNamespace(ns))
	ctx := ctxT(t)
	for _, lock := range []string{"", "/locks"} {
		path := "/q" + lock
		if _, err := admin.Create(ctx, path+"/queue-", []byte("private"), framework.WithMode(framework.PersistentSequential),
			framework.WithParents(), framework.WithACL(framework.DigestACL(framework.PermAll, "owner", "secret"))); err != nil {
			t.Fatal(err)
		}
		var opts []queue.Option
		if lock != "" {
			opts = append(opts, queue.WithLockPath(lock))
		}
		logger, logged := recipestest.LogSignal("cannot read is left in the queue")
		c := recipestest.NewClient(t, server.ConnectString(), framework.WithNamespace(ns), framework.WithLogger(logger))
		r := newRecord[string]()
		q := startQueue(t, c, path, recorder(r), opts...)
		if err := q.Put(ctx, "good"); err != nil {
			t.Fatal(err)
		}
		if got := r.wait(t, 1); got[0] != "good" {
			t.Fatalf("lock path %q: consumed %v", lock, got)
		}
		select {
		case <-logged:
		case <-ctx.Done():
			t.Fatalf("lock path %q: the unreadable item was not logged", lock)
		}
		recipestest.Eventually(t, "the unreadable item alone in the queue", func() (bool, string) {
			kids := children(t, admin, path)
			return len(kids) == 1, fmt.Sprint(kids)
		})
	}
}

// A bounded queue: a Put waits while the queue holds maxItems nodes, and
// goes on once a consumer takes one.
func TestQueueMaxItems(t *testing.T) {
	recipestest.LeakCheck(t)
	cs := clients(t, 2)
	ctx := ctxT(t)
	prod := startQueue(t, cs[0], "/q", nil, queue.WithMaxItems(2))
	for _, it := range []string{"a", "b"} {
		if err := prod.Put(ctx, it); err != nil {
			t.Fatal(err)
		}
	}
	tctx, cancel := context.WithCancel(ctx)
	cancel()
	if err := prod.Put(tctx, "c"); !errors.Is(err, context.Canceled) {
		t.Fatalf("Put into a full queue with an ended context: %v", err)
	}
	put := make(chan error, 1)
	go func() { put <- prod.Put(ctx, "c") }()
	r := newRecord[string]()
	startQueue(t, cs[1], "/q", recorder(r))
	if err := <-put; err != nil {
		t.Fatal(err)
	}
	if got := r.wait(t, 3); !slices.Equal(got, []string{"a", "b", "c"}) {
		t.Fatalf("consumed %v", got)
	}
	// A Put waiting for room returns when the queue closes.
	counter := zkharness.NewCounter()
	pc := recipestest.NewClient(t, server.ConnectString(), framework.WithDialer(counter.Dialer(nil)))
	full := startQueue(t, pc, "/full-"+recipestest.Namespace(t), nil, queue.WithMaxItems(1))
	if err := full.Put(ctx, "x"); err != nil {
		t.Fatal(err)
	}
	lists := counter.RequestsOf(zkharness.OpGetChildren2)
	go func() { put <- full.Put(ctx, "y") }()
	recipestest.Eventually(t, "the put to list the full queue with a watch", func() (bool, string) {
		n := counter.RequestsOf(zkharness.OpGetChildren2) - lists
		return n == 2, fmt.Sprint(n, " listings")
	})
	full.Close()
	if err := <-put; !errors.Is(err, queue.ErrClosed) {
		t.Fatalf("a waiting Put when its queue closed: %v, want ErrClosed", err)
	}
}

// The lock path deleted under a lock-safe consumer is made again: items go
// on being consumed.
func TestQueueLockPathRecreated(t *testing.T) {
	recipestest.LeakCheck(t)
	logger, logged := recipestest.LogSignal("the lock path does not exist")
	cs := clients(t, 1, framework.WithLogger(logger))
	ctx := ctxT(t)
	r := newRecord[string]()
	q := startQueue(t, cs[0], "/q", recorder(r), queue.WithLockPath("/locks"))
	if err := q.Put(ctx, "a"); err != nil {
		t.Fatal(err)
	}
	r.wait(t, 1)
	waitEmpty(t, cs[0], "/q", "/locks")
	if err := cs[0].Delete(ctx, "/locks"); err != nil {
		t.Fatal(err)
	}
	if err := q.Put(ctx, "b"); err != nil {
		t.Fatal(err)
	}
	<-logged
	if got := r.wait(t, 2); got[1] != "b" {
		t.Fatalf("consumed %v", got)
	}
}
