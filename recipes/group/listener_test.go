package group_test

import (
	"testing"

	"github.com/gocurator/curator/recipes/group"
	"github.com/gocurator/curator/recipestest"
)

// A listener may close its Member, as Curator's may: Close returns instead
// of waiting on the listener's own goroutine, and the member leaves the
// group.
func TestCloseFromAListener(t *testing.T) {
	recipestest.LeakCheck(t)
	cs := clients(t, server.ConnectString(), recipestest.Namespace(t), 2)
	ctx := ctxT(t)
	m := member(t, cs[0], "a", "A")
	closed := make(chan error, 1)
	if _, err := m.AddListener(func(ev group.Event) {
		if ev.Type == group.Joined && ev.ID == "a" {
			closed <- m.Close()
		}
	}); err != nil {
		t.Fatal(err)
	}
	start(t, m)
	select {
	case err := <-closed:
		if err != nil {
			t.Fatalf("Close from the listener: %v", err)
		}
	case <-ctx.Done():
		t.Fatal("Close from the listener did not return")
	}
	m.Close() // from another goroutine: waits for the Member's goroutines
	if ok, _, err := cs[1].Exists(ctx, "/group/a"); err != nil || ok {
		t.Fatalf("after Close the member's node exists: %v, %v", ok, err)
	}
}
