package locks_test

import (
	"context"
	"errors"
	"fmt"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/gocurator/curator/framework"
	"github.com/gocurator/curator/recipes/locks"
	"github.com/gocurator/curator/recipestest"
)

var rwNode = regexp.MustCompile(`^_c_[0-9a-f-]{36}-__(READ|WRIT)__\d{10}$`)

// The write holder downgrades: it takes the read lock, releases the write
// lock, and a writer queued behind it still waits for the read to go.
func TestReadWriteLockDowngrade(t *testing.T) {
	_, rw, other, octx, w := writeHeld(t)
	ctx := ctxT(t)
	got := make(chan *locks.Hold, 1)
	go func() {
		h, err := other.WriteLock().Acquire(ctx)
		if err != nil {
			t.Error(err)
		}
		got <- h
	}()
	waitParticipants(t, rw.WriteLock(), 2)
	r, err := rw.ReadLock().Acquire(octx)
	if err != nil {
		t.Fatalf("downgrade: %v", err)
	}
	_, wname := framework.SplitPath(w.Path())
	_, rname := framework.SplitPath(r.Path())
	if !rwNode.MatchString(wname) || !rwNode.MatchString(rname) || wname[len(wname)-10:] != rname[len(rname)-10:] {
		t.Fatalf("downgraded read node %q does not reuse write node %q's sequence", rname, wname)
	}
	if err := w.Release(ctx); err != nil {
		t.Fatal(err)
	}
	select {
	case <-got:
		t.Fatal("a queued writer got in while the downgraded read was held")
	default:
	}
	// The queued writer is still there, waiting on the read node.
	nodes, _ := rw.Participants(ctx)
	if len(nodes) != 2 || !strings.Contains(nodes[0], "__READ__") {
		t.Fatalf("queue after downgrade: %v", nodes)
	}
	r.Release(ctx)
	h := <-got
	h.Release(ctx)
}

// Downgrade works without the owner in the context: a write hold taken
// with a plain context downgrades through the hold itself. A hold that is
// not the lock's write hold is refused.
func TestReadWriteLockDowngradeByHold(t *testing.T) {
	cs := clients(t, 2)
	ctx := ctxT(t)
	rw, _ := locks.NewReadWriteLock(cs[0], "/rw")
	other, _ := locks.NewReadWriteLock(cs[1], "/rw")
	w, err := rw.WriteLock().Acquire(ctx) // no WithOwner: a read Acquire here would wait on w
	if err != nil {
		t.Fatal(err)
	}
	got := make(chan *locks.Hold, 1)
	go func() {
		h, err := other.WriteLock().Acquire(ctx)
		if err != nil {
			t.Error(err)
		}
		got <- h
	}()
	waitParticipants(t, rw.WriteLock(), 2)
	r, err := rw.Downgrade(ctx, w)
	if err != nil {
		t.Fatalf("Downgrade: %v", err)
	}
	if err := w.Release(ctx); err != nil {
		t.Fatal(err)
	}
	if _, err := rw.Downgrade(ctx, w); !errors.Is(err, locks.ErrNotOwner) {
		t.Fatalf("Downgrade of a released write hold: %v, want ErrNotOwner", err)
	}
	if _, err := rw.Downgrade(ctx, r); !errors.Is(err, locks.ErrNotOwner) {
		t.Fatalf("Downgrade of a read hold: %v, want ErrNotOwner", err)
	}
	select {
	case <-got:
		t.Fatal("a queued writer got in while the downgraded read was held")
	default:
	}
	r.Release(ctx)
	h := <-got
	h.Release(ctx)
}

func TestReadWriteLockRefusesUpgrade(t *testing.T) {
	c := clients(t, 1)[0]
	ctx := ctxT(t)
	rw, _ := locks.NewReadWriteLock(c, "/rw")
	octx := locks.WithOwner(ctx, locks.NewOwner())
	r, _ := rw.ReadLock().Acquire(octx)
	if _, err := rw.WriteLock().Acquire(octx); !errors.Is(err, locks.ErrUpgrade) {
		t.Fatalf("upgrade: %v, want ErrUpgrade", err)
	}
	r.Release(ctx)
	if p, _ := rw.Participants(ctx); len(p) != 0 {
		t.Fatalf("nodes left: %v", p)
	}
}

