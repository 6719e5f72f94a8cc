package locks_test

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/gocurator/curator/framework"
	"github.com/gocurator/curator/recipes/locks"
	"github.com/gocurator/curator/recipestest"
	"github.com/gocurator/curator/zkharness"
)

// A goroutine that took a lock without an Owner and asks for it again, or
// for the other side of a read-write lock, without one is refused at once:
// before any request, with no node left, and with an error that says what
// to do. On the code before the refusal each of these waited on itself
// until its context ended.
func TestOwnerlessSelfWaitIsRefused(t *testing.T) {
	cases := []struct {
		name   string
		first  func(*locks.ReadWriteLock, *locks.Mutex) *locks.Mutex
		second func(*locks.ReadWriteLock, *locks.Mutex) *locks.Mutex
		want   error
	}{
		{"mutex twice",
			func(_ *locks.ReadWriteLock, m *locks.Mutex) *locks.Mutex { return m },
			func(_ *locks.ReadWriteLock, m *locks.Mutex) *locks.Mutex { return m },
			locks.ErrSelfDeadlock},
		{"write lock twice",
			func(rw *locks.ReadWriteLock, _ *locks.Mutex) *locks.Mutex { return rw.WriteLock() },
			func(rw *locks.ReadWriteLock, _ *locks.Mutex) *locks.Mutex { return rw.WriteLock() },
			locks.ErrSelfDeadlock},
		{"read lock while writing (downgrade)",
			func(rw *locks.ReadWriteLock, _ *locks.Mutex) *locks.Mutex { return rw.WriteLock() },
			func(rw *locks.ReadWriteLock, _ *locks.Mutex) *locks.Mutex { return rw.ReadLock() },
			locks.ErrSelfDeadlock},
		{"write lock while reading (upgrade)",
			func(rw *locks.ReadWriteLock, _ *locks.Mutex) *locks.Mutex { return rw.ReadLock() },
			func(rw *locks.ReadWriteLock, _ *locks.Mutex) *locks.Mutex { return rw.WriteLock() },
			locks.ErrUpgrade},
		{"read lock twice",
			func(rw *locks.ReadWriteLock, _ *locks.Mutex) *locks.Mutex { return rw.ReadLock() },
			func(rw *locks.ReadWriteLock, _ *locks.Mutex) *locks.Mutex { return rw.ReadLock() },
			locks.ErrSelfDeadlock},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			c, requests := countedClient(t)
			ctx := ctxT(t)
			rw, _ := locks.NewReadWriteLock(c, "/rw")
			m, _ := locks.NewMutex(c, "/lock")
			first := tc.first(rw, m)
			h, err := first.Acquire(ctx)
			if err != nil {
				t.Fatal(err)
			}
			nodes := participantsOf(t, rw, m)
			before := requests.Requests()

			wctx := refusalCtx(t, ctx)
			second := tc.second(rw, m)
			if h2, err := second.Acquire(wctx); !errors.Is(err, tc.want) {
				if err == nil {
					h2.Release(ctx)
				}
				t.Fatalf("second Acquire on the same goroutine: %v, want %v", err, tc.want)
			} else if !errors.Is(err, locks.ErrUpgrade) && !errors.Is(err, locks.ErrSelfDeadlock) || wctx.Err() != nil {
				t.Fatalf("refused late or with the wrong error: %v", err)
			}
			if got := requests.Requests() - before; got != 0 {
				t.Fatalf("the refused Acquire sent %d requests, want 0", got)
			}
			if got := participantsOf(t, rw, m); !slices.Equal(got, nodes) {
				t.Fatalf("nodes after the refusal: %v, want %v", got, nodes)
			}
			// A TryAcquire does not wait, so it says busy as before (a
			// second read node would hold).
			if !(first == rw.ReadLock() && second == rw.ReadLock()) {
				if h2, err := second.TryAcquire(ctx); !errors.Is(err, locks.ErrBusy) {
					if err == nil {
						h2.Release(ctx)
					}
					t.Fatalf("TryAcquire: %v, want ErrBusy", err)
				}
			}
			// Once released, the same goroutine acquires again.
			if err := h.Release(ctx); err != nil {
				t.Fatal(err)
			}
			h2, err := second.Acquire(ctx)
			if err != nil {
				t.Fatalf("Acquire after the release: %v", err)
			}
			h2.Release(ctx)
		})
	}
}

