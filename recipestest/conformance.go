package recipestest

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"net"
	"slices"
	"strconv"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/gocurator/curator/driver"
	"github.com/gocurator/curator/framework"
	"github.com/gocurator/curator/internal/zkwire"
	"github.com/gocurator/curator/recipes/locks"
	"github.com/gocurator/curator/zkharness"
)

// TestLockDriver checks, on the ZooKeeper at connect, that drv makes a
// correct lock when the LockInternals engine runs it, in the spirit of
// testing/fstest.TestFS:
//
//   - exclusion: with maxLeases 1 and 2, never more holders than that;
//   - leases: with maxLeases 2, two hold at once and a third waits, and a
//     lease that comes free lets it in while the other holder stays;
//   - session-bound: the holder's node dies with its session, so a holder
//     whose client closes frees the lock;
//   - no orphans: nothing is left in the lock's directory afterwards;
//   - no herd: with maxLeases 1, a release wakes exactly one waiter;
//   - clean cancel: a waiter whose context ends, while it waits or while its
//     create is in flight, leaves no node, and nor does a try that finds the
//     lock held;
//   - node missing: GetsTheLock reports a listing without our node as
//     driver.ErrNodeMissing;
//   - order (first, in seconds): nodes made one after another sort in that
//     order, the first maxLeases hold, and each other watches the node
//     maxLeases places ahead;
//   - node shape: nodes are protected, ephemeral, and in a container
//     directory, which the server removes once the lock is empty (told by
//     the driver's createContainer request on the wire, so the check needs
//     no quick reaper: any server will do).
//
// A failing check names the fault. The checks that contend give up after a
// minute, saying what they waited for.
//
// lockName is the name the engine gives the driver (e.g. "lock-"). Each
// check uses its own clients and a fresh namespace. A driver whose nodes
// must contend with Curator's (Java processes on the same lock) should pass
// TestLockDriverWithStandard too.
func TestLockDriver(t *testing.T, connect string, drv driver.LockDriver, lockName string) {
	t.Helper()
	if drv == nil {
		t.Fatal("recipestest: TestLockDriver needs a driver, got nil")
	}
	if !t.Run("order", func(t *testing.T) { checkOrder(t, connect, drv, lockName) }) {
		return // the contending checks would only deadlock
	}
	t.Run("node-shape", func(t *testing.T) { checkNodeShape(t, connect, drv, lockName) })
	for _, max := range []int{1, 2} {
		t.Run("exclusion-"+strconv.Itoa(max), func(t *testing.T) {
			checkExclusion(t, connect, []driver.LockDriver{drv}, lockName, max)
		})
	}
	t.Run("leases", func(t *testing.T) { checkLeases(t, connect, drv, lockName) })
	t.Run("session-bound", func(t *testing.T) { checkSessionBound(t, connect, drv, lockName) })
	t.Run("no-herd", func(t *testing.T) { checkNoHerd(t, connect, drv, lockName) })
	t.Run("cancel", func(t *testing.T) { checkCancel(t, connect, drv, lockName) })
	t.Run("cancel-during-create", func(t *testing.T) { checkCancelDuringCreate(t, connect, drv, lockName) })
	t.Run("try", func(t *testing.T) { checkTry(t, connect, drv, lockName) })
	t.Run("node-missing", func(t *testing.T) { checkNodeMissing(t, drv, lockName) })
}

