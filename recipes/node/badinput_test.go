package node_test

import (
	"context"
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/gocurator/curator/framework"
	"github.com/gocurator/curator/recipes/node"
	"github.com/gocurator/curator/recipestest"
	"github.com/gocurator/curator/zkharness"
)

// Bad paths, modes, TTLs and listeners, and calls out of order, return
// clear errors and send no request.
func TestBadInputSendsNothing(t *testing.T) {
	recipestest.LeakCheck(t)
	counter := zkharness.NewCounter()
	c := recipestest.NewClient(t, server.ConnectString(), framework.WithNamespace(recipestest.Namespace(t)), framework.WithDialer(counter.Dialer(nil)))
	ctx := ctxT(t)
	before := counter.Requests()
	for _, path := range []string{"", "/", "n", "/a//b", "/a/", "/a/\x00"} {
		if _, err := node.New(c, path, nil); !errors.Is(err, node.ErrInvalidArg) {
			t.Errorf("New(%q) = %v, want ErrInvalidArg", path, err)
		}
		if _, err := node.NewTTL(c, path, nil, time.Second); !errors.Is(err, node.ErrInvalidArg) {
			t.Errorf("NewTTL(%q) = %v, want ErrInvalidArg", path, err)
		}
	}
	for name, err := range map[string]error{
		"nil client":             func() error { _, err := node.New(nil, "/n", nil); return err }(),
		"nil client (TTL)":       func() error { _, err := node.NewTTL(nil, "/n", nil, time.Second); return err }(),
		"nil option":             func() error { _, err := node.New(c, "/n", nil, nil); return err }(),
		"unknown mode":           func() error { _, err := node.New(c, "/n", nil, node.WithMode(9)); return err }(),
		"TTL mode without a TTL": func() error { _, err := node.New(c, "/n", nil, node.WithMode(framework.PersistentWithTTL)); return err }(),
		"negative TTL": func() error {
			_, err := node.New(c, "/n", nil, node.WithMode(framework.PersistentWithTTL), node.WithTTL(-time.Second))
			return err
		}(),
		"TTL without a TTL mode":   func() error { _, err := node.New(c, "/n", nil, node.WithTTL(time.Second)); return err }(),
		"TTL node's TTL too short": func() error { _, err := node.NewTTL(c, "/n", nil, time.Millisecond); return err }(),
	} {
		if !errors.Is(err, node.ErrInvalidArg) {
			t.Errorf("%s: %v, want ErrInvalidArg", name, err)
		}
	}
	n, err := node.New(c, "/n", nil)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := n.AddListener(nil); !errors.Is(err, node.ErrInvalidArg) {
		t.Errorf("AddListener(nil) = %v, want ErrInvalidArg", err)
	}
	if err := n.SetData(ctx, nil); !errors.Is(err, node.ErrNotStarted) {
		t.Errorf("SetData before Start = %v, want ErrNotStarted", err)
	}
	if err := n.Close(); err != nil {
		t.Errorf("Close before Start = %v, want nil", err)
	}
	if err := n.Start(ctx); !errors.Is(err, node.ErrClosed) || !errors.Is(err, framework.ErrClosed) {
		t.Errorf("Start after Close = %v, want ErrClosed (and framework.ErrClosed)", err)
	}
	tn, _ := node.NewTTL(c, "/t", nil, time.Second)
	if err := tn.Close(); err != nil {
		t.Errorf("TTL node's Close before Start = %v", err)
	}
	if err := tn.Start(ctx); !errors.Is(err, framework.ErrClosed) {
		t.Errorf("TTL node's Start after Close = %v, want ErrClosed", err)
	}
	if got := counter.Requests() - before; got != 0 {
		t.Fatalf("bad input sent %d requests", got)
	}

	n2, _ := node.New(c, "/n2", nil)
	if err := n2.Start(context.Background()); err != nil {
		t.Fatal(err)
	}
	defer n2.Close()
	if err := n2.Start(context.Background()); !errors.Is(err, node.ErrAlreadyStarted) {
		t.Errorf("second Start = %v, want ErrAlreadyStarted", err)
	}
}