// refusalCtx bounds an Acquire that must be refused at once, so that the
// wait the refusal replaces fails the test instead of hanging it.
func refusalCtx(t *testing.T, ctx context.Context) context.Context {
	wctx, cancel := context.WithTimeout(ctx, 5*time.Second)
	t.Cleanup(cancel)
	return wctx
}

// countedClient returns a client in a fresh namespace whose requests are
// counted on the wire.
func countedClient(t *testing.T) (*framework.Client, *zkharness.Counter) {
	requests := zkharness.NewCounter()
	c := newClientAt(t, server.ConnectString(), framework.WithNamespace(recipestest.Namespace(t)),
		framework.WithDialer(requests.Dialer(nil)))
	return c, requests
}

func participantsOf(t *testing.T, rw *locks.ReadWriteLock, m *locks.Mutex) []string {
	t.Helper()
	a, err := rw.Participants(ctxT(t))
	if err != nil {
		t.Fatal(err)
	}
	b, err := m.Participants(ctxT(t))
	if err != nil {
		t.Fatal(err)
	}
	return append(a, b...)
}

// The ways out the refusal names work: Downgrade, and one Owner for both
// Acquires.
func TestOwnerlessSelfWaitWaysOut(t *testing.T) {
	c := clients(t, 1)[0]
	ctx := ctxT(t)
	rw, _ := locks.NewReadWriteLock(c, "/rw")
	w, err := rw.WriteLock().Acquire(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := rw.ReadLock().Acquire(ctx); !errors.Is(err, locks.ErrSelfDeadlock) {
		t.Fatalf("read Acquire while writing: %v, want ErrSelfDeadlock", err)
	}
	r, err := rw.Downgrade(ctx, w)
	if err != nil {
		t.Fatalf("Downgrade: %v", err)
	}
	w.Release(ctx)
	// The downgraded read hold is the goroutine's, as its write hold was.
	wctx := refusalCtx(t, ctx)
	if _, err := rw.WriteLock().Acquire(wctx); !errors.Is(err, locks.ErrUpgrade) {
		t.Fatalf("write Acquire after the downgrade: %v, want ErrUpgrade", err)
	}
	r.Release(ctx)

	m, _ := locks.NewMutex(c, "/lock")
	octx := locks.WithOwner(ctx, locks.NewOwner())
	h, err := m.Acquire(octx)
	if err != nil {
		t.Fatal(err)
	}
	again, err := m.Acquire(octx)
	if err != nil || again != h {
		t.Fatalf("re-entry by Owner: %v, %v", again, err)
	}
	again.Release(ctx)
	h.Release(ctx)
	if p, _ := m.Participants(ctx); len(p) != 0 {
		t.Fatalf("nodes left: %v", p)
	}
}

// The refusal is per goroutine: goroutines without Owners that share a lock
// wait for each other as before, the upgrade and downgrade shapes included.
func TestOwnerlessWaitOnAnotherGoroutine(t *testing.T) {
	cases := []struct {
		name          string
		first, second func(*locks.ReadWriteLock) *locks.Mutex
	}{
		{"write then write", (*locks.ReadWriteLock).WriteLock, (*locks.ReadWriteLock).WriteLock},
		{"read then write", (*locks.ReadWriteLock).ReadLock, (*locks.ReadWriteLock).WriteLock},
		{"write then read", (*locks.ReadWriteLock).WriteLock, (*locks.ReadWriteLock).ReadLock},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			c := clients(t, 1)[0]
			ctx := ctxT(t)
			rw, _ := locks.NewReadWriteLock(c, "/rw")
			held := make(chan *locks.Hold)
			go func() {
				h, err := tc.first(rw).Acquire(ctx)
				if err != nil {
					t.Error(err)
				}
				held <- h
			}()
			h := <-held
			if h == nil {
				return
			}
			got := make(chan error, 1)
			go func() {
				h2, err := tc.second(rw).Acquire(ctx)
				if err == nil {
					err = h2.Release(ctx)
				}
				got <- err
			}()
			waitParticipants(t, rw, 2) // the second waits in the queue
			select {
			case err := <-got:
				t.Fatalf("the second goroutine did not wait: %v", err)
			default:
			}
			if err := h.Release(ctx); err != nil {
				t.Fatal(err)
			}
			if err := <-got; err != nil {
				t.Fatalf("the second goroutine, after the release: %v", err)
			}
		})
	}
}

