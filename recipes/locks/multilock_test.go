package locks_test

import (
	"context"
	"errors"
	"strings"
	"testing"

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
