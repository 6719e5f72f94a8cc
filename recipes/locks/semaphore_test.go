package locks_test

import (
	"context"
	"errors"
	"fmt"
	"regexp"
	"slices"
	"testing"
	"time"

	"github.com/gocurator/curator/driver"
	"github.com/gocurator/curator/framework"
	"github.com/gocurator/curator/recipes/locks"
	"github.com/gocurator/curator/recipestest"
	"github.com/gocurator/curator/zkharness"
)

var leaseNode = regexp.MustCompile(`^_c_[0-9a-f-]{36}-lease-\d{10}$`)

func TestSemaphoreLayoutAndAcquireN(t *testing.T) {
	cs := clients(t, 2)
	ctx := ctxT(t)
	s, _ := locks.NewSemaphore(cs[0], "/sem", 3)
	got, err := s.AcquireN(ctx, 2)
	if err != nil {
		t.Fatal(err)
	}
	for _, h := range got {
		parent, name := framework.SplitPath(h.Path())
		if parent != "/sem/leases" || !leaseNode.MatchString(name) {
			t.Fatalf("lease node %q", h.Path())
		}
	}
	// Two of three are out: asking for two more times out and returns the
	// one it got.
	other, _ := locks.NewSemaphore(cs[1], "/sem", 3)
	tctx, cancel := context.WithCancel(ctx)
	done := make(chan error)
	go func() { _, err := other.AcquireN(tctx, 2); done <- err }()
	waitParticipants(t, other, 4)
	cancel()
	if err := <-done; !errors.Is(err, context.Canceled) {
		t.Fatalf("AcquireN past the limit: %v", err)
	}
	if p, _ := s.Participants(ctx); len(p) != 2 {
		t.Fatalf("leases after a cancelled AcquireN: %v, want the first two only", p)
	}
	if err := locks.ReleaseAll(ctx, got); err != nil {
		t.Fatal(err)
	}
	if p, _ := s.Participants(ctx); len(p) != 0 {
		t.Fatalf("leases after ReleaseAll: %v", p)
	}
}

func TestSemaphoreFollowsMaxLeases(t *testing.T) {
	c := clients(t, 1)[0]
	ctx := ctxT(t)
	s, _ := locks.NewSemaphore(c, "/sem", 1)
	h, _ := s.Acquire(ctx)
	got := make(chan *locks.Hold)
	go func() {
		h2, err := s.Acquire(ctx)
		if err != nil {
			t.Error(err)
		}
		got <- h2
	}()
	waitParticipants(t, s, 2)
	if err := s.SetMaxLeases(2); err != nil {
		t.Fatal(err)
	}
	h2 := <-got // admitted by the new limit, with the first lease still out
	locks.ReleaseAll(ctx, []*locks.Hold{h, h2})
	if err := s.SetMaxLeases(0); !errors.Is(err, locks.ErrInvalidArg) {
		t.Fatalf("SetMaxLeases(0): %v", err)
	}
}

func TestSemaphoreMutexIsNotReentrant(t *testing.T) {
	c := clients(t, 1)[0]
	ctx := ctxT(t)
	m, _ := locks.NewSemaphoreMutex(c, "/smutex")
	octx := locks.WithOwner(ctx, locks.NewOwner())
	h, err := m.Acquire(octx)
	if err != nil {
		t.Fatal(err)
	}
	tctx, cancel := context.WithCancel(octx)
	done := make(chan error)
	go func() { _, err := m.Acquire(tctx); done <- err }()
	waitParticipants(t, m, 2)
	cancel()
	if err := <-done; !errors.Is(err, context.Canceled) {
		t.Fatalf("second acquire by the same owner: %v, want it to wait", err)
	}
	p, err := m.Participants(ctx)
	if _, name := framework.SplitPath(h.Path()); err != nil || !slices.Equal(p, []string{name}) {
		t.Fatalf("participants %v (%v), want only %s", p, err, name)
	}
	h.Release(ctx)
}

