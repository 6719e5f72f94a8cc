package recipestest

import (
	"context"
	"errors"
	"strconv"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/gocurator/curator/driver"
	"github.com/gocurator/curator/framework"
	"github.com/gocurator/curator/recipes/locks"
)

// TestLockDriver checks, on the ZooKeeper at connect, that drv makes a
// correct lock when the LockInternals engine runs it, in the spirit of
// testing/fstest.TestFS:
//
//   - exclusion: with maxLeases 1 and 2, never more holders than that;
//   - no orphans: nothing is left in the lock's directory afterwards;
//   - no herd: with maxLeases 1, a release wakes exactly one waiter;
//   - clean cancel: a waiter whose context ends leaves no node.
//
// lockName is the name the engine gives the driver (e.g. "lock-"). Each
// check uses its own clients and a fresh namespace.
func TestLockDriver(t *testing.T, connect string, drv driver.LockDriver, lockName string) {
	t.Helper()
	for _, max := range []int{1, 2} {
		t.Run("exclusion-"+strconv.Itoa(max), func(t *testing.T) { checkExclusion(t, connect, drv, lockName, max) })
	}
	t.Run("no-herd", func(t *testing.T) { checkNoHerd(t, connect, drv, lockName) })
	t.Run("cancel", func(t *testing.T) { checkCancel(t, connect, drv, lockName) })
}

// conformanceClient starts a client in ns, closed when t ends.
func conformanceClient(t *testing.T, connect, ns string, opts ...framework.Option) *framework.Client {
	t.Helper()
	return NewClient(t, connect, append([]framework.Option{framework.WithNamespace(ns)}, opts...)...)
}

func engine(t *testing.T, c *framework.Client, drv driver.LockDriver, lockName string, max int) *locks.LockInternals {
	t.Helper()
	li, err := locks.NewLockInternals(c, "/lock", lockName, max, drv, nil)
	if err != nil {
		t.Fatal(err)
	}
	return li
}

func checkExclusion(t *testing.T, connect string, drv driver.LockDriver, lockName string, max int) {
	const workers, cycles = 4, 10
	ns := Namespace(t)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	var inside, most atomic.Int32
	var wg sync.WaitGroup
	errs := make(chan error, workers)
	var observer *framework.Client
	for range workers {
		c := conformanceClient(t, connect, ns)
		observer = c
		li := engine(t, c, drv, lockName, max)
		wg.Add(1)
		go func() {
			defer wg.Done()
			for range cycles {
				path, err := li.Acquire(ctx, false)
				if err != nil {
					errs <- err
					return
				}
				n := inside.Add(1)
				for m := most.Load(); n > m && !most.CompareAndSwap(m, n); m = most.Load() {
				}
				_, _, err = c.Exists(ctx, path) // a round trip inside widens the window
				inside.Add(-1)
				if err == nil {
					err = li.Release(ctx, path)
				}
				if err != nil {
					errs <- err
					return
				}
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}
	if m := most.Load(); m > int32(max) {
		t.Fatalf("%d holders at once with maxLeases %d", m, max)
	}
	kids, _, err := observer.Children(ctx, "/lock")
	if err != nil && !errors.Is(err, framework.ErrNoNode) {
		t.Fatal(err)
	}
	if len(kids) != 0 {
		t.Fatalf("orphan nodes: %v", kids)
	}
}

func checkNoHerd(t *testing.T, connect string, drv driver.LockDriver, lockName string) {
	const waiters = 4
	ns := Namespace(t)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	counters := make([]*Counter, waiters+1)
	clients := make([]*framework.Client, waiters+1)
	engines := make([]*locks.LockInternals, waiters+1)
	for i := range clients {
		counters[i] = NewCounter()
		clients[i] = conformanceClient(t, connect, ns, framework.WithDialer(counters[i].Dialer(nil)))
		engines[i] = engine(t, clients[i], drv, lockName, 1)
	}
	held, err := engines[0].Acquire(ctx, false)
	if err != nil {
		t.Fatal(err)
	}
	paths := make([]chan string, waiters+1)
	for i := 1; i <= waiters; i++ {
		paths[i] = make(chan string, 1)
		go func() {
			p, err := engines[i].Acquire(ctx, false)
			if err != nil {
				t.Error(err)
			}
			paths[i] <- p
		}()
		waitNodes(t, ctx, engines[0], i+1)
	}
	notifications := func() int64 {
		var n int64
		for i, c := range clients {
			c.Exists(ctx, "/") // notifications come before later replies
			n += counters[i].Notifications()
		}
		return n
	}
	before := notifications()
	owner := engines[0]
	for i := 1; i <= waiters; i++ {
		if err := owner.Release(ctx, held); err != nil {
			t.Fatal(err)
		}
		held, owner = <-paths[i], engines[i]
		if got := notifications() - before; got != int64(i) {
			t.Fatalf("%d notifications after %d releases: a release woke more than one waiter", got, i)
		}
	}
	owner.Release(ctx, held)
}

func checkCancel(t *testing.T, connect string, drv driver.LockDriver, lockName string) {
	ns := Namespace(t)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	a := engine(t, conformanceClient(t, connect, ns), drv, lockName, 1)
	b := engine(t, conformanceClient(t, connect, ns), drv, lockName, 1)
	held, err := a.Acquire(ctx, false)
	if err != nil {
		t.Fatal(err)
	}
	wctx, stop := context.WithCancel(ctx)
	done := make(chan error, 1)
	go func() { _, err := b.Acquire(wctx, false); done <- err }()
	waitNodes(t, ctx, a, 2)
	stop()
	if err := <-done; !errors.Is(err, context.Canceled) {
		t.Fatalf("cancelled acquire returned %v", err)
	}
	nodes, err := a.Participants(ctx)
	if err != nil || len(nodes) != 1 || nodes[0] != held {
		t.Fatalf("after a cancelled acquire: %v %v, want only the holder %s", nodes, err, held)
	}
	a.Release(ctx, held)
}

// waitNodes polls until the lock has n nodes; a waiter's node appears on the
// server with no event to wait on.
func waitNodes(t *testing.T, ctx context.Context, li *locks.LockInternals, n int) {
	t.Helper()
	for {
		nodes, err := li.Participants(ctx)
		if err == nil && len(nodes) == n {
			return
		}
		if ctx.Err() != nil {
			t.Fatalf("lock has %v (%v), want %d nodes", nodes, err, n)
		}
		time.Sleep(10 * time.Millisecond)
	}
}
