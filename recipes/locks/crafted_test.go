package locks_test

import (
	"context"
	"errors"
	"testing"

	"github.com/gocurator/curator/framework"
	"github.com/gocurator/curator/recipes/locks"
	"github.com/gocurator/curator/recipestest"
)

// craft makes persistent nodes with the names given under dir, as a client
// allowed to create there could: they outlive any session.
func craft(ctx context.Context, t *testing.T, c *framework.Client, dir string, names ...string) {
	t.Helper()
	for _, n := range names {
		if _, err := c.Create(ctx, dir+"/"+n, []byte("crafted"), framework.WithParents()); err != nil {
			t.Fatal(err)
		}
	}
}

// Nodes whose names are not the recipe's (the lock name and a sequence
// number) block no lock kind, though Curator sorts some of them first: an
// empty sequence, a malformed negative one, a name without the lock name
// that sorts before digits, a write node without a sequence in a
// read-write lock, lease-like nodes in a semaphore's leases. The locks
// still exclude each other as before.
func TestCraftedNodesDoNotBlock(t *testing.T) {
	ns := recipestest.Namespace(t)
	a := newClientAt(t, server.ConnectString(), framework.WithNamespace(ns))
	b := newClientAt(t, server.ConnectString(), framework.WithNamespace(ns))
	ctx := ctxT(t)
	craft(ctx, t, a, "/mutex", "x-lock-", "x-lock--1", "!", "x-lock-00000000001")
	craft(ctx, t, a, "/rw", "x-__WRIT__", "x-__WRIT__-1", "!")
	craft(ctx, t, a, "/sem/leases", "x-lease-", "x-lease--1", "!")

	type trier interface {
		TryAcquire(context.Context) (*locks.Hold, error)
	}
	for _, tc := range []struct {
		name  string
		first func(*framework.Client) trier
		then  func(*framework.Client) trier
		busy  bool // then is refused while first holds
	}{
		{"mutex", func(c *framework.Client) trier { m, _ := locks.NewMutex(c, "/mutex"); return m },
			func(c *framework.Client) trier { m, _ := locks.NewMutex(c, "/mutex"); return m }, true},
		{"readers", func(c *framework.Client) trier { rw, _ := locks.NewReadWriteLock(c, "/rw"); return rw.ReadLock() },
			func(c *framework.Client) trier { rw, _ := locks.NewReadWriteLock(c, "/rw"); return rw.ReadLock() }, false},
		{"reader then writer", func(c *framework.Client) trier { rw, _ := locks.NewReadWriteLock(c, "/rw"); return rw.ReadLock() },
			func(c *framework.Client) trier { rw, _ := locks.NewReadWriteLock(c, "/rw"); return rw.WriteLock() }, true},
		{"semaphore of one", func(c *framework.Client) trier { s, _ := locks.NewSemaphore(c, "/sem", 1); return s },
			func(c *framework.Client) trier { s, _ := locks.NewSemaphore(c, "/sem", 1); return s }, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			h, err := tc.first(a).TryAcquire(ctx)
			if err != nil {
				t.Fatalf("the first try, with crafted nodes in the lock: %v, want it held", err)
			}
			h2, err := tc.then(b).TryAcquire(ctx)
			switch {
			case tc.busy && !errors.Is(err, locks.ErrBusy):
				t.Errorf("the second try while the first holds: %v, want ErrBusy", err)
			case !tc.busy && err != nil:
				t.Errorf("the second try: %v, want it held", err)
			}
			if h2 != nil {
				h2.Release(ctx)
			}
			if err := h.Release(ctx); err != nil {
				t.Fatal(err)
			}
			if h, err := tc.then(b).TryAcquire(ctx); err != nil {
				t.Errorf("the second try after the release: %v", err)
			} else {
				h.Release(ctx)
			}
		})
	}
}