// A semaphore whose limit is a Curator SharedCount follows the count: a
// waiter is admitted when the count grows.
func TestSemaphoreFollowsSharedCount(t *testing.T) {
	c := clients(t, 1)[0]
	ctx := ctxT(t)
	count := func(n byte) []byte { return []byte{0, 0, 0, n} } // 4-byte big-endian, as SharedCount writes
	if _, err := c.Create(ctx, "/count", count(1)); err != nil {
		t.Fatal(err)
	}
	s, err := locks.NewSemaphoreWithCount(c, "/sem", "/count")
	if err != nil {
		t.Fatal(err)
	}
	if err := s.SetMaxLeases(3); !errors.Is(err, locks.ErrInvalidArg) {
		t.Fatalf("SetMaxLeases on a semaphore that follows a count: %v, want ErrInvalidArg", err)
	}
	h, err := s.Acquire(ctx)
	if err != nil {
		t.Fatal(err)
	}
	got := make(chan *locks.Hold)
	go func() {
		h2, err := s.Acquire(ctx)
		if err != nil {
			t.Error(err)
		}
		got <- h2
	}()
	waitParticipants(t, s, 2)
	if _, err := c.Set(ctx, "/count", count(2), -1); err != nil {
		t.Fatal(err)
	}
	h2 := <-got
	locks.ReleaseAll(ctx, []*locks.Hold{h, h2})
	c.Set(ctx, "/count", []byte("bad"), -1)
	if _, err := s.Acquire(ctx); !errors.Is(err, locks.ErrInvalidArg) {
		t.Fatalf("a count that is not 4 bytes: %v", err)
	}
	if p, _ := s.Participants(ctx); len(p) != 0 {
		t.Fatalf("the failed acquire left %v", p)
	}
}