// On a server without TTL nodes, a Node in a TTL mode and a TTLNode fail
// Start with ErrTTLUnsupported and leave nothing behind.
func TestTTLUnsupported(t *testing.T) {
	recipestest.LeakCheck(t)
	srv := recipestest.StartServer(t, zkharness.WithoutExtendedTypes())
	c := clients(t, srv.ConnectString(), 1)[0]
	ctx := ctxT(t)
	for _, mode := range []framework.CreateMode{framework.PersistentWithTTL, framework.PersistentSequentialWithTTL} {
		n, _ := node.New(c, "/dir/ttl", nil, node.WithMode(mode), node.WithTTL(time.Second))
		err := n.Start(ctx)
		if !errors.Is(err, node.ErrTTLUnsupported) {
			t.Fatalf("mode %d: Start = %v, want ErrTTLUnsupported", mode, err)
		}
		t.Logf("mode %d: %v", mode, err)
		if err := n.WaitForInitialCreate(ctx); !errors.Is(err, node.ErrClosed) {
			t.Fatalf("after the failed Start: %v, want ErrClosed", err)
		}
	}
	tn, _ := node.NewTTL(c, "/dir/kept", []byte("x"), time.Second)
	if err := tn.Start(ctx); !errors.Is(err, node.ErrTTLUnsupported) {
		t.Fatalf("TTL node: Start = %v, want ErrTTLUnsupported", err)
	}
	tn.Close()
	if ok, _, err := c.Exists(ctx, "/dir"); ok || err != nil {
		t.Fatalf("something was left: /dir exists %v, %v", ok, err)
	}
}

// A TTLNode's container lives while it touches the child, well past the
// TTL, and goes after Close: the child expires, then the server reaps the
// empty container. A TTL-mode Node works on a server with TTL nodes.
func TestTTLNode(t *testing.T) {
	recipestest.LeakCheck(t)
	cs := clients(t, "", 2)
	c, other := cs[0], cs[1]
	ctx := ctxT(t)
	const ttl = 2 * time.Second // touched every second: a loaded machine keeps up
	tn, err := node.NewTTL(c, "/svc/alive", []byte("data"), ttl)
	if err != nil {
		t.Fatal(err)
	}
	if err := tn.Start(context.Background()); err != nil {
		t.Fatal(err)
	}
	defer tn.Close()
	if data, _, err := other.Get(ctx, "/svc/alive"); string(data) != "data" || err != nil {
		t.Fatalf("container: %q, %v", data, err)
	}
	// Watch three touches: the child lives on past its TTL.
	var first time.Time
	for i := range 3 {
		_, st, w, err := other.GetW(ctx, "/svc/alive/touch")
		if err != nil {
			t.Fatalf("touch %d: %v", i, err)
		}
		if i == 0 {
			first = time.UnixMilli(st.Mtime)
		}
		if ev, err := w.Wait(ctx); err != nil || ev.Type != framework.EventNodeDataChanged {
			t.Fatalf("touch %d: %+v, %v", i, ev, err)
		}
	}
	_, st, err := other.Get(ctx, "/svc/alive/touch")
	if err != nil || time.UnixMilli(st.Mtime).Sub(first) < ttl {
		t.Fatalf("after three touches: %+v, %v", st, err)
	}
	if err := tn.SetData(ctx, []byte("new")); err != nil {
		t.Fatal(err)
	}
	if data, _, _ := other.Get(ctx, "/svc/alive"); string(data) != "new" {
		t.Fatalf("container after SetData: %q", data)
	}
	if err := tn.Close(); err != nil {
		t.Fatal(err)
	}
	if ok, _, _ := other.Exists(ctx, "/svc/alive"); !ok {
		t.Fatal("Close deleted the container: it is left to expire")
	}
	recipestest.Eventually(t, "the container to go after its TTL", func() (bool, string) {
		ok, _, err := other.Exists(ctx, "/svc")
		return !ok && err == nil, fmt.Sprint(ok, err)
	})

	n, _ := node.New(c, "/ttl/n-", []byte("x"), node.WithMode(framework.PersistentSequentialWithTTL), node.WithTTL(time.Minute))
	started(t, n)
	if _, name := framework.SplitPath(n.Path()); !framework.IsProtected(name) {
		t.Fatalf("TTL sequential node %s", n.Path())
	}
	n.Close()
	if ok, _, _ := other.Exists(ctx, n.Path()); ok {
		t.Fatal("the TTL node is left after Close")
	}
}
