package locks_test

import (
	"context"
	"errors"
	"testing"

	"github.com/gocurator/curator/recipes/locks"
	"github.com/gocurator/curator/recipes/shared"
)

// A semaphore follows a started shared count: misused (nil, not started)
// it fails at construction; a count of 0 lets nobody in, as Curator's; a
// raised count lets a waiter in.
func TestSemaphoreWithSharedCount(t *testing.T) {
	c := clients(t, 1)[0]
	ctx := ctxT(t)
	count, err := shared.NewCount(c, "/count", 0)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := locks.NewSemaphoreWithSharedCount(c, "/sem", count); !errors.Is(err, locks.ErrInvalidArg) {
		t.Fatalf("a count not started: %v, want ErrInvalidArg", err)
	}
	if _, err := locks.NewSemaphoreWithSharedCount(c, "/sem", nil); !errors.Is(err, locks.ErrInvalidArg) {
		t.Fatalf("a nil count: %v, want ErrInvalidArg", err)
	}
	if err := count.Start(ctx); err != nil {
		t.Fatal(err)
	}
	defer count.Close()
	sem, err := locks.NewSemaphoreWithSharedCount(c, "/sem", count)
	if err != nil {
		t.Fatal(err)
	}
	if h, err := sem.TryAcquire(ctx); !errors.Is(err, locks.ErrBusy) {
		t.Fatalf("TryAcquire with a count of 0: %v, %v; want ErrBusy", h, err)
	}
	got := make(chan error, 1)
	go func() {
		h, err := sem.Acquire(ctx)
		if err == nil {
			err = h.Release(context.Background())
		}
		got <- err
	}()
	waitParticipants(t, sem, 1) // waiting, its lease made, at a count of 0
	select {
	case err := <-got:
		t.Fatalf("an acquire at a count of 0 returned: %v", err)
	default:
	}
	if err := count.Set(ctx, 1); err != nil {
		t.Fatal(err)
	}
	if err := <-got; err != nil {
		t.Fatalf("the waiter once the count rose: %v", err)
	}
}
