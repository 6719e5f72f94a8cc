package locks_test

import (
	"context"
	"errors"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/gocurator/curator/framework"
	"github.com/gocurator/curator/listener"
	"github.com/gocurator/curator/recipes/locks"
	"github.com/gocurator/curator/recipestest"
	"github.com/gocurator/curator/zkharness"
)

// The holder's session expires: a waiter gets the lock, the holder is told,
// and its Release says the lock was lost.
func TestSessionExpiryLosesTheHold(t *testing.T) {
	ns := recipestest.Namespace(t)
	killer := zkharness.NewSessionKiller()
	holderClient := newClientAt(t, server.ConnectString(), framework.WithNamespace(ns), framework.WithDialer(killer.Dialer(nil)))
	waiterClient := newClientAt(t, server.ConnectString(), framework.WithNamespace(ns))
	ctx := ctxT(t)
	holder, _ := locks.NewMutex(holderClient, "/lock")
	waiter, _ := locks.NewMutex(waiterClient, "/lock")
	h, err := holder.Acquire(ctx)
	if err != nil {
		t.Fatal(err)
	}
	lost := h.Lost()
	got := make(chan *locks.Hold, 1)
	go func() {
		h2, err := waiter.Acquire(ctx)
		if err != nil {
			t.Error(err)
		}
		got <- h2
	}()
	waitParticipants(t, waiter, 2)
	if err := killer.Kill(ctx); err != nil {
		t.Fatal(err)
	}
	h2 := <-got
	<-lost
	if !errors.Is(h.Err(), locks.ErrLockLost) {
		t.Fatalf("Err after loss: %v", h.Err())
	}
	if err := h.Release(ctx); !errors.Is(err, locks.ErrLockLost) {
		t.Fatalf("Release of a lost hold: %v, want ErrLockLost", err)
	}
	if err := h2.Release(ctx); err != nil {
		t.Fatal(err)
	}
}

// Closing the client loses its holds, and says so: the error is ErrClosed,
// not an expired session, and the node went with the session.
func TestClientCloseLosesTheHold(t *testing.T) {
	ns := recipestest.Namespace(t)
	c := newClientAt(t, server.ConnectString(), framework.WithNamespace(ns))
	observer := newClientAt(t, server.ConnectString(), framework.WithNamespace(ns))
	ctx := ctxT(t)
	h := holdLock(ctx, t, c)
	lost := h.Lost()
	if err := c.Close(); err != nil {
		t.Fatal(err)
	}
	<-lost
	if err := h.Err(); !isLost(err) || !errors.Is(err, framework.ErrClosed) || errors.Is(err, framework.ErrSessionExpired) {
		t.Fatalf("Err after Close: %v; want ErrLockLost and ErrClosed", err)
	}
	if ok, _, err := observer.Exists(ctx, h.Path()); ok || err != nil {
		t.Fatalf("the node after Close: exists %v (%v)", ok, err)
	}
}

// A hold nobody watched (Lost was never called) is lost too once its client
// closes: Err says so, the owner cannot re-enter it, the mutex no longer
// counts it, and Release reports the loss.
func TestClientCloseLosesAnUnwatchedHold(t *testing.T) {
	c := newClientAt(t, server.ConnectString(), framework.WithNamespace(recipestest.Namespace(t)))
	ctx := ctxT(t)
	owner := locks.NewOwner()
	octx := locks.WithOwner(ctx, owner)
	m, _ := locks.NewMutex(c, "/lock")
	h, err := m.Acquire(octx)
	if err != nil {
		t.Fatal(err)
	}
	if err := h.Err(); err != nil {
		t.Fatalf("Err while held: %v", err)
	}
	if err := c.Close(); err != nil {
		t.Fatal(err)
	}
	if err := h.Err(); !isLost(err) || !errors.Is(err, framework.ErrClosed) {
		t.Fatalf("Err after Close: %v; want ErrLockLost and ErrClosed", err)
	}
	if m.IsOwnedBy(owner) || m.IsAcquiredInThisProcess() {
		t.Fatal("the mutex still counts a hold whose client closed")
	}
	if h2, err := m.Acquire(octx); !isLost(err) {
		t.Fatalf("re-entering after Close: %v, %v; want ErrLockLost", h2, err)
	}
	select {
	case <-h.Lost():
	default:
		t.Fatal("Lost after Close: not closed")
	}
	if err := h.Release(ctx); !isLost(err) {
		t.Fatalf("Release after Close: %v; want ErrLockLost", err)
	}
}