// TestLockDriverWithStandard checks that drv's participants and those of
// driver.Standard, Curator's own decisions, exclude each other on one lock
// with maxLeases 1: that drv names, sorts and decides as Curator does, so
// that Java and Go processes can share the lock.
func TestLockDriverWithStandard(t *testing.T, connect string, drv driver.LockDriver, lockName string) {
	t.Helper()
	if drv == nil {
		t.Fatal("recipestest: TestLockDriverWithStandard needs a driver, got nil")
	}
	checkExclusion(t, connect, []driver.LockDriver{drv, driver.Standard{}}, lockName, 1)
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

// checkExclusion runs workers that take the drivers in turn.
func checkExclusion(t *testing.T, connect string, drivers []driver.LockDriver, lockName string, max int) {
	const workers, cycles = 4, 10
	ns := Namespace(t)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	var inside, most atomic.Int32
	var wg sync.WaitGroup
	errs := make(chan error, workers)
	var observer *framework.Client
	for i := range workers {
		c := conformanceClient(t, connect, ns)
		observer = c
		li := engine(t, c, drivers[i%len(drivers)], lockName, max)
		wg.Add(1)
		go func() {
			defer wg.Done()
			for range cycles {
				path, err := li.Acquire(ctx, false)
				if err != nil {
					if ctx.Err() != nil {
						err = fmt.Errorf("%d workers taking the lock %d times each did not finish in a minute: a waiter watches a node that never goes, or none (GetsTheLock's Watch): %w", workers, cycles, err)
					}
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
	var wg sync.WaitGroup
	defer wg.Wait() // after cancel: no waiter outlives the check
	defer cancel()
	counters := make([]*zkharness.Counter, waiters+1)
	clients := make([]*framework.Client, waiters+1)
	engines := make([]*locks.LockInternals, waiters+1)
	for i := range clients {
		counters[i] = zkharness.NewCounter()
		clients[i] = conformanceClient(t, connect, ns, framework.WithDialer(counters[i].Dialer(nil)))
		engines[i] = engine(t, clients[i], drv, lockName, 1)
	}
	held, err := engines[0].Acquire(ctx, false)
	if err != nil {
		t.Fatal(err)
	}
	type acquired struct {
		path string
		err  error
	}
	results := make([]chan acquired, waiters+1)
	for i := 1; i <= waiters; i++ {
		results[i] = make(chan acquired, 1)
		wg.Add(1)
		go func() { // reports to the test's goroutine: t must not be used after the check ends
			defer wg.Done()
			p, err := engines[i].Acquire(ctx, false)
			results[i] <- acquired{p, err}
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
		r := <-results[i]
		if r.err != nil {
			t.Fatalf("waiter %d: %v", i, r.err)
		}
		held, owner = r.path, engines[i]
		if got := notifications() - before; got != int64(i) {
			t.Fatalf("%d notifications after %d releases, want %d: each release must wake exactly the next waiter", got, i, i)
		}
	}
	owner.Release(ctx, held)
}

// checkLeases: with maxLeases 2 two participants hold at once and a third
// waits; the first holder's release lets the waiter in while the second
// still holds, so the waiter watched the node maxLeases places ahead of it.
func checkLeases(t *testing.T, connect string, drv driver.LockDriver, lockName string) {
	ns := Namespace(t)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	var wg sync.WaitGroup
	defer wg.Wait() // after cancel: the waiter does not outlive the check
	defer cancel()
	e := make([]*locks.LockInternals, 3)
	for i := range e {
		e[i] = engine(t, conformanceClient(t, connect, ns), drv, lockName, 2)
	}
	first, err := e[0].Acquire(ctx, true)
	if err != nil {
		t.Fatalf("try on a free lock with maxLeases 2: %v", err)
	}
	second, err := e[1].Acquire(ctx, true)
	if err != nil {
		t.Fatalf("try with one of maxLeases 2 held: %v, want the lock", err)
	}
	if _, err := e[2].Acquire(ctx, true); !errors.Is(err, locks.ErrBusy) {
		t.Fatalf("try with both of maxLeases 2 held: %v, want ErrBusy", err)
	}
	type acquired struct {
		path string
		err  error
	}
	got := make(chan acquired, 1)
	wctx, stop := context.WithTimeout(ctx, 10*time.Second) // a free lease is taken in milliseconds; this bounds a wait that would never end
	defer stop()
	wg.Add(1)
	go func() {
		defer wg.Done()
		p, err := e[2].Acquire(wctx, false)
		got <- acquired{p, err}
	}()
	waitNodes(t, ctx, e[0], 3)
	if err := e[0].Release(ctx, first); err != nil {
		t.Fatal(err)
	}
	third := <-got
	if third.err != nil {
		t.Fatalf("a lease came free and the waiter did not get it (did it watch the node maxLeases places ahead?): %v", third.err)
	}
	if err := e[1].Release(ctx, second); err != nil {
		t.Fatal(err)
	}
	if err := e[2].Release(ctx, third.path); err != nil {
		t.Fatal(err)
	}
	if nodes, err := e[0].Participants(ctx); err != nil || len(nodes) != 0 {
		t.Fatalf("after every release: %v %v, want no node", nodes, err)
	}
}

// checkSessionBound: the holder's node is ephemeral to the holder's
// session, so closing the holder's client frees the lock.
func checkSessionBound(t *testing.T, connect string, drv driver.LockDriver, lockName string) {
	ns := Namespace(t)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	holderClient := conformanceClient(t, connect, ns)
	holder := engine(t, holderClient, drv, lockName, 1)
	otherClient := conformanceClient(t, connect, ns)
	other := engine(t, otherClient, drv, lockName, 1)
	held, err := holder.Acquire(ctx, false)
	if err != nil {
		t.Fatal(err)
	}
	_, stat, err := otherClient.Exists(ctx, held)
	if err != nil || stat == nil {
		t.Fatalf("the holder's node %s: %v", held, err)
	}
	if session := holderClient.SessionID(); stat.EphemeralOwner != session {
		t.Fatalf("the holder's node %s belongs to session %#x, not the holder's %#x: a dead holder would keep the lock", held, stat.EphemeralOwner, session)
	}
	holderClient.Close()
	mine, err := other.Acquire(ctx, true)
	if err != nil {
		t.Fatalf("try once the holder's client closed: %v, want the lock", err)
	}
	other.Release(ctx, mine)
}

// contenders starts two participants of drv's lock in a fresh namespace
// (b's client made with bOpts) and has a take the lock; ctx ends with the
// check.
func contenders(t *testing.T, connect string, drv driver.LockDriver, lockName string, bOpts ...framework.Option) (ctx context.Context, a, b *locks.LockInternals, held string) {
	t.Helper()
	ns := Namespace(t)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	t.Cleanup(cancel)
	a = engine(t, conformanceClient(t, connect, ns), drv, lockName, 1)
	b = engine(t, conformanceClient(t, connect, ns, bOpts...), drv, lockName, 1)
	held, err := a.Acquire(ctx, false)
	if err != nil {
		t.Fatal(err)
	}
	return ctx, a, b, held
}

// onlyHolder fails t unless held is the lock's one node.
func onlyHolder(t *testing.T, ctx context.Context, a *locks.LockInternals, held, after string) {
	t.Helper()
	if nodes, err := a.Participants(ctx); err != nil || len(nodes) != 1 || nodes[0] != held {
		t.Fatalf("after %s: %v %v, want only the holder %s", after, nodes, err, held)
	}
}

func checkCancel(t *testing.T, connect string, drv driver.LockDriver, lockName string) {
	ctx, a, b, held := contenders(t, connect, drv, lockName)
	wctx, stop := context.WithCancel(ctx)
	done := make(chan error, 1)
	go func() { _, err := b.Acquire(wctx, false); done <- err }()
	waitNodes(t, ctx, a, 2)
	stop()
	if err := <-done; !errors.Is(err, context.Canceled) {
		t.Fatalf("cancelled acquire returned %v", err)
	}
	onlyHolder(t, ctx, a, held, "a cancelled acquire")
	a.Release(ctx, held)
}

// checkCancelDuringCreate cancels a waiter's context the moment its
// create request has been written, before the server's answer: the node
// the create makes must not stay behind.
func checkCancelDuringCreate(t *testing.T, connect string, drv driver.LockDriver, lockName string) {
	spy := &createSpy{name: []byte(lockName)}
	ctx, a, b, held := contenders(t, connect, drv, lockName, framework.WithDialer(spy.dialer()))
	wctx, stop := context.WithCancel(ctx)
	defer stop()
	spy.arm(stop)
	if _, err := b.Acquire(wctx, false); !errors.Is(err, context.Canceled) {
		t.Fatalf("acquire cancelled during its create returned %v", err)
	}
	if spy.armed.Load() != nil {
		t.Fatalf("the acquire sent no create of a node named with %q: the check could not cancel one in flight", lockName)
	}
	waitNodes(t, ctx, a, 1) // the undo may finish after Acquire returns
	onlyHolder(t, ctx, a, held, "an acquire cancelled during its create")
	a.Release(ctx, held)
}

// checkTry: a try that finds the lock held says ErrBusy and leaves no node.
func checkTry(t *testing.T, connect string, drv driver.LockDriver, lockName string) {
	ctx, a, b, held := contenders(t, connect, drv, lockName)
	if _, err := b.Acquire(ctx, true); !errors.Is(err, locks.ErrBusy) {
		t.Fatalf("try on a held lock: %v, want ErrBusy", err)
	}
	onlyHolder(t, ctx, a, held, "a try")
	if err := a.Release(ctx, held); err != nil {
		t.Fatal(err)
	}
	mine, err := b.Acquire(ctx, true)
	if err != nil {
		t.Fatalf("try on a free lock: %v", err)
	}
	b.Release(ctx, mine)
}

// checkNodeMissing: a listing without our node is driver.ErrNodeMissing,
// which the engine answers with a fresh node or a lost hold.
func checkNodeMissing(t *testing.T, drv driver.LockDriver, lockName string) {
	others := []string{"_c_0-" + lockName + "0000000001", "_c_1-" + lockName + "0000000003"}
	ours := "_c_2-" + lockName + "0000000002"
	for _, max := range []int{1, 2} {
		children := driver.SortChildren(slices.Clone(others), lockName, drv.FixForSorting)
		if _, err := drv.GetsTheLock(children, ours, max); !errors.Is(err, driver.ErrNodeMissing) {
			t.Errorf("GetsTheLock without our node, maxLeases %d: %v, want ErrNodeMissing", max, err)
		}
	}
}

// createSpy is a dialer that, once armed, calls its function right after
// the client writes its next create request (of any kind, a transaction's
// too) of a node whose name holds name: a cancel that lands while the
// driver's create is in flight, not while the client makes its namespace's
// node or a lock's parents.
type createSpy struct {
	name  []byte
	armed atomic.Pointer[func()]
}

func (s *createSpy) arm(f func()) { s.armed.Store(&f) }

func (s *createSpy) dialer() framework.Dialer {
	return func(network, addr string, timeout time.Duration) (net.Conn, error) {
		conn, err := net.DialTimeout(network, addr, timeout)
		if err != nil {
			return nil, err
		}
		return &spyConn{Conn: conn, spy: s}, nil
	}
}

// spyConn watches the frames go-zookeeper writes, one per Write.
type spyConn struct {
	net.Conn
	spy       *createSpy
	handshook bool // the first frame is the session handshake, without an opcode
}

func (c *spyConn) Write(b []byte) (int, error) {
	var fire *func()
	if p, ok := zkwire.CreatedPath(b); ok && c.handshook && bytes.Contains(p, c.spy.name) {
		fire = c.spy.armed.Swap(nil)
	}
	c.handshook = true
	n, err := c.Conn.Write(b)
	if fire != nil {
		(*fire)()
	}
	return n, err
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
