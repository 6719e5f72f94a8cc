package queue_test

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"golang.org/x/sync/errgroup"

	"github.com/gocurator/curator/framework"
	"github.com/gocurator/curator/listener"
	"github.com/gocurator/curator/recipes/queue"
	"github.com/gocurator/curator/recipestest"
	"github.com/gocurator/curator/zkharness"
)

// behindProxy returns a client through a fault proxy, a channel closed
// when that client's connection is first suspended (the proxy cut it), and
// a client straight to the server, in one namespace.
func behindProxy(t *testing.T, opts ...framework.Option) (*zkharness.Proxy, <-chan struct{}, *framework.Client, *framework.Client) {
	t.Helper()
	ns := recipestest.Namespace(t)
	proxy := recipestest.StartProxy(t, server.Addr())
	opts = append([]framework.Option{framework.WithNamespace(ns)}, opts...)
	c := recipestest.NewClient(t, proxy.Addr(), opts...)
	cut := make(chan struct{})
	var once sync.Once
	remove, err := c.AddConnectionStateListener(func(s listener.ConnectionState) {
		if s == listener.Suspended {
			once.Do(func() { close(cut) })
		}
	})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(remove)
	return proxy, cut, c, recipestest.NewClient(t, server.ConnectString(), opts...)
}

// waitCut waits until the proxy has cut the connection: the fault fired.
func waitCut(t *testing.T, cut <-chan struct{}) {
	t.Helper()
	select {
	case <-cut:
	case <-ctxT(t).Done():
		t.Fatal("the proxy's fault never fired")
	}
}

// waitEmpty waits until the queue and the lock path have no child.
func waitEmpty(t *testing.T, c *framework.Client, paths ...string) {
	t.Helper()
	recipestest.Eventually(t, fmt.Sprint(paths, " to be empty"), func() (bool, string) {
		var left []string
		for _, p := range paths {
			left = append(left, children(t, c, p)...)
		}
		return len(left) == 0, fmt.Sprint(left)
	})
}

// The lock node's create commits but its reply is lost: the transaction
// sent again finds the node, which is the consumer's own (its session's),
// so the consumer goes on with the item; it is consumed once, and no lock
// node is left.
func TestLostLockCreateReply(t *testing.T) {
	recipestest.LeakCheck(t)
	proxy, cut, cons, prod := behindProxy(t)
	ctx := ctxT(t)
	p := startQueue(t, prod, "/q", nil)
	r := newRecord[string]()
	startQueue(t, cons, "/q", recorder(r), queue.WithLockPath("/locks"))
	proxy.DropAfter(zkharness.OpMulti) // the consumer's next transaction checks the item and creates its lock
	if err := p.Put(ctx, "x"); err != nil {
		t.Fatal(err)
	}
	waitCut(t, cut)
	r.wait(t, 1)
	waitEmpty(t, prod, "/q", "/locks")
	if got := r.got(); len(got) != 1 {
		t.Fatalf("consumed %v, want x once", got)
	}
}

// A Remove whose lock create takes effect but whose answer is lost while
// its context ends cannot tell whether it made the lock node, which then
// holds the item for the client's session. The next Remove of the id
// creates with the same token, finds the node its own, and removes the
// item; nothing is left.
func TestRemoveAfterALostLockCreate(t *testing.T) {
	recipestest.LeakCheck(t)
	proxy, _, c, direct := behindProxy(t)
	ctx := ctxT(t)
	q, err := queue.NewID[string](c, "/q", queue.String{}, nil, queue.WithLockPath("/locks"))
	if err != nil {
		t.Fatal(err)
	}
	if err := q.Start(ctx); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { q.Close() })
	if err := q.Put(ctx, "x", "id"); err != nil {
		t.Fatal(err)
	}
	held := proxy.HoldReply(zkharness.OpCreate) // the Remove's lock create
	rctx, cancel := context.WithCancel(ctx)
	removed := make(chan error, 1)
	go func() {
		_, err := q.Remove(rctx, "id")
		removed <- err
	}()
	select {
	case <-held.Arrived(): // the lock node is made
	case <-ctx.Done():
		t.Fatal("the Remove sent no lock create")
	}
	cancel()
	held.Drop() // its answer never comes
	if err := <-removed; err == nil {
		t.Fatal("the Remove whose lock create went unanswered reported no error")
	}
	if got := children(t, direct, "/locks"); len(got) != 1 {
		t.Fatalf("lock nodes %v, want the one the unanswered create made", got)
	}
	n, err := q.Remove(ctx, "id")
	if err != nil || n != 1 {
		t.Fatalf("the next Remove: %d, %v; want the item removed", n, err)
	}
	waitEmpty(t, direct, "/q", "/locks")
}