// A hold whose node an administrator deletes is lost, and its fence no
// longer lets a transaction through; a later hold has a larger token.
func TestFencing(t *testing.T) {
	cs := clients(t, 2)
	ctx := ctxT(t)
	m, _ := locks.NewMutex(cs[0], "/lock")
	cs[0].Create(ctx, "/resource", []byte("0"))

	h1, _ := m.Acquire(ctx)
	t1, err := h1.Token(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := cs[0].Txn(ctx, h1.Fence(), framework.SetDataOp("/resource", []byte("1"), -1)); err != nil {
		t.Fatalf("fenced write while held: %v", err)
	}
	h1.Release(ctx)

	h2, _ := m.Acquire(ctx)
	t2, _ := h2.Token(ctx)
	if t2 <= t1 {
		t.Fatalf("token %d after %d: not increasing", t2, t1)
	}
	lost := h2.Lost()
	if err := cs[1].Delete(ctx, h2.Path()); err != nil { // an administrator steps in
		t.Fatal(err)
	}
	<-lost
	if _, err := cs[0].Txn(ctx, h2.Fence(), framework.SetDataOp("/resource", []byte("2"), -1)); !errors.Is(err, framework.ErrNoNode) {
		t.Fatalf("fenced write after loss: %v, want ErrNoNode", err)
	}
	if data, _, _ := cs[0].Get(ctx, "/resource"); string(data) != "1" {
		t.Fatalf("resource %q: the lost holder's write went through", data)
	}
	if err := h2.Release(ctx); !errors.Is(err, locks.ErrLockLost) {
		t.Fatalf("Release after loss: %v", err)
	}
}

func TestRevocation(t *testing.T) {
	cs := clients(t, 2)
	ctx := ctxT(t)
	m, _ := locks.NewMutex(cs[0], "/lock")
	asked := make(chan struct{}, 1)
	m.MakeRevocable(func() { asked <- struct{}{} })
	h, _ := m.Acquire(ctx)
	if err := locks.Revoke(ctx, cs[1], h.Path()); err != nil {
		t.Fatal(err)
	}
	<-asked
	if err := h.Release(ctx); err != nil {
		t.Fatal(err)
	}
	if err := locks.Revoke(ctx, cs[1], h.Path()); err != nil {
		t.Fatalf("revoking a released node: %v", err)
	}
}

// The revocation callback may release the hold itself, as Curator's
// revocation listeners do: the lock is then free for others.
func TestRevocationReleasesFromCallback(t *testing.T) {
	cs := clients(t, 2)
	ctx := ctxT(t)
	m, _ := locks.NewMutex(cs[0], "/lock")
	var held atomic.Pointer[locks.Hold]
	released := make(chan error, 1)
	m.MakeRevocable(func() { released <- held.Load().Release(ctx) })
	h, err := m.Acquire(ctx)
	if err != nil {
		t.Fatal(err)
	}
	held.Store(h)
	if err := locks.Revoke(ctx, cs[1], h.Path()); err != nil {
		t.Fatal(err)
	}
	select {
	case err := <-released:
		if err != nil {
			t.Fatalf("Release in the revocation callback: %v", err)
		}
	case <-ctx.Done():
		t.Fatal("Release in the revocation callback never returned")
	}
	other, _ := locks.NewMutex(cs[1], "/lock")
	h2, err := other.TryAcquire(ctx)
	if err != nil {
		t.Fatalf("the lock after a revoked holder released it: %v", err)
	}
	h2.Release(ctx)
}

// A connection flap between the listing that finds a lock held and the
// start of the hold still loses the hold: the acquire reads the client's
// error epoch before that listing.
func TestFlapBeforeTheHoldStartsLosesIt(t *testing.T) {
	proxy := recipestest.StartProxy(t, server.Addr())
	c := newClientAt(t, proxy.Addr(), framework.WithNamespace(recipestest.Namespace(t)))
	ctx := ctxT(t)
	node := func() string {
		p, err := c.Create(ctx, "/n-", nil, framework.WithMode(framework.EphemeralSequential))
		if err != nil {
			t.Fatal(err)
		}
		return p
	}
	sess := c.Session()
	_, changed := c.StateChanged()
	proxy.DropAll() // SUSPENDED, then RECONNECTED: the session and its nodes survive
	<-changed
	if sess.Err() == nil {
		t.Fatal("the session had not ended at the connection drop by the time the state changed")
	}
	if err := c.BlockUntilConnected(ctx); err != nil {
		t.Fatal(err)
	}
	h := locks.NewHold(c, node(), sess)
	if !isLost(h.Err()) {
		t.Fatalf("a hold decided before a flap its listener came too late for: Err %v, want ErrLockLost", h.Err())
	}
	if err := h.Release(ctx); !isLost(err) {
		t.Fatalf("releasing the lost hold: %v, want ErrLockLost", err)
	}
	// A hold decided after the flap is not lost.
	h2 := locks.NewHold(c, node(), c.Session())
	if err := h2.Err(); err != nil {
		t.Fatalf("a hold decided after the flap: %v", err)
	}
	if err := h2.Release(ctx); err != nil {
		t.Fatal(err)
	}
}

// A release wakes exactly one waiter: the next in line.
func TestNoHerd(t *testing.T) {
	const waiters = 6
	ns := recipestest.Namespace(t)
	ctx := ctxT(t)
	counters := make([]*zkharness.Counter, waiters+1)
	mutexes := make([]*locks.Mutex, waiters+1)
	cls := make([]*framework.Client, waiters+1)
	for i := range counters {
		counters[i] = zkharness.NewCounter()
		cls[i] = newClientAt(t, server.ConnectString(), framework.WithNamespace(ns), framework.WithDialer(counters[i].Dialer(nil)))
		mutexes[i], _ = locks.NewMutex(cls[i], "/lock")
	}
	h, err := mutexes[0].Acquire(ctx)
	if err != nil {
		t.Fatal(err)
	}
	holds := make([]chan *locks.Hold, waiters+1)
	for i := 1; i <= waiters; i++ {
		holds[i] = make(chan *locks.Hold, 1)
		go func() {
			h, err := mutexes[i].Acquire(ctx)
			if err != nil {
				t.Error(err)
			}
			holds[i] <- h
		}()
		waitParticipants(t, mutexes[0], i+1)
	}
	total := func() int64 {
		// A round trip on every session first: ZooKeeper delivers a
		// session's notifications before later replies.
		var n int64
		for i, c := range cls {
			c.Exists(ctx, "/")
			n += counters[i].Notifications()
		}
		return n
	}
	before := total()
	for i := 1; i <= waiters; i++ {
		h.Release(ctx)
		h = <-holds[i]
		if got := total() - before; got != int64(i) {
			t.Fatalf("after %d releases, %d notifications: a release woke more than one waiter", i, got)
		}
	}
	h.Release(ctx)
}

// Under the Standard error policy a dropped connection (Suspended) ends the
// hold at once; under the Session policy the hold survives a flap.
func TestSuspendedConnectionAndErrorPolicies(t *testing.T) {
	for _, tc := range []struct {
		name     string
		policy   listener.ErrorPolicy
		wantLost bool
	}{
		{"standard", listener.StandardErrorPolicy{}, true},
		{"session", listener.SessionErrorPolicy{}, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			proxy := recipestest.StartProxy(t, server.Addr())
			c := newClientAt(t, proxy.Addr(), framework.WithNamespace(recipestest.Namespace(t)), framework.WithErrorPolicy(tc.policy))
			ctx := ctxT(t)
			h := holdLock(ctx, t, c)
			lost := h.Lost()
			_, changed := c.StateChanged()
			proxy.DropAll()
			<-changed // Suspended
			for s, ch := c.StateChanged(); s != listener.Reconnected; s, ch = c.StateChanged() {
				<-ch
			}
			// A round trip through the monitor's session settles it.
			if _, err := h.Token(ctx); err != nil {
				t.Fatal(err)
			}
			select {
			case <-lost:
				if !tc.wantLost {
					t.Fatalf("hold lost on a flap under the Session policy: %v", h.Err())
				}
			default:
				if tc.wantLost {
					t.Fatal("hold not lost on Suspended under the Standard policy")
				}
			}
			if err := h.Release(ctx); tc.wantLost != isLost(err) || (!tc.wantLost && err != nil) {
				t.Fatalf("release: %v (lost: %v)", err, tc.wantLost)
			}
			if ok, _, _ := c.Exists(ctx, h.Path()); ok {
				t.Fatal("release left the node")
			}
		})
	}
}

