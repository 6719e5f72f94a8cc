package locks_test

import (
	"context"
	"sync/atomic"
	"testing"

	"golang.org/x/sync/errgroup"

	"github.com/gocurator/curator/framework"
	"github.com/gocurator/curator/recipes/locks"
)

// occupancy counts who is inside a critical section, and how many writers
// (exclusive holders), and remembers the most seen at once.
type occupancy struct {
	inside, writers, most atomic.Int32
}

func (o *occupancy) enter() {
	n := o.inside.Add(1)
	for m := o.most.Load(); n > m && !o.most.CompareAndSwap(m, n); m = o.most.Load() {
	}
}

func (o *occupancy) leave() { o.inside.Add(-1) }

// releaser is what the locks' acquires return: a Hold or a MultiHold.
type releaser interface {
	Release(ctx context.Context) error
}

// acquireFunc takes the lock for one worker's cycle; write says whether the
// hold is exclusive.
type acquireFunc func(ctx context.Context, cycle int) (h releaser, write bool, err error)

func exclusive[H releaser](acquire func(context.Context) (H, error)) acquireFunc {
	return func(ctx context.Context, _ int) (releaser, bool, error) {
		h, err := acquire(ctx)
		return h, true, err
	}
}

// Every lock, under load: 8 clients, each with its own session, 25 cycles
// each, a ZooKeeper round trip inside every critical section; the lock's
// rule holds throughout and nothing is left behind.
func TestLocksUnderLoad(t *testing.T) {
	mutexRule := func(inside, _ int32) bool { return inside == 1 }
	for _, tc := range []struct {
		name string
		open func(c *framework.Client, worker int) (acquireFunc, error)
		ok   func(inside, writers int32) bool
		dirs []string
	}{
		{"mutex", func(c *framework.Client, _ int) (acquireFunc, error) {
			m, err := locks.NewMutex(c, "/lock")
			return exclusive(m.Acquire), err
		}, mutexRule, []string{"/lock"}},
		{"semaphore-mutex", func(c *framework.Client, _ int) (acquireFunc, error) {
			m, err := locks.NewSemaphoreMutex(c, "/lock")
			return exclusive(m.Acquire), err
		}, mutexRule, []string{"/lock/leases", "/lock/locks"}},
		{"multi-lock", func(c *framework.Client, _ int) (acquireFunc, error) {
			m, err := locks.NewMultiMutex(c, "/a", "/b")
			if err != nil {
				return nil, err
			}
			return exclusive(m.Acquire), nil
		}, mutexRule, []string{"/a", "/b"}},
		{"semaphore-3", func(c *framework.Client, _ int) (acquireFunc, error) {
			s, err := locks.NewSemaphore(c, "/sem", 3)
			if err != nil {
				return nil, err
			}
			return func(ctx context.Context, _ int) (releaser, bool, error) {
				h, err := s.Acquire(ctx)
				return h, false, err
			}, nil
		}, func(inside, _ int32) bool { return inside <= 3 }, []string{"/sem/leases", "/sem/locks"}},
		{"read-write", func(c *framework.Client, worker int) (acquireFunc, error) {
			rw, err := locks.NewReadWriteLock(c, "/rw")
			if err != nil {
				return nil, err
			}
			return func(ctx context.Context, cycle int) (releaser, bool, error) {
				if (worker+cycle)%5 == 0 { // 20% writes, by a fixed pattern
					h, err := rw.WriteLock().Acquire(ctx)
					return h, true, err
				}
				h, err := rw.ReadLock().Acquire(ctx)
				return h, false, err
			}, nil
		}, func(inside, writers int32) bool { return writers == 0 || (writers == 1 && inside == 1) }, []string{"/rw"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			const workers, cycles = 8, 25
			cs := clients(t, workers)
			var occ occupancy
			var held, violations atomic.Int32
			g, ctx := errgroup.WithContext(ctxT(t))
			for w, c := range cs {
				acquire, err := tc.open(c, w)
				if err != nil {
					t.Fatal(err)
				}
				g.Go(func() error {
					for cycle := range cycles {
						h, write, err := acquire(ctx, cycle)
						if err != nil {
							return err
						}
						occ.enter()
						if write {
							occ.writers.Add(1)
						}
						if !tc.ok(occ.inside.Load(), occ.writers.Load()) {
							violations.Add(1)
						}
						held.Add(1)
						// A round trip inside the section widens the window in
						// which a breach would be seen.
						_, _, err = c.Exists(ctx, "/")
						if write {
							occ.writers.Add(-1)
						}
						occ.leave()
						if err != nil {
							return err
						}
						if err := h.Release(ctx); err != nil {
							return err
						}
					}
					return nil
				})
			}
			if err := g.Wait(); err != nil {
				t.Fatal(err)
			}
			if n := violations.Load(); n != 0 {
				t.Fatalf("the lock's rule was broken %d times (most inside at once: %d)", n, occ.most.Load())
			}
			if got := held.Load(); got != workers*cycles {
				t.Fatalf("%d holds, want %d", got, workers*cycles)
			}
			for _, dir := range tc.dirs {
				if kids := children(t, cs[0], dir); len(kids) != 0 {
					t.Fatalf("nodes left behind in %s: %v", dir, kids)
				}
			}
			t.Logf("most inside at once: %d", occ.most.Load())
		})
	}
}
