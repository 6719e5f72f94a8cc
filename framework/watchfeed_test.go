package framework_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/gocurator/curator/framework"
)

// TestWatchListenerSeesItsSubtree: a watch listener receives the
// notifications of watches set through the client for its path and below,
// with the namespace stripped, in the server's order, and nothing once
// removed.
func TestWatchListenerSeesItsSubtree(t *testing.T) {
	c := newClient(t)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	for _, p := range []string{"/app/a", "/app/b", "/other"} {
		if _, err := c.Create(ctx, p, nil, framework.WithParents()); err != nil {
			t.Fatal(err)
		}
	}
	got := make(chan framework.WatchEvent, 16)
	remove, err := c.AddWatchListener("/app", func(ev framework.WatchEvent) { got <- ev })
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range []string{"/app/a", "/other"} {
		if _, _, _, err := c.GetW(ctx, p); err != nil {
			t.Fatal(err)
		}
	}
	if _, _, _, err := c.ChildrenW(ctx, "/app"); err != nil {
		t.Fatal(err)
	}
	if _, err := c.Set(ctx, "/other", []byte("x"), -1); err != nil { // outside: not delivered
		t.Fatal(err)
	}
	if _, err := c.Set(ctx, "/app/a", []byte("x"), -1); err != nil {
		t.Fatal(err)
	}
	if _, err := c.Create(ctx, "/app/c", nil); err != nil {
		t.Fatal(err)
	}
	for _, want := range []framework.WatchEvent{
		{Type: framework.EventNodeDataChanged, Path: "/app/a"},
		{Type: framework.EventNodeChildrenChanged, Path: "/app"},
	} {
		select {
		case ev := <-got:
			if ev != want {
				t.Fatalf("got %+v, want %+v", ev, want)
			}
		case <-ctx.Done():
			t.Fatal("no notification")
		}
	}
	remove()
	remove() // a second call is harmless
	if _, _, _, err := c.GetW(ctx, "/app/b"); err != nil {
		t.Fatal(err)
	}
	if _, err := c.Set(ctx, "/app/b", []byte("x"), -1); err != nil {
		t.Fatal(err)
	}
	if _, _, err := c.Exists(ctx, "/"); err != nil { // the notification comes before this reply
		t.Fatal(err)
	}
	select {
	case ev := <-got:
		t.Fatalf("notification %+v after remove", ev)
	default:
	}
	if _, err := c.AddWatchListener("bad", func(framework.WatchEvent) {}); !errors.Is(err, framework.ErrInvalidArg) || !errors.Is(err, framework.ErrInvalidPath) {
		t.Fatalf("bad path: %v", err)
	}
	if _, err := c.AddWatchListener("/app", nil); !errors.Is(err, framework.ErrInvalidArg) {
		t.Fatalf("nil function: %v", err)
	}
}
