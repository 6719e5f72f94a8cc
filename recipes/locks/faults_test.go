package locks_test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"net"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"golang.org/x/sync/errgroup"

	"github.com/gocurator/curator/framework"
	"github.com/gocurator/curator/internal/zkwire"
	"github.com/gocurator/curator/listener"
	"github.com/gocurator/curator/recipes/locks"
	"github.com/gocurator/curator/recipestest"
	"github.com/gocurator/curator/retry"
	"github.com/gocurator/curator/zkharness"
)

// The server restarts while a lock is held and others wait: the sessions
// survive, the holder releases, and the waiters are served one at a time.
func TestServerRestartWhileWaiting(t *testing.T) {
	srv := recipestest.StartServer(t)
	const n = 4
	cs := make([]*framework.Client, n)
	ms := make([]*locks.Mutex, n)
	for i := range cs {
		cs[i] = newClientAt(t, srv.ConnectString(), framework.WithSessionTimeout(8*time.Second))
		ms[i], _ = locks.NewMutex(cs[i], "/lock")
	}
	ctx := ctxT(t)
	h, err := ms[0].Acquire(ctx)
	if err != nil {
		t.Fatal(err)
	}
	var occ occupancy
	g, gctx := errgroup.WithContext(ctx)
	for i := 1; i < n; i++ {
		g.Go(func() error {
			h, err := ms[i].Acquire(gctx)
			if err != nil {
				return err
			}
			occ.enter()
			_, _, err = cs[i].Exists(gctx, "/lock")
			occ.leave()
			if err != nil {
				return err
			}
			// The restart came before the listing that found it
			// holding: the hold is not lost.
			return h.Release(gctx)
		})
	}
	waitParticipants(t, ms[0], n)
	srv.Stop()
	if err := srv.Restart(); err != nil {
		t.Fatal(err)
	}
	// The restart suspended the holder's connection: under the Standard
	// error policy its hold was lost, and Release says so.
	if err := h.Release(ctx); !isLost(err) {
		t.Fatalf("release after the restart: %v, want ErrLockLost", err)
	}
	if err := g.Wait(); err != nil {
		t.Fatal(err)
	}
	if m := occ.most.Load(); m != 1 {
		t.Fatalf("%d holders at once", m)
	}
}

// The lock node's create commits but its reply is lost: the protected create
// finds its node on the retry, so there is one node and the lock works.
func TestLostCreateReplyLeavesOneNode(t *testing.T) {
	proxy := recipestest.StartProxy(t, server.Addr())
	ns := recipestest.Namespace(t)
	c := newClientAt(t, proxy.Addr(), framework.WithNamespace(ns))
	other := newClientAt(t, server.ConnectString(), framework.WithNamespace(ns))
	ctx := ctxT(t)
	if _, err := c.Create(ctx, "/lock", nil); err != nil { // so that the lock node is the next create
		t.Fatal(err)
	}
	m, _ := locks.NewMutex(c, "/lock")
	proxy.DropAfter(zkharness.OpCreate)
	h, err := m.Acquire(ctx)
	if err != nil {
		t.Fatalf("acquire across a lost reply: %v", err)
	}
	if p, _ := m.Participants(ctx); len(p) != 1 || p[0] != h.Path() {
		t.Fatalf("participants %v, want only %s", p, h.Path())
	}
	om, _ := locks.NewMutex(other, "/lock")
	if _, err := om.TryAcquire(ctx); err != locks.ErrBusy {
		t.Fatalf("another client's try: %v, want ErrBusy", err)
	}
	h.Release(ctx)
	h2, err := om.TryAcquire(ctx)
	if err != nil {
		t.Fatalf("after release: %v", err)
	}
	h2.Release(ctx)
}

// On a 3-member ensemble the ZooKeeper leader is killed while clients
// contend: exclusion holds and every cycle completes.
func TestEnsembleLeaderKilledMidContention(t *testing.T) {
	ens, err := zkharness.StartEnsemble(3)
	if err != nil {
		t.Fatal(err)
	}
	defer ens.Close()
	const workers, cycles = 4, 20
	var sections validSections
	var held, lost atomicCounter
	ctx := ctxT(t)
	g, gctx := errgroup.WithContext(ctx)
	halfway := make(chan struct{})
	for w := range workers {
		c := newClientAt(t, ens.ConnectString(), framework.WithSessionTimeout(4*time.Second))
		m, _ := locks.NewMutex(c, "/lock")
		g.Go(func() error {
			for i := range cycles {
				if w == 0 && i == cycles/2 {
					close(halfway)
				}
				h, err := acquireRetrying(gctx, m)
				if err != nil {
					return err
				}
				lostCh := h.Lost()
				sections.enter(h)
				_, _, _ = c.Exists(gctx, "/lock")
				select {
				case <-lostCh: // suspended mid-section: the hold is void
					lost.add()
				default:
					held.add()
				}
				sections.leave(h)
				if err := h.Release(gctx); err != nil && !isLost(err) {
					return err
				}
			}
			return nil
		})
	}
	<-halfway
	leader, err := ens.Leader(ctx)
	if err != nil {
		t.Fatal(err)
	}
	ens.Kill(leader)
	if err := g.Wait(); err != nil {
		t.Fatal(err)
	}
	if v := sections.violations(); len(v) > 0 {
		t.Fatalf("holds valid at once: %v", v)
	}
	t.Logf("%d holds, %d lost to the leader's death", held.n.Load(), lost.n.Load())
}