// An owner whose hold was lost is not handed it again: Acquire says it was
// lost, the owner no longer counts as holding, and after releasing the lost
// hold it acquires afresh.
func TestLostHoldIsNotReentered(t *testing.T) {
	cs := clients(t, 2)
	ctx := ctxT(t)
	m, _ := locks.NewMutex(cs[0], "/lock")
	owner := locks.NewOwner()
	octx := locks.WithOwner(ctx, owner)
	h, err := m.Acquire(octx)
	if err != nil {
		t.Fatal(err)
	}
	lost := h.Lost()
	if err := cs[1].Delete(ctx, h.Path()); err != nil {
		t.Fatal(err)
	}
	<-lost
	other, _ := locks.NewMutex(cs[1], "/lock")
	h2, err := other.TryAcquire(ctx)
	if err != nil {
		t.Fatalf("another client after the loss: %v", err)
	}
	if again, err := m.Acquire(octx); !isLost(err) {
		t.Fatalf("re-entering a lost hold: %v, %v; want ErrLockLost", again, err)
	}
	if m.IsOwnedBy(owner) || m.IsAcquiredInThisProcess() {
		t.Fatal("a lost hold still counts as held")
	}
	if err := h.Release(ctx); !isLost(err) {
		t.Fatalf("releasing the lost hold: %v", err)
	}
	h2.Release(ctx)
	h3, err := m.Acquire(octx)
	if err != nil || h3 == h {
		t.Fatalf("acquiring after releasing the lost hold: %v (same hold: %v)", err, h3 == h)
	}
	if err := h3.Release(ctx); err != nil {
		t.Fatal(err)
	}
}

