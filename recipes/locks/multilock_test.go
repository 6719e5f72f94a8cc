package locks_test

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/gocurator/curator/framework"
	"github.com/gocurator/curator/recipes/locks"
)

func TestMultiLockAllOrNothing(t *testing.T) {
	cs := clients(t, 2)
	ctx := ctxT(t)
	multi, err := locks.NewMultiMutex(cs[0], "/a", "/b")
	if err != nil {
		t.Fatal(err)
	}
	mh, err := multi.Acquire(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if len(mh.Holds()) != 2 {
		t.Fatalf("holds %v", mh.Holds())
	}
	if err := mh.Release(ctx); err != nil {
		t.Fatal(err)
	}

	// Someone else holds /b: the multi-lock takes /a, waits on /b, and when
	// its context ends gives /a back.
	b, _ := locks.NewMutex(cs[1], "/b")
	hb, _ := b.Acquire(ctx)
	a, _ := locks.NewMutex(cs[1], "/a")
	cctx, cancel := context.WithCancel(ctx)
	done := make(chan error)
	go func() { _, err := multi.Acquire(cctx); done <- err }()
	waitParticipants(t, b, 2)
	if p, _ := a.Participants(ctx); len(p) != 1 {
		t.Fatalf("/a not taken first: %v", p)
	}
	cancel()
	if err := <-done; !errors.Is(err, context.Canceled) || !strings.Contains(err.Error(), "lock 1 (/b):") {
		t.Fatalf("multi acquire: %v; want context.Canceled, naming the lock it waited on", err)
	}
	if p, _ := a.Participants(ctx); len(p) != 0 {
		t.Fatalf("/a not rolled back: %v", p)
	}
	if p, _ := b.Participants(ctx); len(p) != 1 {
		t.Fatalf("/b waiter left behind: %v", p)
	}
	hb.Release(ctx)
}

// A Mutex listed twice is taken once and re-entered, as one Curator thread
// takes it: one node, and the multi-hold's release frees it.
func TestMultiLockOverOneMutexTwice(t *testing.T) {
	c := clients(t, 1)[0]
	ctx := ctxT(t)
	m, _ := locks.NewMutex(c, "/m")
	multi, _ := locks.NewMultiLock(m, m)
	mh, err := multi.Acquire(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if p, _ := m.Participants(ctx); len(p) != 1 {
		t.Fatalf("participants %v, want one node", p)
	}
	if err := mh.Release(ctx); err != nil {
		t.Fatal(err)
	}
	if p, _ := m.Participants(ctx); len(p) != 0 {
		t.Fatalf("participants after release: %v", p)
	}
}

// TryAcquire takes every lock only if each is free now; otherwise it takes
// none, leaves no node, and says ErrBusy. The semaphore's TryAcquire is
// the same for one lease.
func TestTryAcquireOnSemaphoreAndMultiLock(t *testing.T) {
	cs := clients(t, 2)
	ctx := ctxT(t)
	sem, _ := locks.NewSemaphore(cs[0], "/sem", 1)
	other, _ := locks.NewSemaphore(cs[1], "/sem", 1)
	held, err := other.Acquire(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if h, err := sem.TryAcquire(ctx); !errors.Is(err, locks.ErrBusy) {
		t.Fatalf("TryAcquire of a semaphore whose lease is out: %v, %v; want ErrBusy", h, err)
	}
	if p, _ := sem.Participants(ctx); len(p) != 1 {
		t.Fatalf("leases after a busy TryAcquire: %v, want only the holder's", p)
	}

	a, _ := locks.NewMutex(cs[0], "/a")
	multi, err := locks.NewMultiLock(a, sem)
	if err != nil {
		t.Fatal(err)
	}
	if mh, err := multi.TryAcquire(ctx); !errors.Is(err, locks.ErrBusy) || !strings.Contains(err.Error(), "lock 1 (/sem)") {
		t.Fatalf("multi TryAcquire with /sem busy: %v, %v; want ErrBusy naming /sem", mh, err)
	}
	if p, _ := a.Participants(ctx); len(p) != 0 {
		t.Fatalf("/a after a busy multi TryAcquire: %v, want given back", p)
	}
	if err := held.Release(ctx); err != nil {
		t.Fatal(err)
	}
	mh, err := multi.TryAcquire(ctx)
	if err != nil {
		t.Fatalf("multi TryAcquire with both free: %v", err)
	}
	if h, err := other.TryAcquire(ctx); !errors.Is(err, locks.ErrBusy) {
		t.Fatalf("TryAcquire while the multi-lock holds the lease: %v, %v; want ErrBusy", h, err)
	}
	if err := mh.Release(ctx); err != nil {
		t.Fatal(err)
	}
	h, err := other.TryAcquire(ctx)
	if err != nil {
		t.Fatalf("TryAcquire of a free semaphore: %v", err)
	}
	h.Release(ctx)
}

// A multi-hold has a hold's powers: it is lost when any of its holds is
// (Lost closes, Err says which), and its fence lets a write through only
// while every hold is current.
func TestMultiHoldLossAndFence(t *testing.T) {
	cs := clients(t, 2)
	ctx := ctxT(t)
	multi, _ := locks.NewMultiMutex(cs[0], "/a", "/b")
	mh, err := multi.Acquire(ctx)
	if err != nil {
		t.Fatal(err)
	}
	lost := mh.Lost()
	if _, err := cs[0].Txn(ctx, append(mh.Fence(), framework.CreateOp("/w1", nil, framework.Persistent))...); err != nil {
		t.Fatalf("a fenced write while held: %v", err)
	}
	if err := mh.Err(); err != nil {
		t.Fatalf("Err while held: %v", err)
	}
	if err := cs[1].Delete(ctx, mh.Holds()[1].Path()); err != nil { // an administrator deletes /b's node
		t.Fatal(err)
	}
	<-lost
	if err := mh.Err(); !isLost(err) {
		t.Fatalf("Err after /b's node went: %v, want ErrLockLost", err)
	}
	if _, err := cs[0].Txn(ctx, append(mh.Fence(), framework.CreateOp("/w2", nil, framework.Persistent))...); !errors.Is(err, framework.ErrNoNode) {
		t.Fatalf("a fenced write after the loss: %v, want refused (ErrNoNode)", err)
	}
	if err := mh.Release(ctx); !isLost(err) {
		t.Fatalf("Release of a multi-hold with a lost hold: %v, want ErrLockLost", err)
	}
	if err := mh.Release(ctx); !errors.Is(err, locks.ErrNotOwner) {
		t.Fatalf("second Release: %v, want ErrNotOwner", err)
	}
}

// IsAcquiredInThisProcess exists on every lock a port reaches for: a
// SemaphoreMutex says whether its hold is current, a MultiLock whether all
// of its locks are held.
func TestIsAcquiredInThisProcess(t *testing.T) {
	c := clients(t, 1)[0]
	ctx := ctxT(t)
	sm, _ := locks.NewSemaphoreMutex(c, "/sm")
	m, _ := locks.NewMutex(c, "/m")
	multi, _ := locks.NewMultiLock(m, sm)
	if sm.IsAcquiredInThisProcess() || multi.IsAcquiredInThisProcess() {
		t.Fatal("held before any acquire")
	}
	mh, err := multi.Acquire(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if !sm.IsAcquiredInThisProcess() || !m.IsAcquiredInThisProcess() || !multi.IsAcquiredInThisProcess() {
		t.Fatal("not held after the multi-lock's acquire")
	}
	if err := mh.Release(ctx); err != nil {
		t.Fatal(err)
	}
	if sm.IsAcquiredInThisProcess() || multi.IsAcquiredInThisProcess() {
		t.Fatal("held after the release")
	}
}
