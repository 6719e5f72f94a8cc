package locks_test

import (
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/gocurator/curator/framework"
	"github.com/gocurator/curator/recipes/locks"
	"github.com/gocurator/curator/recipestest"
)

// With a crafted node Curator sorts first ("x-lock-": an empty sequence)
// in a mutex's directory, a Go participant and a Curator one still never
// hold together. Go takes the lock past the crafted node; the Curator peer,
// queued behind Go, waits for it, then stays blocked by the crafted node
// once Go has released, as Curator alone would; and a Go participant
// queued behind that blocked Java one waits too, since it waits on the
// Java node. Once the crafted node is deleted, both run their cycles with
// no overlap.
func TestCraftedNodeWithCurator(t *testing.T) {
	ns := recipestest.Namespace(t)
	c := newClientAt(t, server.ConnectString(), framework.WithNamespace(ns))
	ctx := ctxT(t)
	craft(ctx, t, c, "/lock", "x-lock-", "x-lock--1")

	m, _ := locks.NewMutex(c, "/lock")
	h, err := m.TryAcquire(ctx)
	if err != nil {
		t.Fatalf("Go's try past the crafted nodes: %v, want it held", err)
	}
	const cycles = 3
	java := startJavaPeer(t, false, server.ConnectString(), "mutex", "/"+ns+"/lock", "/"+ns+"/occ", fmt.Sprint(cycles))
	recipestest.Eventually(t, "the Curator peer's node", func() (bool, string) {
		kids, _, err := c.Children(ctx, "/lock")
		return err == nil && len(kids) == 4, ""
	})
	if bad, err := marked(ctx, c, false, 1); bad || err != nil {
		t.Fatalf("Go's occupancy check while the Curator peer waits: violation %v, %v", bad, err)
	}
	if err := h.Release(ctx); err != nil {
		t.Fatal(err)
	}

	// The Curator peer now waits on the crafted node; a Go participant
	// behind it waits on the Curator node.
	other := newClientAt(t, server.ConnectString(), framework.WithNamespace(ns))
	m2, _ := locks.NewMutex(other, "/lock")
	if _, err := m2.TryAcquire(ctx); !errors.Is(err, locks.ErrBusy) {
		t.Fatalf("Go's try behind the blocked Curator participant: %v, want ErrBusy", err)
	}
	select {
	case line := <-java.done:
		t.Fatalf("the Curator peer finished past the crafted node: %s", line)
	case <-time.After(time.Second): // it is blocked: no event says so
	}

	for _, n := range []string{"x-lock-", "x-lock--1"} {
		if err := c.Delete(ctx, "/lock/"+n); err != nil {
			t.Fatal(err)
		}
	}
	for range cycles {
		h, err := m2.Acquire(ctx)
		if err != nil {
			t.Fatal(err)
		}
		bad, err := marked(ctx, other, false, 1)
		if bad || err != nil {
			t.Fatalf("Go's occupancy check: violation %v, %v", bad, err)
		}
		if err := h.Release(ctx); err != nil {
			t.Fatal(err)
		}
	}
	java.wait(t)
}
