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

// TestWatchedReadsReachTheListeners: GetWatched, ChildrenWatched and
// ExistsWatched answer as Get, Children and Exists do and set the watches
// GetW, ChildrenW and ExistsW set, each firing once, to the watch
// listeners.
func TestWatchedReadsReachTheListeners(t *testing.T) {
	c := newClient(t)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if _, err := c.Create(ctx, "/app/a", []byte("a0"), framework.WithParents()); err != nil {
		t.Fatal(err)
	}
	got := make(chan framework.WatchEvent, 16)
	remove, err := c.AddWatchListener("/app", func(ev framework.WatchEvent) { got <- ev })
	if err != nil {
		t.Fatal(err)
	}
	defer remove()
	data, stat, err := c.GetWatched(ctx, "/app/a")
	if err != nil || string(data) != "a0" || stat == nil || stat.DataLength != 2 {
		t.Fatalf("GetWatched: %q %+v %v", data, stat, err)
	}
	names, stat, err := c.ChildrenWatched(ctx, "/app")
	if err != nil || len(names) != 1 || names[0] != "a" || stat.NumChildren != 1 {
		t.Fatalf("ChildrenWatched: %v %+v %v", names, stat, err)
	}
	ok, stat, err := c.ExistsWatched(ctx, "/app/b")
	if err != nil || ok || stat != nil {
		t.Fatalf("ExistsWatched on a missing node: %v %+v %v", ok, stat, err)
	}
	if _, _, err := c.GetWatched(ctx, "/app/none"); !errors.Is(err, framework.ErrNoNode) {
		t.Fatalf("GetWatched on a missing node: %v", err)
	}
	if _, _, err := c.ChildrenWatched(ctx, "app"); !errors.Is(err, framework.ErrInvalidPath) {
		t.Fatalf("ChildrenWatched on a bad path: %v", err)
	}
	// Each change twice: the second fires nothing, the watches being one-shot.
	for range 2 {
		if _, err := c.Set(ctx, "/app/a", []byte("a1"), -1); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := c.Create(ctx, "/app/b", nil); err != nil {
		t.Fatal(err)
	}
	if _, err := c.Create(ctx, "/app/c", nil); err != nil {
		t.Fatal(err)
	}
	if _, _, err := c.Exists(ctx, "/"); err != nil { // every notification comes before this reply
		t.Fatal(err)
	}
	for _, want := range []framework.WatchEvent{
		{Type: framework.EventNodeDataChanged, Path: "/app/a"},
		{Type: framework.EventNodeCreated, Path: "/app/b"},
		{Type: framework.EventNodeChildrenChanged, Path: "/app"},
	} {
		select {
		case ev := <-got:
			if ev != want {
				t.Fatalf("got %+v, want %+v", ev, want)
			}
		default:
			t.Fatalf("no notification; want %+v", want)
		}
	}
	select {
	case ev := <-got:
		t.Fatalf("a watch fired twice: %+v", ev)
	default:
	}
}
