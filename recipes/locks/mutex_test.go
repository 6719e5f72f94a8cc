package locks_test

import (
	"context"
	"errors"
	"regexp"
	"slices"
	"sync"
	"testing"

	"github.com/gocurator/curator/framework"
	"github.com/gocurator/curator/recipes/locks"
)

var lockNode = regexp.MustCompile(`^_c_[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}-lock-\d{10}$`)

func TestMutexNodeIsCuratorsAndReentrant(t *testing.T) {
	c := clients(t, 1)[0]
	ctx := ctxT(t)
	m, _ := locks.NewMutex(c, "/app/lock")
	owner := locks.NewOwner()
	octx := locks.WithOwner(ctx, owner)
	h1, err := m.Acquire(octx)
	if err != nil {
		t.Fatal(err)
	}
	_, name := framework.SplitPath(h1.Path())
	if !lockNode.MatchString(name) {
		t.Fatalf("lock node %q is not Curator's", name)
	}
	data, stat, _ := c.Get(ctx, h1.Path())
	if stat.EphemeralOwner != c.SessionID() || !regexp.MustCompile(`^\d+\.\d+\.\d+\.\d+$`).Match(data) {
		t.Fatalf("node owner %x data %q", stat.EphemeralOwner, data)
	}
	h2, err := m.Acquire(octx)
	if err != nil || h2 != h1 {
		t.Fatalf("re-entry: %v %v", h2, err)
	}
	if p, _ := m.Participants(ctx); len(p) != 1 {
		t.Fatalf("re-entry made a node: %v", p)
	}
	if !m.IsOwnedBy(owner) || !m.IsAcquiredInThisProcess() {
		t.Fatal("not owned after acquire")
	}
	h2.Release(ctx)
	if ok, _, _ := c.Exists(ctx, h1.Path()); !ok {
		t.Fatal("first release of two deleted the node")
	}
	if err := h1.Release(ctx); err != nil {
		t.Fatal(err)
	}
	if err := h1.Release(ctx); !errors.Is(err, locks.ErrNotOwner) {
		t.Fatalf("release without a hold: %v, want ErrNotOwner", err)
	}
	if m.IsAcquiredInThisProcess() {
		t.Fatal("still held after the last release")
	}
}

// Goroutines sharing one Mutex without sharing an owner exclude each other.
func TestMutexGoroutinesSharingInstanceExclude(t *testing.T) {
	c := clients(t, 1)[0]
	ctx := ctxT(t)
	m, _ := locks.NewMutex(c, "/lock")
	h, err := m.Acquire(ctx)
	if err != nil {
		t.Fatal(err)
	}
	got := make(chan *locks.Hold)
	go func() {
		h2, err := m.Acquire(ctx)
		if err != nil {
			t.Error(err)
		}
		got <- h2
	}()
	waitParticipants(t, m, 2) // the second goroutine is queued in ZooKeeper
	select {
	case <-got:
		t.Fatal("second goroutine acquired a held lock")
	default:
	}
	h.Release(ctx)
	h2 := <-got
	if h2 == nil || h2 == h {
		t.Fatal("second goroutine did not get its own hold")
	}
	h2.Release(ctx)
}

func TestMutexWaitersAreServedInOrder(t *testing.T) {
	const n = 5
	cs := clients(t, n+1)
	ctx := ctxT(t)
	first, _ := locks.NewMutex(cs[0], "/lock")
	h, err := first.Acquire(ctx)
	if err != nil {
		t.Fatal(err)
	}
	var (
		mu    sync.Mutex
		order []int
	)
	var wg sync.WaitGroup
	for i := 1; i <= n; i++ {
		m, _ := locks.NewMutex(cs[i], "/lock")
		wg.Add(1)
		go func() {
			defer wg.Done()
			h, err := m.Acquire(ctx)
			if err != nil {
				t.Error(err)
				return
			}
			mu.Lock()
			order = append(order, i)
			mu.Unlock()
			h.Release(ctx)
		}()
		waitParticipants(t, first, i+1) // queue them one by one
	}
	h.Release(ctx)
	wg.Wait()
	if !slices.Equal(order, []int{1, 2, 3, 4, 5}) {
		t.Fatalf("served in order %v", order)
	}
}

func TestTryAcquireLeavesNoNode(t *testing.T) {
	cs := clients(t, 2)
	ctx := ctxT(t)
	a, _ := locks.NewMutex(cs[0], "/lock")
	b, _ := locks.NewMutex(cs[1], "/lock")
	h, err := a.TryAcquire(ctx)
	if err != nil {
		t.Fatalf("try on a free lock: %v", err)
	}
	if _, err := b.TryAcquire(ctx); !errors.Is(err, locks.ErrBusy) {
		t.Fatalf("try on a held lock: %v, want ErrBusy", err)
	}
	if p, _ := a.Participants(ctx); len(p) != 1 {
		t.Fatalf("participants after a failed try: %v", p)
	}
	h.Release(ctx)
}

