package shared_test

import (
	"context"
	"errors"
	"testing"

	"github.com/gocurator/curator/framework"
	"github.com/gocurator/curator/recipes/shared"
	"github.com/gocurator/curator/recipestest"
	"github.com/gocurator/curator/zkharness"
)

// TestLifecycleRule: docs/lifecycle.md's rule. Close before Start is
// allowed and sends nothing, and a later Start fails with ErrClosed, which
// is framework.ErrClosed too; a second Start is ErrAlreadyStarted; Close
// is idempotent; calls after Close are ErrClosed.
func TestLifecycleRule(t *testing.T) {
	counter := zkharness.NewCounter()
	c := recipestest.NewClient(t, server.ConnectString(), framework.WithNamespace(recipestest.Namespace(t)), framework.WithDialer(counter.Dialer(nil)))
	before := counter.Requests()
	early, err := shared.NewCount(c, "/count", 0)
	if err != nil {
		t.Fatal(err)
	}
	for i := range 2 {
		if err := early.Close(); err != nil {
			t.Fatalf("Close #%d before Start = %v, want nil", i+1, err)
		}
	}
	if err := early.Start(context.Background()); !errors.Is(err, shared.ErrClosed) || !errors.Is(err, framework.ErrClosed) {
		t.Fatalf("Start after Close = %v, want ErrClosed and framework.ErrClosed", err)
	}
	if n := counter.Requests() - before; n != 0 {
		t.Fatalf("a count closed before Start sent %d requests", n)
	}

	v, err := shared.NewValue(c, "/value", []byte("seed"))
	if err != nil {
		t.Fatal(err)
	}
	if err := v.Start(t.Context()); err != nil {
		t.Fatal(err)
	}
	if err := v.Start(t.Context()); !errors.Is(err, shared.ErrAlreadyStarted) {
		t.Fatalf("second Start = %v, want ErrAlreadyStarted", err)
	}
	for i := range 2 {
		if err := v.Close(); err != nil {
			t.Fatalf("Close #%d = %v, want nil", i+1, err)
		}
	}
	if err := v.Set(ctxT(t), []byte("x")); !errors.Is(err, shared.ErrClosed) {
		t.Fatalf("Set after Close = %v, want ErrClosed", err)
	}
}

// TestLifecycleStartContextEnds: the context given to Start is the Value's
// lifetime. When it ends, the Value stops as Close stops it, with no Close:
// every goroutine it started is gone while its client still runs, and its
// calls return ErrClosed. A Start that fails leaves nothing running either.
func TestLifecycleStartContextEnds(t *testing.T) {
	c := clients(t, 1)[0]
	if _, err := c.Create(ctxT(t), "/notcount", []byte("abc")); err != nil {
		t.Fatal(err)
	}
	before := recipestest.IgnoreClients(t, c) // the client's goroutines
	app, cancel := context.WithCancel(context.Background())
	defer cancel()
	cnt, err := shared.NewCount(c, "/count", 7)
	if err != nil {
		t.Fatal(err)
	}
	if err := cnt.Start(app); err != nil {
		t.Fatal(err)
	}
	heard := make(chan int32, 1)
	cnt.AddListener(func(n int32) { heard <- n })
	if err := cnt.Set(ctxT(t), 8); err != nil {
		t.Fatal(err)
	}
	<-heard // the listeners' goroutine runs
	bad, err := shared.NewCount(c, "/notcount", 0)
	if err != nil {
		t.Fatal(err)
	}
	if err := bad.Start(app); !errors.Is(err, framework.ErrInvalidArg) {
		t.Fatalf("Start on a node that is not a count = %v, want ErrInvalidArg", err)
	}

	cancel() // the application shuts down
	recipestest.VerifyNone(t, before)
	if err := cnt.Set(ctxT(t), 9); !errors.Is(err, shared.ErrClosed) {
		t.Fatalf("Set after the context ended = %v, want ErrClosed", err)
	}
	if _, err := bad.TrySet(ctxT(t), bad.Get(), 1); err == nil {
		t.Fatal("TrySet on a count whose Start failed succeeded")
	}
	if err := cnt.Close(); err != nil {
		t.Fatalf("Close after the context ended = %v, want nil", err)
	}
}