// Two lock-safe queues on one client (one session): while the first's
// consumer holds an item, the reply to the second's lock create for that
// item is lost, and the retry finds a lock node its session owns. It is the
// first queue's, not the second's: the second goes on to the next item and
// never delivers the held one.
func TestLostLockCreateReplyOnASharedSession(t *testing.T) {
	recipestest.LeakCheck(t)
	// The Session policy: the first consumer's lock outlives the dropped
	// connection, and its context with it.
	proxy, cut, c, prod := behindProxy(t, framework.WithErrorPolicy(listener.SessionErrorPolicy{}))
	ctx := ctxT(t)
	p := startQueue(t, prod, "/q", nil)
	inside, release := make(chan struct{}), make(chan struct{})
	startQueue(t, c, "/q", func(_ context.Context, item string) error {
		close(inside)
		<-release
		return nil
	}, queue.WithLockPath("/locks"))
	defer close(release)
	if err := p.Put(ctx, "held"); err != nil {
		t.Fatal(err)
	}
	<-inside
	if err := p.Put(ctx, "next"); err != nil {
		t.Fatal(err)
	}
	proxy.DropAfter(zkharness.OpMulti) // the second queue's lock create for the held item
	r := newRecord[string]()
	startQueue(t, c, "/q", recorder(r), queue.WithLockPath("/locks"))
	waitCut(t, cut)
	if got := r.wait(t, 1); got[0] != "next" {
		t.Fatalf("the second queue consumed %v while the first held the item; want next alone", got)
	}
}

// A lock-safe consumer that finds an item locked by another consumer takes
// it once that consumer lets go of it without removing it (here it closes
// mid-item; it could fail or die), with no other change to the queue: the
// lock node's deletion, not a new item, wakes it. Whether the lock went
// before the consumer could watch it or while it watched.
func TestReleasedItemIsTakenByAnotherConsumer(t *testing.T) {
	recipestest.LeakCheck(t)
	for _, when := range []string{"before the watch", "while watched"} {
		t.Run(when, func(t *testing.T) {
			proxy, _, cb, ca := behindProxy(t)
			ctx := ctxT(t)
			inside := make(chan struct{})
			a := startQueue(t, ca, "/q", func(ctx context.Context, item string) error {
				close(inside)
				<-ctx.Done()
				return ctx.Err()
			}, queue.WithLockPath("/locks"))
			if err := a.Put(ctx, "x"); err != nil {
				t.Fatal(err)
			}
			<-inside // a holds x
			// b's request that finds x locked, or that watches x's lock
			// node, is answered only once a has let go of x.
			held := proxy.HoldReply(zkharness.OpMulti)
			if when == "while watched" {
				held = proxy.HoldReply(zkharness.OpGetData)
			}
			r := newRecord[string]()
			startQueue(t, cb, "/q", recorder(r), queue.WithLockPath("/locks"))
			select {
			case <-held.Arrived():
			case <-ctx.Done():
				t.Fatalf("the second consumer never sent the request the proxy holds (%s)", when)
			}
			a.Close() // x stays in the queue, its lock node goes
			if kids, locks := children(t, ca, "/q"), children(t, ca, "/locks"); len(kids) != 1 || len(locks) != 0 {
				t.Fatalf("after the first consumer closed: queue %v, locks %v; want x alone, unlocked", kids, locks)
			}
			held.Deliver()
			if got := r.wait(t, 1); got[0] != "x" {
				t.Fatalf("the second consumer consumed %v", got)
			}
			waitEmpty(t, ca, "/q", "/locks")
		})
	}
}

// The reply to the item's removal after its Consumer returned is lost:
// the removal sent again finds the item gone, which is no error; the item
// is consumed once, and nothing is left.
func TestLostItemDeleteReply(t *testing.T) {
	recipestest.LeakCheck(t)
	proxy, cut, cons, prod := behindProxy(t)
	ctx := ctxT(t)
	p := startQueue(t, prod, "/q", nil)
	r := newRecord[string]()
	armed := make(chan struct{})
	startQueue(t, cons, "/q", func(_ context.Context, item string) error {
		<-armed
		r.add(item)
		return nil
	}, queue.WithLockPath("/locks"))
	if err := p.Put(ctx, "x"); err != nil {
		t.Fatal(err)
	}
	recipestest.Eventually(t, "the consumer to lock the item", func() (bool, string) {
		kids := children(t, prod, "/locks")
		return len(kids) == 1, fmt.Sprint(kids)
	})
	proxy.DropAfter(zkharness.OpMulti) // the item's removal, with its lock's
	close(armed)
	waitCut(t, cut)
	waitEmpty(t, prod, "/q", "/locks")
	if err := p.Put(ctx, "y"); err != nil {
		t.Fatal(err)
	}
	r.wait(t, 2)
	waitEmpty(t, prod, "/q", "/locks")
	if got := r.counts(); got["x"] != 1 || got["y"] != 1 || len(got) != 2 {
		t.Fatalf("consumed %v, want x and y once", r.got())
	}
}