// A hold handed to another goroutine still counts as its taker's: the
// taker's next Acquire without an Owner is refused, and one with an Owner
// waits for the other goroutine's release. This is the refusal's one cost.
func TestOwnerlessHandOff(t *testing.T) {
	c := clients(t, 1)[0]
	ctx := ctxT(t)
	m, _ := locks.NewMutex(c, "/lock")
	h, err := m.Acquire(ctx)
	if err != nil {
		t.Fatal(err)
	}
	release := make(chan struct{})
	released := make(chan error, 1)
	go func() { // the worker the hold is handed to
		<-release
		released <- h.Release(ctx)
	}()
	if _, err := m.Acquire(ctx); !errors.Is(err, locks.ErrSelfDeadlock) {
		t.Fatalf("Acquire by the taker of a handed-off hold: %v, want ErrSelfDeadlock", err)
	}
	type result struct {
		h   *locks.Hold
		err error
	}
	got := make(chan result, 1)
	go func() {
		h2, err := m.Acquire(locks.WithOwner(ctx, locks.NewOwner()))
		got <- result{h2, err}
	}()
	waitParticipants(t, m, 2)
	select {
	case r := <-got:
		t.Fatalf("Acquire with an Owner did not wait for the worker: %v", r.err)
	default:
	}
	close(release)
	if err := <-released; err != nil {
		t.Fatalf("the worker's release: %v", err)
	}
	r := <-got
	if r.err != nil {
		t.Fatalf("Acquire with an Owner: %v", r.err)
	}
	r.h.Release(ctx)
	h3, err := m.Acquire(ctx) // released: the taker is not refused any more
	if err != nil {
		t.Fatal(err)
	}
	h3.Release(ctx)
}

// SemaphoreMutex is not reentrant, in Curator as here: a goroutine that asks
// again without an Owner for the lock it took without one is refused, with
// no request sent and no lease left; other goroutines still wait.
func TestOwnerlessSemaphoreMutexTwice(t *testing.T) {
	c, requests := countedClient(t)
	ctx := ctxT(t)
	m, _ := locks.NewSemaphoreMutex(c, "/smutex")
	h, err := m.Acquire(ctx)
	if err != nil {
		t.Fatal(err)
	}
	before := requests.Requests()
	wctx := refusalCtx(t, ctx)
	if _, err := m.Acquire(wctx); !errors.Is(err, locks.ErrSelfDeadlock) || wctx.Err() != nil {
		t.Fatalf("second Acquire on the same goroutine: %v, want ErrSelfDeadlock at once", err)
	}
	if got := requests.Requests() - before; got != 0 {
		t.Fatalf("the refused Acquire sent %d requests, want 0", got)
	}
	got := make(chan error, 1)
	go func() {
		h2, err := m.Acquire(ctx)
		if err == nil {
			err = h2.Release(ctx)
		}
		got <- err
	}()
	recipestest.Eventually(t, "the other goroutine queued for the lock", func() (bool, string) {
		kids, _, err := c.Children(ctx, "/smutex/locks")
		return err == nil && len(kids) == 1, fmt.Sprint(kids, err)
	})
	select {
	case err := <-got:
		t.Fatalf("another goroutine did not wait: %v", err)
	default:
	}
	if err := h.Release(ctx); err != nil {
		t.Fatal(err)
	}
	if err := <-got; err != nil {
		t.Fatal(err)
	}
	h3, err := m.Acquire(ctx) // released: the goroutine may take it again
	if err != nil {
		t.Fatal(err)
	}
	h3.Release(ctx)
}

