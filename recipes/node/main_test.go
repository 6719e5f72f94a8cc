package node_test

import (
	"context"
	"fmt"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/gocurator/curator/framework"
	"github.com/gocurator/curator/recipes/node"
	"github.com/gocurator/curator/recipestest"
	"github.com/gocurator/curator/zkharness"
)

// server is the package's shared ZooKeeper; each test works in a namespace
// of its own.
var server *zkharness.Server

func TestMain(m *testing.M) { recipestest.RunWithServer(m, &server) }

// clients starts n clients, each with its own session, in one namespace,
// on connect (the shared server if empty).
func clients(t testing.TB, connect string, n int, opts ...framework.Option) []*framework.Client {
	t.Helper()
	if connect == "" {
		connect = server.ConnectString()
	}
	ns := recipestest.Namespace(t)
	cs := make([]*framework.Client, n)
	for i := range cs {
		cs[i] = recipestest.NewClient(t, connect, append([]framework.Option{framework.WithNamespace(ns)}, opts...)...)
	}
	return cs
}

// ctxT bounds a test's calls so that a bug fails the test instead of
// hanging it; it is not a speed assertion.
func ctxT(t testing.TB) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	t.Cleanup(cancel)
	return ctx
}

// recorder keeps the events a Node's listener heard.
type recorder struct {
	mu     sync.Mutex
	events []node.Event
	more   chan struct{} // closed and replaced at each event
}

func record(t testing.TB, n *node.Node) *recorder {
	t.Helper()
	r := &recorder{more: make(chan struct{})}
	if _, err := n.AddListener(func(ev node.Event) {
		r.mu.Lock()
		r.events = append(r.events, ev)
		close(r.more)
		r.more = make(chan struct{})
		r.mu.Unlock()
	}); err != nil {
		t.Fatal(err)
	}
	return r
}

// types returns the event types heard so far.
func (r *recorder) types() []node.EventType {
	r.mu.Lock()
	defer r.mu.Unlock()
	var ts []node.EventType
	for _, ev := range r.events {
		ts = append(ts, ev.Type)
	}
	return ts
}

// waitFor waits until the events heard are want.
func (r *recorder) waitFor(t testing.TB, want ...node.EventType) {
	t.Helper()
	ctx := ctxT(t)
	for {
		r.mu.Lock()
		more := r.more
		r.mu.Unlock()
		got := r.types()
		if slices.Equal(got, want) {
			return
		}
		if len(got) >= len(want) {
			t.Fatalf("events %v, want %v", got, want)
		}
		select {
		case <-more:
		case <-ctx.Done():
			t.Fatalf("events %v, want %v: %v", got, want, ctx.Err())
		}
	}
}

// only returns the one child of dir, failing if there is not exactly one.
func only(t testing.TB, c *framework.Client, dir string) string {
	t.Helper()
	kids, _, err := c.Children(ctxT(t), dir)
	if err != nil || len(kids) != 1 {
		t.Fatalf("children of %s: %v, %v; want exactly one", dir, kids, err)
	}
	return framework.JoinPath(dir, kids[0])
}

// started starts n for the test, waits for its node and closes it when the
// test ends.
func started(t testing.TB, n *node.Node) {
	t.Helper()
	if err := n.Start(context.Background()); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { n.Close() })
	if err := n.WaitForInitialCreate(ctxT(t)); err != nil {
		t.Fatal(err)
	}
}

// owner returns the session that owns the ephemeral node at path.
func owner(t testing.TB, c *framework.Client, path string) string {
	t.Helper()
	ok, st, err := c.Exists(ctxT(t), path)
	if err != nil || !ok {
		t.Fatalf("%s: exists %v, %v", path, ok, err)
	}
	return fmt.Sprintf("%#x", st.EphemeralOwner)
}
