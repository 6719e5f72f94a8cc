package locks_test

import (
	"context"
	"errors"
	"regexp"
	"slices"
	"testing"

	"github.com/gocurator/curator/framework"
	"github.com/gocurator/curator/recipes/locks"
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
	if p, _ := m.Participants(ctx); !slices.Equal(p, []string{h.Path()}) {
		t.Fatalf("participants %v", p)
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