// validSections checks that no two holds are valid at once: a hold that
// enters its section while another's is under way is a violation unless
// that other hold was lost by then. A holder whose hold was lost may still
// be running its section (its code learns of the loss only when it looks),
// and its session's expiry may have let the next holder in: that overlap
// is what fencing is for, not a second valid hold.
type validSections struct {
	mu     sync.Mutex
	inside map[*locks.Hold]bool
	bad    []string
}

func (s *validSections) enter(h *locks.Hold) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.inside == nil {
		s.inside = make(map[*locks.Hold]bool)
	}
	for other := range s.inside {
		if other.Err() == nil && h.Err() == nil {
			s.bad = append(s.bad, fmt.Sprintf("%s entered while %s was held", h.Path(), other.Path()))
		}
	}
	s.inside[h] = true
}

func (s *validSections) leave(h *locks.Hold) {
	s.mu.Lock()
	defer s.mu.Unlock()
	delete(s.inside, h)
}

func (s *validSections) violations() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.bad
}

// A semaphore acquire cancelled while the server is unreachable returns
// without waiting for the server, however long its retry policy would keep
// trying: its lease and lock nodes are left to the client's background
// deletes, which finish once the server is back.
func TestCancelledAcquireReturnsWhileUnreachable(t *testing.T) {
	proxy, holder, hs, ws, lease := semaphoreBehindProxy(t, 1,
		framework.WithSessionTimeout(20*time.Second), framework.WithRetryPolicy(retry.RetryForever(50*time.Millisecond)))
	ctx := ctxT(t)
	wctx, cancel := context.WithCancel(ctx)
	done := make(chan error, 1)
	go func() {
		_, err := ws.Acquire(wctx)
		done <- err
	}()
	waitParticipants(t, hs, 2) // the waiter's lease is made: it waits holding the semaphore's lock
	proxy.Blackhole(true)
	cancel()
	select {
	case err := <-done:
		if !errors.Is(err, context.Canceled) {
			t.Fatalf("cancelled acquire: %v, want context.Canceled", err)
		}
	case <-ctx.Done():
		t.Fatal("a cancelled acquire waited for an unreachable server")
	}
	proxy.Blackhole(false)
	waitParticipants(t, hs, 1)
	if p, _ := hs.Participants(ctx); "/sem/leases/"+p[0] != lease.Path() {
		t.Fatalf("leases %v, want only the holder's", p)
	}
	waitNoChildren(t, holder, "/sem/locks")
}

// An AcquireN that fails on the connection gives back the lease it took,
// leaving the delete to the client's background deletes, and does not
// report that hand-over as an error: a caller who cancelled nothing does not
// see context.Canceled.
func TestAcquireNFailingOnTheConnection(t *testing.T) {
	proxy, _, hs, ws, _ := semaphoreBehindProxy(t, 2, framework.WithSessionTimeout(time.Second),
		framework.WithConnectionTimeout(500*time.Millisecond), framework.WithRetryPolicy(retry.RetryNTimes(0, 0)))
	ctx := ctxT(t)
	done := make(chan error, 1)
	go func() {
		_, err := ws.AcquireN(ctx, 2)
		done <- err
	}()
	waitParticipants(t, hs, 3) // one lease taken, the second waiting for room
	proxy.Blackhole(true)
	if err := <-done; err == nil || errors.Is(err, context.Canceled) {
		t.Fatalf("AcquireN failing on the connection: %v, want an error other than context.Canceled", err)
	}
	proxy.Blackhole(false)
	waitParticipants(t, hs, 1)
}

// semaphoreBehindProxy sets up a semaphore "/sem" of leases leases on two
// clients: holder, connected directly, holds one lease (released when the
// test ends); the waiter's client, made with opts, goes through proxy.
func semaphoreBehindProxy(t *testing.T, leases int, opts ...framework.Option) (proxy *zkharness.Proxy, holder *framework.Client, hs, ws *locks.Semaphore, lease *locks.Hold) {
	t.Helper()
	proxy = recipestest.StartProxy(t, server.Addr())
	ns := recipestest.Namespace(t)
	holder = newClientAt(t, server.ConnectString(), framework.WithNamespace(ns))
	waiter := newClientAt(t, proxy.Addr(), append([]framework.Option{framework.WithNamespace(ns)}, opts...)...)
	hs, _ = locks.NewSemaphore(holder, "/sem", leases)
	ws, _ = locks.NewSemaphore(waiter, "/sem", leases)
	lease, err := hs.Acquire(ctxT(t))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { lease.Release(context.Background()) })
	return proxy, holder, hs, ws, lease
}