// Without a lock, the reply to the item's removal is lost: the consumer
// cannot tell whether its removal or another consumer's took the item, so
// it does not deliver it, and logs it: at most once. The queue goes on.
func TestPlainLostRemovalReplyIsNotDelivered(t *testing.T) {
	recipestest.LeakCheck(t)
	logger, logged := recipestest.LogSignal("may be lost")
	proxy, cut, cons, prod := behindProxy(t, framework.WithLogger(logger))
	ctx := ctxT(t)
	p := startQueue(t, prod, "/q", nil)
	r := newRecord[string]()
	startQueue(t, cons, "/q", recorder(r))
	proxy.DropAfter(zkharness.OpMulti) // the removal is a transaction, so that its outcome can be unknown
	if err := p.Put(ctx, "x"); err != nil {
		t.Fatal(err)
	}
	waitCut(t, cut)
	select {
	case <-logged:
	case <-ctx.Done():
		t.Fatal("no log of the unknown removal")
	}
	if err := p.Put(ctx, "y"); err != nil {
		t.Fatal(err)
	}
	if got := r.wait(t, 1); len(got) != 1 || got[0] != "y" {
		t.Fatalf("consumed %v, want only y", got)
	}
	waitEmpty(t, prod, "/q")
}

// The session expires while a lock-safe Consumer holds an item: its context
// ends with ErrLockLost; it gives up, the item stays (the lock node went
// with the session), and the queue, on its new session, delivers it again.
// Under both error policies.
func TestSessionExpiryWhileConsuming(t *testing.T) {
	recipestest.LeakCheck(t)
	for _, policy := range []listener.ErrorPolicy{listener.StandardErrorPolicy{}, listener.SessionErrorPolicy{}} {
		t.Run(fmt.Sprintf("%T", policy), func(t *testing.T) {
			cs := clients(t, 2, framework.WithErrorPolicy(policy))
			ctx := ctxT(t)
			p := startQueue(t, cs[0], "/q", nil)
			var calls atomic.Int32
			inside := make(chan struct{})
			causes := make(chan error, 1)
			r := newRecord[string]()
			startQueue(t, cs[1], "/q", func(ctx context.Context, item string) error {
				if calls.Add(1) == 1 {
					close(inside)
					<-ctx.Done()
					causes <- context.Cause(ctx)
					return ctx.Err()
				}
				r.add(item)
				return nil
			}, queue.WithLockPath("/locks"), queue.WithErrorMode(queue.Delete))
			if err := p.Put(ctx, "x"); err != nil {
				t.Fatal(err)
			}
			<-inside
			if err := cs[1].InjectSessionExpiration(ctx); err != nil {
				t.Fatal(err)
			}
			if cause := <-causes; !errors.Is(cause, queue.ErrLockLost) {
				t.Fatalf("the consumer's context ended with %v, want ErrLockLost", cause)
			}
			if got := r.wait(t, 1); got[0] != "x" {
				t.Fatalf("delivered again: %v", got)
			}
			waitEmpty(t, cs[0], "/q", "/locks")
			if n := calls.Load(); n != 2 {
				t.Fatalf("%d deliveries, want 2 (the interrupted one and the one that consumed)", n)
			}
		})
	}
}

// A consumer's session expires while it waits for items: its watch ends
// with the session, and it watches again on the new one.
func TestSessionExpiryWhileIdle(t *testing.T) {
	recipestest.LeakCheck(t)
	cs := clients(t, 2)
	ctx := ctxT(t)
	p := startQueue(t, cs[0], "/q", nil)
	r := newRecord[string]()
	startQueue(t, cs[1], "/q", recorder(r), queue.WithLockPath("/locks"))
	if err := p.Put(ctx, "before"); err != nil {
		t.Fatal(err)
	}
	r.wait(t, 1)
	if err := cs[1].InjectSessionExpiration(ctx); err != nil {
		t.Fatal(err)
	}
	if err := p.Put(ctx, "after"); err != nil {
		t.Fatal(err)
	}
	if got := r.wait(t, 2); got[1] != "after" {
		t.Fatalf("consumed %v", got)
	}
}

