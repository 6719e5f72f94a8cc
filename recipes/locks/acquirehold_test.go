package locks_test

import (
	"errors"
	"testing"

	"github.com/gocurator/curator/driver"
	"github.com/gocurator/curator/framework"
	"github.com/gocurator/curator/recipes/locks"
)

// A recipe on LockInternals (a custom driver, two leases) gets holds with
// the locks' powers: a third acquirer is busy, a hold whose node goes is
// lost and told, and its fence refuses writes from then on.
func TestLockInternalsAcquireHold(t *testing.T) {
	cs := clients(t, 2)
	ctx := ctxT(t)
	li, err := locks.NewLockInternals(cs[0], "/two", "lease-", 2, driver.Standard{}, nil)
	if err != nil {
		t.Fatal(err)
	}
	a, err := li.AcquireHold(ctx, false)
	if err != nil {
		t.Fatal(err)
	}
	b, err := li.AcquireHold(ctx, false)
	if err != nil {
		t.Fatal(err)
	}
	if h, err := li.AcquireHold(ctx, true); !errors.Is(err, locks.ErrBusy) {
		t.Fatalf("a third hold of two leases: %v, %v; want ErrBusy", h, err)
	}
	lost := a.Lost()
	if err := cs[1].Delete(ctx, a.Path()); err != nil {
		t.Fatal(err)
	}
	<-lost
	if !isLost(a.Err()) {
		t.Fatalf("Err of a hold whose node went: %v", a.Err())
	}
	if _, err := cs[0].Txn(ctx, a.Fence(), framework.CreateOp("/w", nil, framework.Persistent)); !errors.Is(err, framework.ErrNoNode) {
		t.Fatalf("a write fenced by the lost hold: %v, want refused", err)
	}
	if err := a.Release(ctx); !isLost(err) {
		t.Fatalf("Release of the lost hold: %v", err)
	}
	if err := b.Release(ctx); err != nil {
		t.Fatal(err)
	}
}
