package node_test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"testing"

	"github.com/gocurator/curator/framework"
	"github.com/gocurator/curator/recipes/node"
	"github.com/gocurator/curator/recipestest"
)

// A Node makes its ephemeral node with its data, keeps the data current,
// and deletes the node on Close.
func TestNodeLifecycle(t *testing.T) {
	recipestest.LeakCheck(t)
	cs := clients(t, "", 2)
	c, other := cs[0], cs[1]
	ctx := ctxT(t)
	n, err := node.New(c, "/members/a", []byte("v1"))
	if err != nil {
		t.Fatal(err)
	}
	r := record(t, n)
	started(t, n)
	if n.Path() != "/members/a" {
		t.Fatalf("Path = %q", n.Path())
	}
	data, st, err := other.Get(ctx, "/members/a")
	if err != nil || string(data) != "v1" || st.EphemeralOwner != c.SessionID() {
		t.Fatalf("node: %q, %+v, %v; want v1 owned by %#x", data, st, err, c.SessionID())
	}
	if err := n.SetData(ctx, []byte("v2")); err != nil {
		t.Fatal(err)
	}
	if data, _, _ := other.Get(ctx, "/members/a"); string(data) != "v2" || !bytes.Equal(n.Data(), []byte("v2")) {
		t.Fatalf("after SetData the node holds %q, Data %q; want v2", data, n.Data())
	}
	if err := n.Close(); err != nil {
		t.Fatal(err)
	}
	if ok, _, _ := other.Exists(ctx, "/members/a"); ok {
		t.Fatal("the node is still there after Close")
	}
	r.waitFor(t, node.Created)
	if err := n.SetData(ctx, nil); !errors.Is(err, node.ErrClosed) || !errors.Is(err, framework.ErrClosed) {
		t.Fatalf("SetData after Close: %v, want ErrClosed", err)
	}
	if err := n.Close(); err != nil {
		t.Fatalf("a second Close: %v", err)
	}
}

// Deleted by someone else, the node comes back with its data; the
// listeners hear Lost, then Created.
func TestDeletedNodeComesBack(t *testing.T) {
	recipestest.LeakCheck(t)
	for _, mode := range []framework.CreateMode{framework.Ephemeral, framework.Persistent, framework.EphemeralSequential, framework.PersistentSequential, framework.Container} {
		t.Run(fmt.Sprint(mode), func(t *testing.T) {
			cs := clients(t, "", 2)
			c, other := cs[0], cs[1]
			ctx := ctxT(t)
			n, _ := node.New(c, "/dir/n", []byte("mine"), node.WithMode(mode))
			r := record(t, n)
			started(t, n)
			path := only(t, other, "/dir")
			if path != n.Path() {
				t.Fatalf("the node is %s, Path says %s", path, n.Path())
			}
			for round := range 3 {
				if err := other.Delete(ctx, path); err != nil {
					t.Fatal(err)
				}
				want := []node.EventType{node.Created}
				for range round + 1 {
					want = append(want, node.Lost, node.Created)
				}
				r.waitFor(t, want...)
				if got := only(t, other, "/dir"); got != path {
					t.Fatalf("round %d: the node came back as %s, want %s", round, got, path)
				}
				if data, _, _ := other.Get(ctx, path); string(data) != "mine" {
					t.Fatalf("round %d: the node holds %q", round, data)
				}
			}
			n.Close()
			recipestest.Eventually(t, "the node and its container parent to go", func() (bool, string) {
				ok, _, err := other.Exists(ctx, "/dir")
				return !ok && err == nil, fmt.Sprint(ok, err)
			})
		})
	}
}

// A node someone else changed keeps their data (Curator does not fight
// other writers); a node found in place at start is adopted and given
// this Node's data.
func TestAdoptsExistingNode(t *testing.T) {
	recipestest.LeakCheck(t)
	cs := clients(t, "", 2)
	c, other := cs[0], cs[1]
	ctx := ctxT(t)
	if _, err := other.Create(ctx, "/a", []byte("theirs"), framework.WithMode(framework.Persistent)); err != nil {
		t.Fatal(err)
	}
	n, _ := node.New(c, "/a", []byte("mine"), node.WithMode(framework.Persistent))
	r := record(t, n)
	started(t, n)
	if data, _, _ := other.Get(ctx, "/a"); string(data) != "mine" {
		t.Fatalf("the adopted node holds %q, want mine", data)
	}
	if _, err := other.Set(ctx, "/a", []byte("theirs again"), -1); err != nil {
		t.Fatal(err)
	}
	if err := n.SetData(ctx, []byte("mine again")); err != nil {
		t.Fatal(err)
	}
	if data, _, _ := other.Get(ctx, "/a"); string(data) != "mine again" {
		t.Fatalf("the node holds %q after SetData", data)
	}
	r.waitFor(t, node.Created)
}

// SetData before the first create is the data the node is made with; a
// Node whose parent is missing WithoutParents says why it waits, and makes
// the node once the parent is there.
func TestWaitForInitialCreate(t *testing.T) {
	recipestest.LeakCheck(t)
	cs := clients(t, "", 2)
	c, other := cs[0], cs[1]
	ctx := ctxT(t)
	n, _ := node.New(c, "/parent/n", []byte("first"), node.WithoutParents())
	if err := n.WaitForInitialCreate(ctx); !errors.Is(err, node.ErrNotStarted) {
		t.Fatalf("before Start: %v, want ErrNotStarted", err)
	}
	r := record(t, n)
	if err := n.Start(context.Background()); err != nil {
		t.Fatal(err)
	}
	defer n.Close()
	if err := n.WaitForInitialCreate(ctx); !errors.Is(err, framework.ErrNoNode) {
		t.Fatalf("with its parent missing: %v, want ErrNoNode", err)
	}
	if n.Path() != "" {
		t.Fatalf("Path before the first create = %q", n.Path())
	}
	setCtx, cancel := context.WithCancel(ctx)
	cancel()
	if err := n.SetData(setCtx, []byte("second")); !errors.Is(err, context.Canceled) {
		t.Fatalf("SetData with its context ended: %v", err)
	}
	if _, err := other.Create(ctx, "/parent", nil); err != nil {
		t.Fatal(err)
	}
	r.waitFor(t, node.Created)
	if err := n.WaitForInitialCreate(ctx); err != nil {
		t.Fatal(err)
	}
	if data, _, _ := other.Get(ctx, "/parent/n"); string(data) != "second" {
		t.Fatalf("the node was made with %q, want the data set before", data)
	}
}

// When the context given to Start ends, the Node stops and deletes its
// node, as Close does.
func TestStartContextIsTheLifetime(t *testing.T) {
	recipestest.LeakCheck(t)
	cs := clients(t, "", 2)
	c, other := cs[0], cs[1]
	ctx := ctxT(t)
	life, end := context.WithCancel(context.Background())
	n, _ := node.New(c, "/n", nil, node.WithMode(framework.Persistent))
	if err := n.Start(life); err != nil {
		t.Fatal(err)
	}
	if err := n.WaitForInitialCreate(ctx); err != nil {
		t.Fatal(err)
	}
	end()
	recipestest.Eventually(t, "the node to go when its context ends", func() (bool, string) {
		ok, _, err := other.Exists(ctx, "/n")
		return !ok && err == nil, fmt.Sprint(ok, err)
	})
	if err := n.WaitForInitialCreate(ctx); !errors.Is(err, node.ErrClosed) {
		t.Fatalf("after its context ended: %v, want ErrClosed", err)
	}
	if err := n.Close(); err != nil {
		t.Fatal(err)
	}
}
