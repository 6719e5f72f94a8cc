package barrier_test

import (
	"context"
	"errors"
	"fmt"
	"testing"

	"github.com/gocurator/curator/framework"
	"github.com/gocurator/curator/recipes/barrier"
	"github.com/gocurator/curator/recipestest"
	"github.com/gocurator/curator/zkharness"
)

// Waiters on three clients block while the barrier is set and all go when
// it is removed; Set and Remove are idempotent, and Wait on a barrier not
// set returns at once.
func TestBarrier(t *testing.T) {
	ns := recipestest.Namespace(t)
	ctx := ctxT(t)
	admin := recipestest.NewClient(t, server.ConnectString(), framework.WithNamespace(ns))
	b, err := barrier.NewBarrier(admin, "/a/gate")
	if err != nil {
		t.Fatal(err)
	}
	if err := b.Wait(ctx); err != nil {
		t.Fatalf("Wait on a barrier not set: %v", err)
	}
	for range 2 {
		if err := b.Set(ctx); err != nil {
			t.Fatal(err)
		}
	}
	if ok, stat, err := admin.Exists(ctx, "/a/gate"); !ok || err != nil || stat.EphemeralOwner != 0 {
		t.Fatalf("the barrier's node: %v %+v %v; want a persistent node", ok, stat, err)
	}
	const waiters = 3
	done := make(chan error, waiters)
	var wires []*zkharness.Counter
	for range waiters {
		wire := zkharness.NewCounter()
		wires = append(wires, wire)
		c := recipestest.NewClient(t, server.ConnectString(), framework.WithNamespace(ns), framework.WithDialer(wire.Dialer(nil)))
		w, err := barrier.NewBarrier(c, "/a/gate")
		if err != nil {
			t.Fatal(err)
		}
		go func() { done <- w.Wait(ctx) }()
	}
	recipestest.Eventually(t, "every waiter to watch the barrier", func() (bool, string) {
		for _, w := range wires {
			if w.RequestsOf(zkharness.OpExists) == 0 {
				return false, "a waiter has sent no exists"
			}
		}
		return true, ""
	})
	select {
	case err := <-done:
		t.Fatalf("a waiter returned while the barrier was set: %v", err)
	default:
	}
	for range 2 {
		if err := b.Remove(ctx); err != nil {
			t.Fatal(err)
		}
	}
	for range waiters {
		if err := <-done; err != nil {
			t.Fatalf("a waiter: %v", err)
		}
	}
	// A waiter that gives up returns its context's error.
	if err := b.Set(ctx); err != nil {
		t.Fatal(err)
	}
	cctx, cancel := context.WithCancel(ctx)
	cancel()
	if err := b.Wait(cctx); !errors.Is(err, context.Canceled) {
		t.Fatalf("Wait with a cancelled context: %v", err)
	}
}

// A waiter rides out a dropped connection and a session expiry: the
// barrier removed meanwhile lets it go.
func TestBarrierWaitAcrossFaults(t *testing.T) {
	ns := recipestest.Namespace(t)
	ctx := ctxT(t)
	proxy := recipestest.StartProxy(t, server.Addr())
	admin := recipestest.NewClient(t, server.ConnectString(), framework.WithNamespace(ns))
	c := recipestest.NewClient(t, proxy.Addr(), framework.WithNamespace(ns))
	b, _ := barrier.NewBarrier(admin, "/gate")
	w, _ := barrier.NewBarrier(c, "/gate")
	if err := b.Set(ctx); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- w.Wait(ctx) }()
	if err := c.InjectSessionExpiration(ctx); err != nil {
		t.Fatal(err)
	}
	proxy.Blackhole(true)
	proxy.DropAll()
	if err := b.Remove(ctx); err != nil {
		t.Fatal(err)
	}
	proxy.Blackhole(false)
	if err := <-done; err != nil {
		t.Fatalf("Wait across an expiry and a dropped connection: %v", err)
	}
}

// A Set whose caller gives up before the answer leaves the barrier set if
// its create went through: another client's Set may have found the node
// and reported the barrier set, and a delete would lower it under them.
func TestAbandonedSetLeavesTheBarrierSet(t *testing.T) {
	ns := recipestest.Namespace(t)
	ctx := ctxT(t)
	proxy := recipestest.StartProxy(t, server.Addr())
	admin := recipestest.NewClient(t, server.ConnectString(), framework.WithNamespace(ns))
	c := recipestest.NewClient(t, proxy.Addr(), framework.WithNamespace(ns))
	if _, err := admin.Create(ctx, "/keep", nil); err != nil { // the namespace's node: the Set is one create
		t.Fatal(err)
	}
	a, _ := barrier.NewBarrier(c, "/gate")
	b, _ := barrier.NewBarrier(admin, "/gate")
	held := proxy.HoldReply(zkharness.OpCreate)
	actx, cancel := context.WithCancel(ctx)
	defer cancel()
	set := make(chan error, 1)
	go func() { set <- a.Set(actx) }()
	select {
	case <-held.Arrived():
	case <-ctx.Done():
		t.Fatal("the Set sent no create")
	}
	recipestest.Eventually(t, "the abandoned create's node", func() (bool, string) {
		ok, _, err := admin.Exists(ctx, "/gate")
		return ok && err == nil, fmt.Sprint(ok, err)
	})
	if err := b.Set(ctx); err != nil { // finds the node: the barrier is set
		t.Fatal(err)
	}
	// The answer comes just after the cancel: an abandoned create waits a
	// while for it, and would undo the create before Set returns.
	cancel()
	held.Deliver()
	if err := <-set; err != nil && !errors.Is(err, context.Canceled) {
		t.Fatalf("the abandoned Set: %v", err)
	}
	if ok, _, err := admin.Exists(ctx, "/gate"); err != nil || !ok {
		t.Fatalf("the barrier b set is down: %v, %v", ok, err)
	}
}

// Bad input is refused before anything is sent.
func TestBadInput(t *testing.T) {
	wire := zkharness.NewCounter()
	c := recipestest.NewClient(t, server.ConnectString(), framework.WithDialer(wire.Dialer(nil)))
	before := wire.Requests()
	for name, err := range map[string]error{
		"nil client":     second(barrier.NewBarrier(nil, "/b")),
		"empty path":     second(barrier.NewBarrier(c, "")),
		"root":           second(barrier.NewBarrier(c, "/")),
		"relative":       second(barrier.NewDoubleBarrier(c, "b", 2)),
		"double nil":     second(barrier.NewDoubleBarrier(nil, "/b", 2)),
		"no members":     second(barrier.NewDoubleBarrier(c, "/b", 0)),
		"minus a member": second(barrier.NewDoubleBarrier(c, "/b", -1)),
		"trailing slash": second(barrier.NewDoubleBarrier(c, "/b/", 1)),
		"leave not entered": func() error {
			d, err := barrier.NewDoubleBarrier(c, "/b", 1)
			if err != nil {
				return err
			}
			return d.Leave(ctxT(t))
		}(),
	} {
		if !errors.Is(err, barrier.ErrInvalidArg) || !errors.Is(err, framework.ErrInvalidArg) {
			t.Errorf("%s: %v, want ErrInvalidArg (framework.ErrInvalidArg)", name, err)
		}
	}
	if n := wire.Requests() - before; n != 0 {
		t.Fatalf("bad input sent %d requests", n)
	}
}

func second[T any](_ T, err error) error { return err }