// A timeout or a cancel mid-acquire leaves nothing; the container parent
// goes when the last lock does.
func TestCancelledAcquireLeavesNothing(t *testing.T) {
	cs := clients(t, 2)
	ctx := ctxT(t)
	a, _ := locks.NewMutex(cs[0], "/dir/lock")
	b, _ := locks.NewMutex(cs[1], "/dir/lock")
	h, _ := a.Acquire(ctx)

	cctx, cancel := context.WithCancel(ctx)
	done := make(chan error)
	go func() { _, err := b.Acquire(cctx); done <- err }()
	waitParticipants(t, a, 2)
	cancel()
	if err := <-done; !errors.Is(err, context.Canceled) {
		t.Fatalf("cancelled acquire: %v", err)
	}
	if p, _ := a.Participants(ctx); len(p) != 1 || p[0] != h.Path() {
		t.Fatalf("participants after cancel: %v, want only the holder", p)
	}

	dctx, cancel2 := context.WithTimeout(ctx, 0)
	defer cancel2()
	if _, err := b.Acquire(dctx); !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("acquire with an expired deadline: %v", err)
	}
	h.Release(ctx)
	waitGone(t, cs[0], "/dir/lock")
	waitGone(t, cs[0], "/dir")
}

func TestBadInput(t *testing.T) {
	c := clients(t, 1)[0]
	ctx := ctxT(t)
	for _, p := range []string{"", "relative", "/", "/trail/"} {
		if _, err := locks.NewMutex(c, p); !errors.Is(err, locks.ErrInvalidArg) {
			t.Errorf("NewMutex(%q) = %v, want ErrInvalidArg", p, err)
		}
	}
	if _, err := locks.NewSemaphore(c, "/s", 0); !errors.Is(err, locks.ErrInvalidArg) {
		t.Errorf("NewSemaphore with 0 leases: %v", err)
	}
	s, _ := locks.NewSemaphore(c, "/s", 2)
	if _, err := s.AcquireN(ctx, 0); !errors.Is(err, locks.ErrInvalidArg) {
		t.Errorf("AcquireN(0): %v", err)
	}
	for _, p := range []string{"", "relative", "/trail/"} {
		if _, err := locks.NewSemaphore(c, p, 1); !errors.Is(err, locks.ErrInvalidArg) {
			t.Errorf("NewSemaphore(%q) = %v, want ErrInvalidArg", p, err)
		}
	}
	if _, err := locks.NewMultiLock(); !errors.Is(err, locks.ErrInvalidArg) {
		t.Errorf("empty multi-lock: %v", err)
	}
	if _, err := locks.NewMultiLock((*locks.Mutex)(nil)); !errors.Is(err, locks.ErrInvalidArg) {
		t.Errorf("multi-lock over a nil *Mutex: %v", err)
	}
	ml, _ := locks.NewMultiLock(noHold{})
	if _, err := ml.Acquire(ctx); !errors.Is(err, locks.ErrInvalidArg) {
		t.Errorf("multi-lock over a Locker that returns no hold: %v", err)
	}
	if _, err := locks.NewMutex(nil, "/x"); !errors.Is(err, locks.ErrInvalidArg) {
		t.Errorf("nil client: %v", err)
	}
	m, _ := locks.NewMutex(c, "/m")
	c.Close()
	if _, err := m.Acquire(ctx); !errors.Is(err, framework.ErrClosed) {
		t.Errorf("acquire on a closed client: %v, want ErrClosed", err)
	}
}

// TryAcquire for an owner whose Acquire is waiting does not wait for it.
func TestTryAcquireBesideTheOwnersAcquire(t *testing.T) {
	cs := clients(t, 2)
	ctx := ctxT(t)
	m, _ := locks.NewMutex(cs[0], "/lock")
	other, _ := locks.NewMutex(cs[1], "/lock")
	held, err := other.Acquire(ctx)
	if err != nil {
		t.Fatal(err)
	}
	octx := locks.WithOwner(ctx, locks.NewOwner())
	got := make(chan error, 1)
	go func() {
		h, err := m.Acquire(octx)
		if err == nil {
			err = h.Release(ctx)
		}
		got <- err
	}()
	waitParticipants(t, m, 2)
	if _, err := m.TryAcquire(octx); !errors.Is(err, locks.ErrBusy) {
		t.Fatalf("try beside the owner's waiting acquire: %v, want ErrBusy", err)
	}
	if p, _ := m.Participants(ctx); len(p) != 2 {
		t.Fatalf("participants %v: the try left a node", p)
	}
	held.Release(ctx)
	if err := <-got; err != nil {
		t.Fatal(err)
	}
}

// noHold is a broken Locker: no hold and no error.
type noHold struct{}

func (noHold) Acquire(context.Context) (*locks.Hold, error) { return nil, nil }

// WithNodeData puts the given data in the lock's nodes (Curator's
// lockNodeBytes), for the mutex and both sides of the read-write lock; a
// nil option is refused.
func TestWithNodeData(t *testing.T) {
	c := clients(t, 1)[0]
	ctx := ctxT(t)
	m, err := locks.NewMutex(c, "/m", locks.WithNodeData([]byte("web1")))
	if err != nil {
		t.Fatal(err)
	}
	rw, err := locks.NewReadWriteLock(c, "/rw", locks.WithNodeData([]byte("web2")))
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		l    locks.Locker
		want string
	}{{m, "web1"}, {rw.WriteLock(), "web2"}, {rw.ReadLock(), "web2"}} {
		h, err := tc.l.Acquire(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if data, _, err := c.Get(ctx, h.Path()); err != nil || string(data) != tc.want {
			t.Fatalf("node %s holds %q (%v), want %q", h.Path(), data, err, tc.want)
		}
		h.Release(ctx)
	}
	if _, err := locks.NewMutex(c, "/m", nil); !errors.Is(err, locks.ErrInvalidArg) {
		t.Fatalf("a nil option: %v, want ErrInvalidArg", err)
	}
}
