package node_test

import (
	"context"
	"testing"

	"github.com/gocurator/curator/recipes/node"
	"github.com/gocurator/curator/recipestest"
)

// A listener may close its Node, as Curator's may: Close returns at once
// instead of waiting on the listener's own goroutine, and the node is
// deleted all the same.
func TestCloseFromAListener(t *testing.T) {
	recipestest.LeakCheck(t)
	cs := clients(t, "", 2)
	c, other := cs[0], cs[1]
	ctx := ctxT(t)
	n, err := node.New(c, "/n", []byte("x"))
	if err != nil {
		t.Fatal(err)
	}
	closed := make(chan error, 1)
	if _, err := n.AddListener(func(ev node.Event) {
		if ev.Type == node.Created {
			closed <- n.Close()
		}
	}); err != nil {
		t.Fatal(err)
	}
	if err := n.Start(context.Background()); err != nil {
		t.Fatal(err)
	}
	select {
	case err := <-closed:
		if err != nil {
			t.Fatalf("Close from the listener: %v", err)
		}
	case <-ctx.Done():
		t.Fatal("Close from the listener did not return")
	}
	n.Close() // from another goroutine: waits for the Node's goroutines
	if ok, _, err := other.Exists(ctx, "/n"); err != nil || ok {
		t.Fatalf("after Close the node exists: %v, %v", ok, err)
	}
}
