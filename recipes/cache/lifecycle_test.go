package cache_test

import (
	"context"
	"errors"
	"testing"

	"github.com/gocurator/curator/framework"
	"github.com/gocurator/curator/recipes/cache"
	"github.com/gocurator/curator/recipestest"
	"github.com/gocurator/curator/zkharness"
)

// TestLifecycleRule: docs/lifecycle.md's rule. Close before Start is
// allowed and sends nothing, and a later Start fails with ErrClosed, which
// is framework.ErrClosed too; a second Start is ErrAlreadyStarted; Close
// is idempotent, a Watcher's too.
func TestLifecycleRule(t *testing.T) {
	counter := zkharness.NewCounter()
	c := recipestest.NewClient(t, server.ConnectString(), framework.WithNamespace(recipestest.Namespace(t)), framework.WithDialer(counter.Dialer(nil)))
	before := counter.Requests()
	early, err := cache.New(c, "/cfg")
	if err != nil {
		t.Fatal(err)
	}
	for i := range 2 {
		if err := early.Close(); err != nil {
			t.Fatalf("Close #%d before Start = %v, want nil", i+1, err)
		}
	}
	if err := early.Start(context.Background()); !errors.Is(err, cache.ErrClosed) || !errors.Is(err, framework.ErrClosed) {
		t.Fatalf("Start after Close = %v, want ErrClosed and framework.ErrClosed", err)
	}
	if n := counter.Requests() - before; n != 0 {
		t.Fatalf("a cache closed before Start sent %d requests", n)
	}

	cc, r := startCache(t, c, "/cfg")
	r.until(t, cache.Initialized)
	if err := cc.Start(context.Background()); !errors.Is(err, cache.ErrAlreadyStarted) {
		t.Fatalf("second Start = %v, want ErrAlreadyStarted", err)
	}
	for i := range 2 {
		if err := cc.Close(); err != nil {
			t.Fatalf("Close #%d = %v, want nil", i+1, err)
		}
	}

	w, err := cache.WatchData(context.Background(), c, "/cfg", func(cache.Node, bool, int) {})
	if err != nil {
		t.Fatal(err)
	}
	for i := range 2 {
		if err := w.Close(); err != nil {
			t.Fatalf("Watcher.Close #%d = %v, want nil", i+1, err)
		}
	}
}

// TestLifecycleStartContextEnds: the context given to Start (to WatchData
// and WatchChildren) is the lifetime. When it ends, the cache and the
// watchers stop as Close stops them, with no Close: every goroutine they
// started is gone while their client still runs. A Close afterwards
// returns nil.
func TestLifecycleStartContextEnds(t *testing.T) {
	cs := clients(t, 2)
	c, w := cs[0], cs[1]
	mustCreate(t, w, "/cfg/a", "1")
	before := recipestest.IgnoreClients(t, cs...) // the clients' goroutines
	app, cancel := context.WithCancel(context.Background())
	defer cancel()

	cc, err := cache.New(c, "/cfg")
	if err != nil {
		t.Fatal(err)
	}
	r := record(t, cc)
	if err := cc.Start(app); err != nil {
		t.Fatal(err)
	}
	r.until(t, cache.Initialized)
	data, err := cache.WatchData(app, c, "/cfg/a", func(cache.Node, bool, int) {})
	if err != nil {
		t.Fatal(err)
	}
	kids, err := cache.WatchChildren(app, c, "/cfg", func([]string, bool, int) {})
	if err != nil {
		t.Fatal(err)
	}

	cancel() // the application shuts down
	recipestest.VerifyNone(t, before)
	if err := cc.Start(context.Background()); !errors.Is(err, cache.ErrClosed) {
		t.Fatalf("Start after the context ended = %v, want ErrClosed", err)
	}
	for _, closer := range []interface{ Close() error }{cc, data, kids} {
		if err := closer.Close(); err != nil {
			t.Errorf("Close after the context ended = %v, want nil", err)
		}
	}
}