// A read hold lost to a flap but not released still refuses the upgrade,
// to its owner or, without one, to the goroutine that took it: its node may
// still be queued ahead of the write node, which would wait on it for ever.
func TestReadWriteLockRefusesUpgradeFromALostReadHold(t *testing.T) {
	for _, withOwner := range []bool{true, false} {
		t.Run(fmt.Sprint("owner=", withOwner), func(t *testing.T) {
			proxy := recipestest.StartProxy(t, server.Addr())
			c := newClientAt(t, proxy.Addr(), framework.WithNamespace(recipestest.Namespace(t)))
			ctx := ctxT(t)
			rw, _ := locks.NewReadWriteLock(c, "/rw")
			octx := ctx
			if withOwner {
				octx = locks.WithOwner(ctx, locks.NewOwner())
			}
			r, err := rw.ReadLock().Acquire(octx)
			if err != nil {
				t.Fatal(err)
			}
			proxy.DropAll() // Suspended: the read hold is lost, the session survives
			<-r.Lost()
			if err := c.BlockUntilConnected(ctx); err != nil {
				t.Fatal(err)
			}
			if ok, _, _ := c.Exists(ctx, r.Path()); !ok {
				t.Fatal("the read node is gone: the session did not survive")
			}
			wctx, cancel := context.WithTimeout(octx, 5*time.Second) // bounds the wait on itself the bug was
			defer cancel()
			if w, err := rw.WriteLock().Acquire(wctx); !errors.Is(err, locks.ErrUpgrade) {
				if err == nil {
					w.Release(ctx)
				}
				t.Fatalf("write lock for the taker of a lost, unreleased read hold: %v, want ErrUpgrade", err)
			}
			r.Release(ctx)
			if p, _ := rw.Participants(ctx); len(p) != 0 {
				t.Fatalf("nodes left: %v", p)
			}
		})
	}
}

// A reader waits on the first writer ahead of it, and readers ahead of a
// writer share the lock.
func TestReadersWaitOnTheWriterAhead(t *testing.T) {
	cs := clients(t, 3)
	ctx := ctxT(t)
	a, _ := locks.NewReadWriteLock(cs[0], "/rw")
	b, _ := locks.NewReadWriteLock(cs[1], "/rw")
	c, _ := locks.NewReadWriteLock(cs[2], "/rw")
	r1, _ := a.ReadLock().Acquire(ctx)
	wgot := make(chan *locks.Hold, 1)
	go func() { h, _ := b.WriteLock().Acquire(ctx); wgot <- h }()
	waitParticipants(t, a, 2)
	rctx, cancel := context.WithCancel(ctx)
	rgot := make(chan error, 1)
	go func() { _, err := c.ReadLock().Acquire(rctx); rgot <- err }()
	waitParticipants(t, a, 3)
	if r, _ := a.ReadLock().Participants(ctx); len(r) != 2 || !strings.Contains(r[0], locks.ReadLockName) {
		t.Fatalf("ReadLock().Participants: %v, want the two readers only, as Curator lists them", r)
	}
	if w, _ := a.WriteLock().Participants(ctx); len(w) != 1 || !strings.Contains(w[0], locks.WriteLockName) {
		t.Fatalf("WriteLock().Participants: %v, want the writer only", w)
	}
	cancel() // the late reader waited behind the writer
	if err := <-rgot; !errors.Is(err, context.Canceled) {
		t.Fatalf("reader behind a writer: %v, want it to wait", err)
	}
	r1.Release(ctx)
	w := <-wgot
	w.Release(ctx)
}

// A write hold whose node is gone cannot be downgraded: another writer may
// hold by then, and a read node on the lost write's sequence would sort
// ahead of it and let both in.
func TestReadWriteLockDowngradeOfLostWrite(t *testing.T) {
	cs, rwA, rwB, octx, wa := writeHeld(t)
	ctx := ctxT(t)
	// A's write node goes (as with an expired session), and B writes.
	if err := cs[1].Delete(ctx, wa.Path()); err != nil {
		t.Fatal(err)
	}
	wb, err := rwB.WriteLock().Acquire(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer wb.Release(ctx)
	if r, err := rwA.ReadLock().Acquire(octx); !errors.Is(err, locks.ErrLockLost) {
		if err == nil {
			r.Release(ctx)
		}
		t.Fatalf("downgrading a lost write hold while another writes: %v, want ErrLockLost", err)
	}
	if !isLost(wa.Err()) {
		t.Fatalf("the write hold after its downgrade found its node gone: Err %v, want ErrLockLost", wa.Err())
	}
	if _, name := framework.SplitPath(wb.Path()); !slices.Equal(children(t, cs[1], "/rw"), []string{name}) {
		t.Fatalf("nodes after the refused downgrade: %v, want only B's write node", children(t, cs[1], "/rw"))
	}
	if err := wa.Release(ctx); !errors.Is(err, locks.ErrLockLost) {
		t.Fatalf("releasing the lost write hold: %v", err)
	}
}

// writeHeld makes a read-write lock "/rw" on two clients; the first holds
// its write lock for the owner in octx.
func writeHeld(t *testing.T) (cs []*framework.Client, first, second *locks.ReadWriteLock, octx context.Context, w *locks.Hold) {
	t.Helper()
	cs = clients(t, 2)
	first, _ = locks.NewReadWriteLock(cs[0], "/rw")
	second, _ = locks.NewReadWriteLock(cs[1], "/rw")
	octx = locks.WithOwner(ctxT(t), locks.NewOwner())
	w, err := first.WriteLock().Acquire(octx)
	if err != nil {
		t.Fatal(err)
	}
	return cs, first, second, octx, w
}