// A MultiLock acquiring without an Owner acts for its caller's goroutine:
// its locks refuse the goroutine's self-waits in both directions, and one
// lock listed twice still re-enters through the MultiLock's one Owner.
func TestOwnerlessSelfWaitThroughMultiLock(t *testing.T) {
	c := clients(t, 1)[0]
	ctx := ctxT(t)
	m, _ := locks.NewMutex(c, "/lock")
	sm, _ := locks.NewSemaphoreMutex(c, "/smutex")
	multi, _ := locks.NewMultiLock(m, sm)

	mh, err := multi.Acquire(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := m.Acquire(refusalCtx(t, ctx)); !errors.Is(err, locks.ErrSelfDeadlock) {
		t.Fatalf("Mutex Acquire while the goroutine's MultiLock holds it: %v, want ErrSelfDeadlock", err)
	}
	if _, err := sm.Acquire(refusalCtx(t, ctx)); !errors.Is(err, locks.ErrSelfDeadlock) {
		t.Fatalf("SemaphoreMutex Acquire while the goroutine's MultiLock holds it: %v, want ErrSelfDeadlock", err)
	}
	if err := mh.Release(ctx); err != nil {
		t.Fatal(err)
	}

	h, err := sm.Acquire(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := multi.Acquire(refusalCtx(t, ctx)); !errors.Is(err, locks.ErrSelfDeadlock) {
		t.Fatalf("MultiLock Acquire while the goroutine holds one of its locks: %v, want ErrSelfDeadlock", err)
	}
	if m.IsAcquiredInThisProcess() {
		t.Fatal("the refused MultiLock kept the lock it took first")
	}
	h.Release(ctx)

	twice, _ := locks.NewMultiLock(m, m)
	th, err := twice.Acquire(refusalCtx(t, ctx))
	if err != nil {
		t.Fatalf("MultiLock over one Mutex twice: %v", err)
	}
	if err := th.Release(ctx); err != nil {
		t.Fatal(err)
	}
	if p, _ := m.Participants(ctx); len(p) != 0 {
		t.Fatalf("nodes left: %v", p)
	}
}

// A write hold taken without an Owner and downgraded on another goroutine
// gives that goroutine the read hold: it is refused the upgrade, and the
// write lock's taker, which holds nothing now, is not.
func TestOwnerlessDowngradeOnAnotherGoroutine(t *testing.T) {
	c := clients(t, 1)[0]
	ctx := ctxT(t)
	rw, _ := locks.NewReadWriteLock(c, "/rw")
	w, err := rw.WriteLock().Acquire(ctx)
	if err != nil {
		t.Fatal(err)
	}
	type downgraded struct {
		r   *locks.Hold
		err error
	}
	handed := make(chan downgraded, 1)
	upgraded := make(chan error, 1)
	go func() { // the worker the write hold is handed to
		r, err := rw.Downgrade(ctx, w)
		if err == nil {
			err = w.Release(ctx)
		}
		if err == nil {
			wctx := refusalCtx(t, ctx)
			_, err = rw.WriteLock().Acquire(wctx)
			upgraded <- err
		} else {
			upgraded <- nil
		}
		handed <- downgraded{r, err}
	}()
	if err := <-upgraded; !errors.Is(err, locks.ErrUpgrade) {
		t.Fatalf("write Acquire by the goroutine that downgraded: %v, want ErrUpgrade", err)
	}
	d := <-handed
	if d.r == nil {
		t.Fatalf("Downgrade: %v", d.err)
	}
	// The write lock's taker holds nothing: it waits for the worker's read
	// hold like any writer, and gets the lock once the worker releases.
	released := make(chan error, 1)
	go func() {
		for { // until our write node queues behind the read node
			p, err := rw.Participants(ctx)
			if err != nil || len(p) == 2 {
				break
			}
			time.Sleep(10 * time.Millisecond)
		}
		released <- d.r.Release(ctx)
	}()
	h, err := rw.WriteLock().Acquire(ctx)
	if err != nil {
		t.Fatalf("write Acquire by the write lock's first taker: %v", err)
	}
	if err := <-released; err != nil {
		t.Fatal(err)
	}
	h.Release(ctx)
}

// A SemaphoreMutex remembers only the holds not yet released (and the last
// one taken): its memory does not grow with acquire cycles.
func TestSemaphoreMutexForgetsReleasedHolds(t *testing.T) {
	c := clients(t, 1)[0]
	ctx := ctxT(t)
	sm, _ := locks.NewSemaphoreMutex(c, "/smutex")
	for i := range 50 {
		take := sm.Acquire
		if i%2 == 1 {
			take = sm.TryAcquire
		}
		h, err := take(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if err := h.Release(ctx); err != nil {
			t.Fatal(err)
		}
	}
	if n := locks.SemaphoreMutexTakers(sm); n > 1 {
		t.Fatalf("after 50 released cycles the SemaphoreMutex remembers %d holds, want at most 1", n)
	}
}