// While leases are free, a lease costs five requests: the lock's node and
// its listing, one transaction that creates the lease node and deletes the
// lock's node, the count of leases, and the release (Curator's order needs
// six). A directory the tests' server reaped (it reaps empty containers
// every 100 ms) costs two or three more each time it is made again.
func TestSemaphoreLeaseInOneTransaction(t *testing.T) {
	requests := zkharness.NewCounter()
	ns := recipestest.Namespace(t)
	c := newClientAt(t, server.ConnectString(), framework.WithNamespace(ns), framework.WithDialer(requests.Dialer(nil)))
	observer := newClientAt(t, server.ConnectString(), framework.WithNamespace(ns))
	ctx := ctxT(t)
	s, _ := locks.NewSemaphore(c, "/sem", 2)
	h, err := s.Acquire(ctx) // the first makes the directories
	if err != nil {
		t.Fatal(err)
	}
	h.Release(ctx)
	const cycles = 20
	before, remade := requests.Requests(), len(requests.ContainersCreated())
	for range cycles {
		h, err := s.Acquire(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if kids := children(t, observer, "/sem/locks"); len(kids) != 0 {
			t.Fatalf("a lease holder still holds the semaphore's lock: %v", kids)
		}
		if kids := children(t, observer, "/sem/leases"); len(kids) != 1 {
			t.Fatalf("leases %v, want one", kids)
		}
		if err := h.Release(ctx); err != nil {
			t.Fatal(err)
		}
	}
	// A directory the server reaped costs two or three requests each time it
	// is made again: the request that finds it missing, the container's
	// create, and the listing pipelined behind the failed request (a chain
	// of reaped directories shares the first and the last).
	reaped := int64(len(requests.ContainersCreated()) - remade)
	if got := requests.Requests() - before; got < 5*cycles+2*reaped || got > 5*cycles+3*reaped {
		t.Fatalf("%d requests for %d leases with %d directories made again, want 5 each and 2 or 3 for each directory", got, cycles, reaped)
	}
}

// waitChildren polls until path has n children.
func waitChildren(t testing.TB, c *framework.Client, path string, n int) {
	t.Helper()
	recipestest.Eventually(t, fmt.Sprintf("%d children of %s", n, path), func() (bool, string) {
		kids := children(t, c, path)
		return len(kids) == n, fmt.Sprint(kids)
	})
}

// A waiter whose session expires while it waits holding the semaphore's lock
// must not make its lease again without the lock: with one lease out and
// another acquirer then waiting, both would wait forever. It takes the lock
// again first, and every acquirer gets its lease in turn.
func TestSemaphoreWaiterSessionExpiry(t *testing.T) {
	ns := recipestest.Namespace(t)
	killer := zkharness.NewSessionKiller()
	cs := []*framework.Client{
		newClientAt(t, server.ConnectString(), framework.WithNamespace(ns)),
		newClientAt(t, server.ConnectString(), framework.WithNamespace(ns)),
	}
	expiring := newClientAt(t, server.ConnectString(), framework.WithNamespace(ns), framework.WithDialer(killer.Dialer(nil)))
	ctx := ctxT(t)
	holder, _ := locks.NewSemaphore(cs[0], "/sem", 1)
	a, _ := locks.NewSemaphore(expiring, "/sem", 1)
	b, _ := locks.NewSemaphore(cs[1], "/sem", 1)
	h, err := holder.Acquire(ctx)
	if err != nil {
		t.Fatal(err)
	}
	got := make(chan *locks.Hold, 2)
	acquire := func(s *locks.Semaphore) {
		for {
			h, err := s.Acquire(ctx)
			if err == nil || ctx.Err() != nil {
				got <- h
				return
			}
			t.Log("acquire:", err) // an expiry may surface as an error; the caller tries again
		}
	}
	go acquire(a)
	waitParticipants(t, holder, 2)
	waitChildren(t, cs[0], "/sem/locks", 1) // a waits holding the lock
	if err := killer.Kill(ctx); err != nil {
		t.Fatal(err)
	}
	go acquire(b)
	waitChildren(t, cs[0], "/sem/locks", 2) // b queued on the lock
	h.Release(ctx)
	for range 2 {
		h := <-got
		if h == nil {
			t.Fatal("an acquirer never got its lease")
		}
		if err := h.Release(ctx); err != nil {
			t.Fatal(err)
		}
	}
	if p, _ := holder.Participants(ctx); len(p) != 0 {
		t.Fatalf("leases left: %v", p)
	}
}

// acquireAsync acquires s on a goroutine of its own; the hold (nil after an
// error, which fails the test) arrives on the channel.
func acquireAsync(t *testing.T, ctx context.Context, s *locks.Semaphore) <-chan *locks.Hold {
	got := make(chan *locks.Hold, 1)
	go func() {
		h, err := s.Acquire(ctx)
		if err != nil {
			t.Error(err)
		}
		got <- h
	}()
	return got
}

// fullSemaphore sets up three one-lease semaphores on one path: a holds the
// lease, and b waits for room holding the semaphore's lock (its first lease
// did not fit and was given back). b's hold arrives on gotB.
func fullSemaphore(t *testing.T) (cs []*framework.Client, a, c *locks.Semaphore, ha *locks.Hold, gotB <-chan *locks.Hold) {
	t.Helper()
	cs = clients(t, 3)
	ctx := ctxT(t)
	a, _ = locks.NewSemaphore(cs[0], "/sem", 1)
	b, _ := locks.NewSemaphore(cs[1], "/sem", 1)
	c, _ = locks.NewSemaphore(cs[2], "/sem", 1)
	ha, err := a.Acquire(ctx)
	if err != nil {
		t.Fatal(err)
	}
	got := acquireAsync(t, ctx, b)
	waitParticipants(t, a, 2)               // two leases: b's is made only holding the lock,
	waitChildren(t, cs[0], "/sem/locks", 1) // which b keeps while it waits
	return cs, a, c, ha, got
}

// A lease that does not fit is given back at once (it must not wait without
// the lock); the acquirer then waits holding the lock, as Curator's does,
// and gets a lease when one is returned; one queued behind it gets the next.
// Nothing is left behind.
func TestSemaphoreWaitsHoldingTheLockWhenFull(t *testing.T) {
	cs, a, c, ha, gotB := fullSemaphore(t)
	ctx := ctxT(t)
	gotC := acquireAsync(t, ctx, c)
	waitChildren(t, cs[0], "/sem/locks", 2) // c queued on the lock, with no lease yet
	if p, _ := a.Participants(ctx); len(p) != 2 {
		t.Fatalf("leases %v with b waiting and c queued, want a's and b's", p)
	}
	ha.Release(ctx)
	hb := <-gotB
	if hb == nil {
		t.FailNow()
	}
	hb.Release(ctx)
	hc := <-gotC
	if hc == nil {
		t.FailNow()
	}
	hc.Release(ctx)
	if p, _ := a.Participants(ctx); len(p) != 0 {
		t.Fatalf("leases left: %v", p)
	}
	if kids := children(t, cs[0], "/sem/locks"); len(kids) != 0 {
		t.Fatalf("lock nodes left: %v", kids)
	}
}

// An acquire cancelled while it is queued on the semaphore's lock leaves no
// node: neither its lock node nor a lease.
func TestSemaphoreCancelWhileQueuedOnTheLock(t *testing.T) {
	cs, a, c, ha, gotB := fullSemaphore(t)
	ctx := ctxT(t)
	cctx, cancel := context.WithCancel(ctx)
	doneC := make(chan error, 1)
	go func() { _, err := c.Acquire(cctx); doneC <- err }()
	waitChildren(t, cs[0], "/sem/locks", 2) // c queued behind b
	cancel()
	if err := <-doneC; !errors.Is(err, context.Canceled) {
		t.Fatalf("cancelled acquire: %v", err)
	}
	if kids := children(t, cs[0], "/sem/locks"); len(kids) != 1 {
		t.Fatalf("lock nodes after the cancel: %v, want b's only", kids)
	}
	ha.Release(ctx)
	hb := <-gotB
	if hb == nil {
		t.FailNow()
	}
	hb.Release(ctx)
	if p, _ := a.Participants(ctx); len(p) != 0 {
		t.Fatalf("leases left: %v", p)
	}
}

// An acquire whose lease is deleted each time it is made (by an
// administrator, or session after session expiring) gives up with an error
// that says so, never with a nil hold and no error.
func TestSemaphoreGivesUpWhenItsLeaseKeepsVanishing(t *testing.T) {
	cs := clients(t, 3)
	ctx := ctxT(t)
	a, _ := locks.NewSemaphore(cs[0], "/sem", 1)
	b, _ := locks.NewSemaphore(cs[1], "/sem", 1)
	ha, err := a.Acquire(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer ha.Release(ctx)
	type outcome struct {
		h   *locks.Hold
		err error
	}
	done := make(chan outcome, 1)
	go func() { h, err := b.Acquire(ctx); done <- outcome{h, err} }()
	for deleted := 0; ; {
		select {
		case o := <-done:
			if o.h != nil || !errors.Is(o.err, driver.ErrNodeMissing) {
				t.Fatalf("Acquire = %v, %v; want no hold and ErrNodeMissing", o.h, o.err)
			}
			if deleted < 11 {
				t.Fatalf("gave up after %d deletions, want 11 (10 recreates)", deleted)
			}
			return
		default:
		}
		for _, p := range children(t, cs[2], "/sem/leases") {
			if path := "/sem/leases/" + p; path != ha.Path() && cs[2].Delete(ctx, path) == nil {
				deleted++
			}
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// Acquires on one Semaphore share the count's read while the count does
// not change: each read sets a watch that go-zookeeper keeps until the node
// changes, so a read per acquire would pile them up. A change is read once.
func TestSemaphoreAcquiresShareTheCountsRead(t *testing.T) {
	ns := recipestest.Namespace(t)
	admin := newClientAt(t, server.ConnectString(), framework.WithNamespace(ns))
	cnt := zkharness.NewCounter()
	c := newClientAt(t, server.ConnectString(), framework.WithNamespace(ns), framework.WithDialer(cnt.Dialer(nil)))
	ctx := ctxT(t)
	if _, err := admin.Create(ctx, "/count", []byte{0, 0, 0, 2}); err != nil {
		t.Fatal(err)
	}
	s, _ := locks.NewSemaphoreWithCount(c, "/sem", "/count")
	cycle := func() {
		t.Helper()
		h, err := s.Acquire(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if err := h.Release(ctx); err != nil {
			t.Fatal(err)
		}
	}
	for range 5 {
		cycle()
	}
	if n := cnt.RequestsOf(zkharness.OpGetData); n != 1 {
		t.Fatalf("5 acquires read the unchanged count %d times, want once", n)
	}
	changed := make(chan struct{})
	_, _, w, err := admin.GetW(ctx, "/count")
	if err != nil {
		t.Fatal(err)
	}
	go func() { <-w.Done(); close(changed) }()
	if _, err := admin.Set(ctx, "/count", []byte{0, 0, 0, 3}, -1); err != nil {
		t.Fatal(err)
	}
	<-changed
	if err := c.Sync(ctx, "/count"); err != nil { // the client has had the change's notification
		t.Fatal(err)
	}
	for range 3 {
		cycle()
	}
	if n := cnt.RequestsOf(zkharness.OpGetData); n != 2 {
		t.Fatalf("after a change, the count was read %d times in all, want twice", n)
	}
}

// A waiter on a shared count reads the count once, not on every wake:
// go-zookeeper keeps each watch set on a path until the node changes, so a
// read per wake piles up watches for as long as the count stays put.
func TestSemaphoreReadsAnUnchangedCountOnce(t *testing.T) {
	ns := recipestest.Namespace(t)
	holder := newClientAt(t, server.ConnectString(), framework.WithNamespace(ns))
	cnt := zkharness.NewCounter()
	waiter := newClientAt(t, server.ConnectString(), framework.WithNamespace(ns), framework.WithDialer(cnt.Dialer(nil)))
	ctx := ctxT(t)
	if _, err := holder.Create(ctx, "/count", []byte{0, 0, 0, 3}); err != nil {
		t.Fatal(err)
	}
	hs, _ := locks.NewSemaphoreWithCount(holder, "/sem", "/count")
	held, err := hs.AcquireN(ctx, 3)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := holder.Set(ctx, "/count", []byte{0, 0, 0, 1}, -1); err != nil {
		t.Fatal(err)
	}
	ws, _ := locks.NewSemaphoreWithCount(waiter, "/sem", "/count")
	got := make(chan error, 1)
	go func() {
		h, err := ws.Acquire(ctx)
		if err == nil {
			err = h.Release(ctx)
		}
		got <- err
	}()
	waitParticipants(t, hs, 4)
	for _, h := range held { // three wakes; room at the last
		if err := h.Release(ctx); err != nil {
			t.Fatal(err)
		}
	}
	if err := <-got; err != nil {
		t.Fatal(err)
	}
	if n := cnt.RequestsOf(zkharness.OpGetData); n != 1 {
		t.Fatalf("the waiter read the count %d times, want once", n)
	}
}
