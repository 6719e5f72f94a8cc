package cache_test

import (
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/gocurator/curator/framework"
	"github.com/gocurator/curator/recipes/cache"
)

// TestChildrenOnlyReportsOnlyChildren: the children shape is Curator's
// PathChildrenCache: the load reports the children and Initialized, never
// the parent; a change of the parent's data, its deletion and its creation
// report nothing of the parent itself (its deletion reports its
// children's); Get, Snapshot and Len leave it out. Its children keep the
// child counts of their latest read (they are at the maximum depth, and
// not listed), as documented.
func TestChildrenOnlyReportsOnlyChildren(t *testing.T) {
	cs := clients(t, 2)
	w := cs[1]
	mustCreate(t, w, "/members/m1/x", "deep")
	mustCreate(t, w, "/members/m2", "b")
	cc, r := startCache(t, cs[0], "/members", cache.WithChildrenOnly())
	load := r.until(t, cache.Initialized)
	if got := strings.Join(sortedCopy(load[:len(load)-1]), ", "); got != "Created /members/m1=, Created /members/m2=b" {
		t.Fatalf("load events: %s, want the children only", got)
	}
	if _, ok := cc.Get("/members"); ok {
		t.Fatal("Get returns the parent")
	}
	if n, ok := cc.Get("/members/m2"); !ok || string(n.Data) != "b" {
		t.Fatalf("Get(/members/m2) = %+v, %v", n, ok)
	}
	if cc.Len() != 2 || fmt.Sprint(paths(cc.Snapshot())) != "[/members/m1 /members/m2]" || fmt.Sprint(cc.Children("/members")) != "[m1 m2]" {
		t.Fatalf("Len %d, Snapshot %v, Children %v: want the two children", cc.Len(), paths(cc.Snapshot()), cc.Children("/members"))
	}

	ctx := ctxT(t)
	if _, err := w.Set(ctx, "/members", []byte("parent data"), -1); err != nil {
		t.Fatal(err)
	}
	mustCreate(t, w, "/members/m1/y", "deeper") // a grandchild: beyond the depth
	mustCreate(t, w, "/members/m3", "c")
	seen := eventsUntil(t, r, "/members/m3")

	// Documented, not a fault: m1, at the maximum depth, keeps the child
	// fields of its latest read.
	_, onServer, err := w.Exists(ctx, "/members/m1")
	if err != nil {
		t.Fatal(err)
	}
	if m1, _ := cc.Get("/members/m1"); m1.Stat.NumChildren != 1 || onServer.NumChildren != 2 {
		t.Fatalf("m1 has %d children cached, %d on the server; want the stale 1 and 2", m1.Stat.NumChildren, onServer.NumChildren)
	}

	if err := w.Delete(ctx, "/members", framework.WithChildren()); err != nil {
		t.Fatal(err)
	}
	mustCreate(t, w, "/members/m9", "z") // the parent again, with a child
	seen = append(seen, eventsUntil(t, r, "/members/m9")...)
	for _, ev := range seen {
		if strings.HasSuffix(ev, " /members") || strings.Contains(ev, " /members=") || strings.Contains(ev, "/members/m1/") {
			t.Fatalf("events %v: the parent's own (or a grandchild's)", seen)
		}
	}
	if got := strings.Join(sortedCopy(seen), ", "); got != "Created /members/m3=c, Created /members/m9=z, Deleted /members/m1, Deleted /members/m2, Deleted /members/m3" {
		t.Fatalf("events %s", got)
	}
}

// eventsUntil returns the events up to and including the first of path.
func eventsUntil(t *testing.T, r *recorder, path string) []string {
	t.Helper()
	var seen []string
	for {
		ev := r.next(t)
		seen = append(seen, describe(ev))
		if ev.Path == path {
			return seen
		}
	}
}

func paths(ns []cache.Node) []string {
	var out []string
	for _, n := range ns {
		out = append(out, n.Path)
	}
	return out
}

// TestChildrenOnlyRefusesAnotherDepth: the children shape is one level.
func TestChildrenOnlyRefusesAnotherDepth(t *testing.T) {
	c := clients(t, 1)[0]
	if _, err := cache.New(c, "/m", cache.WithChildrenOnly(), cache.WithMaxDepth(2)); !errors.Is(err, cache.ErrInvalidArg) {
		t.Fatalf("WithChildrenOnly with depth 2: %v, want ErrInvalidArg", err)
	}
	if _, err := cache.New(c, "/m", cache.WithMaxDepth(1), cache.WithChildrenOnly()); err != nil {
		t.Fatalf("WithChildrenOnly with depth 1: %v", err)
	}
}