// The release's delete commits but its reply is lost: the retried delete
// finds no node, which is the release having worked, not a lost hold.
func TestLostDeleteReplyReleasesCleanly(t *testing.T) {
	proxy := recipestest.StartProxy(t, server.Addr())
	c := newClientAt(t, proxy.Addr(), framework.WithNamespace(recipestest.Namespace(t)), framework.WithErrorPolicy(listener.SessionErrorPolicy{}))
	ctx := ctxT(t)
	h := holdLock(ctx, t, c)
	proxy.DropAfter(zkharness.OpDelete)
	if err := h.Release(ctx); err != nil {
		t.Fatalf("release across a lost reply: %v", err)
	}
	if ok, _, err := c.Exists(ctx, h.Path()); ok || err != nil {
		t.Fatalf("lock node after release: exists %v, %v", ok, err)
	}
}

// The connection drops while the listing that decides the lock is in
// flight: the listing is sent again after the flap and finds the lock held.
// The hold is not lost: a listing sent after the flap shows its node, so
// its session survived.
func TestFlapDuringTheDecidingListingIsNoLoss(t *testing.T) {
	proxy := recipestest.StartProxy(t, server.Addr())
	c := newClientAt(t, proxy.Addr(), framework.WithNamespace(recipestest.Namespace(t)))
	ctx := ctxT(t)
	if _, err := c.Create(ctx, "/lock", nil); err != nil { // so that the first create and listing succeed
		t.Fatal(err)
	}
	m, _ := locks.NewMutex(c, "/lock")
	proxy.DropAfter(zkharness.OpGetChildren2)
	h, err := m.Acquire(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if err := h.Err(); err != nil {
		t.Fatalf("a hold found by a listing sent after the flap: %v", err)
	}
	if err := h.Release(ctx); err != nil {
		t.Fatal(err)
	}
}

// The same flap on a semaphore's quick path, whose deciding listing (of the
// leases) follows the transaction that makes the lease: the lease is not
// lost. The leases directory exists, so the transaction commits at once
// (without it, the listing misses the lease and is made again anyway).
func TestSemaphoreFlapDuringTheDecidingListingIsNoLoss(t *testing.T) {
	for _, kind := range []string{"semaphore", "semaphore mutex"} {
		t.Run(kind, func(t *testing.T) {
			var d listingDropper
			c := newClientAt(t, server.ConnectString(), framework.WithNamespace(recipestest.Namespace(t)), framework.WithDialer(d.dial))
			ctx := ctxT(t)
			var l locks.Locker
			if kind == "semaphore" {
				l, _ = locks.NewSemaphore(c, "/sem", 2)
			} else {
				l, _ = locks.NewSemaphoreMutex(c, "/sem")
			}
			if _, err := c.Create(ctx, "/sem/leases", nil, framework.WithContainerParents()); err != nil {
				t.Fatal(err)
			}
			d.arm("/leases")
			h, err := l.Acquire(ctx)
			if err != nil {
				t.Fatal(err)
			}
			if !d.fired.Load() {
				t.Fatal("the connection was not dropped")
			}
			if err := h.Err(); err != nil {
				t.Fatalf("a lease found by a listing sent after the flap: %v", err)
			}
			if err := h.Release(ctx); err != nil {
				t.Fatal(err)
			}
		})
	}
}

// listingDropper's connections close themselves instead of writing the
// first listing (getChildren2) of a path that contains the armed text: the
// listing is lost with the connection, and the client sees a flap on the
// same session while the listing is under way. (Closing after the write
// let a quick reply through now and then, when the closing goroutine was
// not scheduled before the reply was read, and the flap came too late.)
type listingDropper struct {
	path  atomic.Pointer[string]
	fired atomic.Bool
}

func (d *listingDropper) arm(pathPart string) { d.path.Store(&pathPart) }

func (d *listingDropper) dial(network, addr string, timeout time.Duration) (net.Conn, error) {
	nc, err := net.DialTimeout(network, addr, timeout)
	if err != nil {
		return nil, err
	}
	return &listingDropConn{Conn: nc, d: d}, nil
}

type listingDropConn struct {
	net.Conn
	d *listingDropper
}

func (c *listingDropConn) Write(b []byte) (int, error) {
	part := c.d.path.Load()
	if _, op, ok := zkwire.RequestHeader(b); part != nil && ok && op == zkharness.OpGetChildren2 &&
		bytes.Contains(b, []byte(*part)) && c.d.path.CompareAndSwap(part, nil) {
		c.d.fired.Store(true)
		c.Conn.Close()
		return 0, net.ErrClosed
	}
	return c.Conn.Write(b)
}