// A connection listener that blocks (one that releases a lock while the
// connection is down, say) does not delay a hold's loss signal: holds watch
// the connection at each transition, not through the listeners' queue.
func TestBlockedListenerDoesNotDelayTheLossSignal(t *testing.T) {
	proxy := recipestest.StartProxy(t, server.Addr())
	c := newClientAt(t, proxy.Addr(), framework.WithNamespace(recipestest.Namespace(t)))
	ctx := ctxT(t)
	unblock := make(chan struct{})
	defer close(unblock)
	heard := make(chan struct{}, 1)
	if _, err := c.AddConnectionStateListener(func(listener.ConnectionState) {
		select {
		case heard <- struct{}{}:
		default:
		}
		<-unblock
	}); err != nil {
		t.Fatal(err)
	}
	h := holdLock(ctx, t, c)
	proxy.DropAll() // Suspended: under the Standard policy the hold is lost
	<-heard         // the listener is now stuck on the first state
	select {
	case <-h.Lost():
	case <-ctx.Done():
		t.Fatal("a blocked listener held up the hold's loss signal")
	}
	if err := h.Release(ctx); !isLost(err) {
		t.Fatalf("release: %v", err)
	}
}

// Closing the client ends an acquire that is waiting, on every kind of
// lock: it returns ErrClosed, and none of the session's nodes stay.
func TestClientCloseEndsAWaitingAcquire(t *testing.T) {
	type lockers struct {
		block locks.Locker                // taken by the other client first
		wait  func(context.Context) error // the acquire that waits, on c
		watch participants                // shows the waiter's node
	}
	kinds := map[string]func(other, c *framework.Client) lockers{
		"mutex": func(other, c *framework.Client) lockers {
			a, _ := locks.NewMutex(other, "/lock")
			b, _ := locks.NewMutex(c, "/lock")
			return lockers{a, acquireOf(b), a}
		},
		"semaphore": func(other, c *framework.Client) lockers {
			a, _ := locks.NewSemaphore(other, "/lock", 1)
			b, _ := locks.NewSemaphore(c, "/lock", 1)
			return lockers{a, acquireOf(b), a}
		},
		"read lock": func(other, c *framework.Client) lockers {
			a, _ := locks.NewReadWriteLock(other, "/lock")
			b, _ := locks.NewReadWriteLock(c, "/lock")
			return lockers{a.WriteLock(), acquireOf(b.ReadLock()), a}
		},
		"write lock": func(other, c *framework.Client) lockers {
			a, _ := locks.NewReadWriteLock(other, "/lock")
			b, _ := locks.NewReadWriteLock(c, "/lock")
			return lockers{a.ReadLock(), acquireOf(b.WriteLock()), a}
		},
		"multi-lock": func(other, c *framework.Client) lockers {
			a, _ := locks.NewMutex(other, "/lock")
			s, _ := locks.NewSemaphore(c, "/sem", 1)
			b, _ := locks.NewMutex(c, "/lock")
			ml, _ := locks.NewMultiLock(s, b)
			return lockers{a, func(ctx context.Context) error { _, err := ml.Acquire(ctx); return err }, a}
		},
	}
	for name, build := range kinds {
		t.Run(name, func(t *testing.T) {
			ns := recipestest.Namespace(t)
			other := newClientAt(t, server.ConnectString(), framework.WithNamespace(ns))
			c := newClientAt(t, server.ConnectString(), framework.WithNamespace(ns))
			ctx := ctxT(t)
			l := build(other, c)
			held, err := l.block.Acquire(ctx)
			if err != nil {
				t.Fatal(err)
			}
			defer held.Release(ctx)
			session := c.SessionID()
			got := make(chan error, 1)
			go func() {
				got <- l.wait(ctx)
			}()
			waitParticipants(t, l.watch, 2)
			if err := c.Close(); err != nil {
				t.Fatal(err)
			}
			if err := <-got; !errors.Is(err, framework.ErrClosed) {
				t.Fatalf("waiting acquire after Close: %v, want ErrClosed", err)
			}
			if left := nodesOf(t, other, "/", session); len(left) > 0 {
				t.Fatalf("nodes of the closed session: %v", left)
			}
		})
	}
}

// acquireOf returns l's Acquire, its hold dropped.
func acquireOf(l locks.Locker) func(context.Context) error {
	return func(ctx context.Context) error { _, err := l.Acquire(ctx); return err }
}

// nodesOf lists the ephemeral nodes of session under dir, at any depth. A
// directory gone meanwhile (a container the server reaped) has none.
func nodesOf(t *testing.T, c *framework.Client, dir string, session int64) []string {
	t.Helper()
	kids, _, err := c.Children(ctxT(t), dir)
	if isNoNode(err) {
		return nil
	}
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, k := range kids {
		p := strings.TrimSuffix(dir, "/") + "/" + k
		if _, st, err := c.Exists(ctxT(t), p); err == nil && st != nil && st.EphemeralOwner == session {
			out = append(out, p)
		}
		out = append(out, nodesOf(t, c, p, session)...)
	}
	return out
}
