package cache_test

import (
	"errors"
	"fmt"
	"testing"

	"github.com/gocurator/curator/framework"
	"github.com/gocurator/curator/recipes/cache"
)

func nextCall(t *testing.T, ch <-chan string) string {
	t.Helper()
	select {
	case s := <-ch:
		return s
	case <-ctxT(t).Done():
		t.Fatal("the watcher's function was not called")
		return ""
	}
}

func TestWatchDataFollowsANodeThroughASessionLoss(t *testing.T) {
	cs := clients(t, 2)
	c, w := cs[0], cs[1]
	calls := make(chan string, 16)
	wt, err := cache.WatchData(ctxT(t), c, "/cfg/x", func(n cache.Node, exists bool, _ int) {
		calls <- fmt.Sprintf("%v %s", exists, n.Data)
	})
	if err != nil {
		t.Fatal(err)
	}
	defer wt.Close()
	if got := nextCall(t, calls); got != "false " {
		t.Fatalf("first call %q, want the node absent", got)
	}
	mustCreate(t, w, "/cfg/x", "1")
	if got := nextCall(t, calls); got != "true 1" {
		t.Fatalf("after the create: %q", got)
	}
	if err := c.InjectSessionExpiration(ctxT(t)); err != nil {
		t.Fatal(err)
	}
	if _, err := w.Set(ctxT(t), "/cfg/x", []byte("2"), -1); err != nil {
		t.Fatal(err)
	}
	if got := nextCall(t, calls); got != "true 2" {
		t.Fatalf("after a session loss and a set: %q", got)
	}
	if err := w.Delete(ctxT(t), "/cfg/x"); err != nil {
		t.Fatal(err)
	}
	if got := nextCall(t, calls); got != "false " {
		t.Fatalf("after the delete: %q", got)
	}
	if err := wt.Close(); err != nil {
		t.Fatal(err)
	}
	if err := wt.Close(); err != nil {
		t.Fatalf("second Close = %v, want nil: Close is idempotent", err)
	}
}

func TestWatchChildren(t *testing.T) {
	cs := clients(t, 2)
	c, w := cs[0], cs[1]
	calls := make(chan string, 16)
	wt, err := cache.WatchChildren(ctxT(t), c, "/svc", func(kids []string, exists bool, _ int) {
		calls <- fmt.Sprint(exists, kids)
	})
	if err != nil {
		t.Fatal(err)
	}
	defer wt.Close()
	if got := nextCall(t, calls); got != "false []" {
		t.Fatalf("first call %q", got)
	}
	mustCreate(t, w, "/svc/b", "")
	if got := nextCall(t, calls); got != "true []" && got != "true [b]" {
		t.Fatalf("after the first create: %q", got)
	} else if got == "true []" {
		if got := nextCall(t, calls); got != "true [b]" {
			t.Fatalf("then: %q", got)
		}
	}
	mustCreate(t, w, "/svc/a", "")
	if got := nextCall(t, calls); got != "true [a b]" {
		t.Fatalf("after the second create: %q", got)
	}
	if _, err := w.Set(ctxT(t), "/svc/a", []byte("x"), -1); err != nil {
		t.Fatal(err)
	}
	if err := w.Delete(ctxT(t), "/svc/b"); err != nil {
		t.Fatal(err)
	}
	if got := nextCall(t, calls); got != "true [a]" {
		t.Fatalf("after a delete (a set on a child is no change): %q", got)
	}
}

func TestWatchBadInput(t *testing.T) {
	c := clients(t, 1)[0]
	if _, err := cache.WatchData(ctxT(t), c, "bad", func(cache.Node, bool, int) {}); !errors.Is(err, cache.ErrInvalidArg) {
		t.Errorf("bad path: %v", err)
	}
	if _, err := cache.WatchData(ctxT(t), c, "/x", nil); !errors.Is(err, cache.ErrInvalidArg) {
		t.Errorf("nil function: %v", err)
	}
	if _, err := cache.WatchChildren(ctxT(t), nil, "/x", func([]string, bool, int) {}); !errors.Is(err, cache.ErrInvalidArg) {
		t.Errorf("nil client: %v", err)
	}
	_ = framework.ErrInvalidArg
}