// A put whose reply is lost is sent again, as Curator's is: the item is in
// the queue (twice, then, since the first create had committed), never
// lost.
func TestLostPutReply(t *testing.T) {
	recipestest.LeakCheck(t)
	proxy, cut, prod, other := behindProxy(t)
	ctx := ctxT(t)
	p := startQueue(t, prod, "/q", nil)
	proxy.DropAfter(zkharness.OpCreate)
	if err := p.Put(ctx, "x"); err != nil {
		t.Fatalf("Put across a lost reply: %v", err)
	}
	waitCut(t, cut)
	if kids := children(t, other, "/q"); len(kids) < 1 || len(kids) > 2 {
		t.Fatalf("queue %v, want the item once or twice", kids)
	}
}

// On a 3-member ensemble the ZooKeeper leader is killed while Go
// producers and lock-safe consumers work: every item put is consumed
// (at least once: a consumer whose connection was suspended mid-item may
// have lost its lock), and nothing is left in the queue or the lock path.
func TestEnsembleLeaderKilled(t *testing.T) {
	recipestest.LeakCheck(t)
	ens, err := zkharness.StartEnsemble(3)
	if err != nil {
		t.Fatal(err)
	}
	defer ens.Close()
	const consumers, items = 3, 60
	newC := func() *framework.Client {
		return recipestest.NewClient(t, ens.ConnectString(), framework.WithSessionTimeout(6*time.Second))
	}
	ctx := ctxT(t)
	r := newRecord[string]()
	for range consumers {
		startQueue(t, newC(), "/q", recorder(r), queue.WithLockPath("/locks"))
	}
	admin := newC()
	p := startQueue(t, newC(), "/q", nil)
	g, gctx := errgroup.WithContext(ctx)
	halfway := make(chan struct{})
	var acked atomic.Int32
	g.Go(func() error {
		for i := range items {
			if i == items/2 {
				close(halfway)
			}
			for {
				err := p.Put(gctx, fmt.Sprint(i))
				if err == nil {
					acked.Add(1)
					break
				}
				if gctx.Err() != nil {
					return err
				}
			}
		}
		return nil
	})
	<-halfway
	leader, err := ens.Leader(ctx)
	if err != nil {
		t.Fatal(err)
	}
	ens.Kill(leader)
	if err := g.Wait(); err != nil {
		t.Fatal(err)
	}
	r.waitFor(t, "every item consumed", func(got []string) bool {
		seen := map[string]bool{}
		for _, it := range got {
			seen[it] = true
		}
		return len(seen) == items
	})
	waitEmpty(t, admin, "/q", "/locks")
	if err := ens.Restart(leader); err != nil {
		t.Fatal(err)
	}
	dup := 0
	for _, n := range r.counts() {
		dup += n - 1
	}
	t.Logf("%d items, %d delivered more than once", items, dup)
}

// A lock-safe consumer that goes to watch the lock node of an item another
// consumer held, and finds it gone already, sets no watch: an exists would
// leave one for the node's creation, which never comes (an item's name is
// never used again), until the session ends. One that finds it there
// watches it, and the watch goes when the node does.
func TestWatchOfAGoneLockLeavesNoWatch(t *testing.T) {
	ns := recipestest.Namespace(t)
	c := recipestest.NewClient(t, server.ConnectString(), framework.WithNamespace(ns))
	ctx := ctxT(t)
	q := startQueue(t, c, "/q", func(context.Context, string) error { return nil }, queue.WithLockPath("/locks"))
	gone, err := queue.WatchHeld(ctx, q, "queue-0000000007")
	if err != nil || !gone {
		t.Fatalf("watching a lock node that is not there: gone %v, %v; want true", gone, err)
	}
	if left := recipestest.WatchedPaths(t, server.Addr(), "/"+ns+"/locks/"); len(left) != 0 {
		t.Fatalf("watches left on %v", left)
	}
	if _, err := c.Create(ctx, "/locks/queue-0000000008", nil, framework.WithMode(framework.Ephemeral)); err != nil {
		t.Fatal(err)
	}
	if gone, err := queue.WatchHeld(ctx, q, "queue-0000000008"); err != nil || gone {
		t.Fatalf("watching a lock node that is there: gone %v, %v; want false", gone, err)
	}
	if left := recipestest.WatchedPaths(t, server.Addr(), "/"+ns+"/locks/"); len(left) != 1 {
		t.Fatalf("watches on %v; want the lock node's", left)
	}
	if err := c.Delete(ctx, "/locks/queue-0000000008"); err != nil {
		t.Fatal(err)
	}
	recipestest.Eventually(t, "the fired watch to go", func() (bool, string) {
		left := recipestest.WatchedPaths(t, server.Addr(), "/"+ns+"/locks/")
		return len(left) == 0, fmt.Sprint(left)
	})
}
