package cache_test

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/gocurator/curator/framework"
	"github.com/gocurator/curator/recipes/cache"
	"github.com/gocurator/curator/recipestest"
	"github.com/gocurator/curator/zkharness"
)

// recorder collects a cache's events.
type recorder struct {
	ch chan cache.Event
}

func record(t *testing.T, c *cache.Cache) *recorder {
	t.Helper()
	r := &recorder{ch: make(chan cache.Event, 100_000)}
	if _, err := c.AddListener(func(ev cache.Event) { r.ch <- ev }); err != nil {
		t.Fatal(err)
	}
	return r
}

// next returns the next event, or fails the test.
func (r *recorder) next(t *testing.T) cache.Event {
	t.Helper()
	select {
	case ev := <-r.ch:
		return ev
	case <-ctxT(t).Done():
		t.Fatal("no cache event")
		return cache.Event{}
	}
}

// until returns the events up to and including the first of type typ,
// written as "Type path" lines.
func (r *recorder) until(t *testing.T, typ cache.EventType) []string {
	t.Helper()
	var out []string
	for {
		ev := r.next(t)
		out = append(out, describe(ev))
		if ev.Type == typ {
			return out
		}
	}
}

func describe(ev cache.Event) string {
	switch ev.Type {
	case cache.Created:
		return fmt.Sprintf("Created %s=%s", ev.Path, ev.Node.Data)
	case cache.Changed:
		return fmt.Sprintf("Changed %s=%s->%s", ev.Path, ev.Old.Data, ev.Node.Data)
	case cache.Deleted:
		return fmt.Sprintf("Deleted %s", ev.Path)
	}
	return ev.Type.String()
}

func mustCreate(t testing.TB, c *framework.Client, path, data string) {
	t.Helper()
	if _, err := c.Create(ctxT(t), path, []byte(data), framework.WithParents()); err != nil {
		t.Fatal(err)
	}
}

func startCache(t *testing.T, c *framework.Client, path string, opts ...cache.Option) (*cache.Cache, *recorder) {
	t.Helper()
	cc, err := cache.New(c, path, opts...)
	if err != nil {
		t.Fatal(err)
	}
	r := record(t, cc)
	if err := cc.Start(context.Background()); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = cc.Close() })
	return cc, r
}

func TestTreeCacheLoadsAndFollows(t *testing.T) {
	cs := clients(t, 2)
	w := cs[1]
	mustCreate(t, w, "/cfg/a", "1")
	mustCreate(t, w, "/cfg/b/c", "2")
	cc, r := startCache(t, cs[0], "/cfg")
	load := r.until(t, cache.Initialized)
	if got := strings.Join(sortedCopy(load[:len(load)-1]), ", "); got != "Created /cfg/a=1, Created /cfg/b/c=2, Created /cfg/b=, Created /cfg=" {
		t.Fatalf("load events: %s", got)
	}
	if n, ok := cc.Get("/cfg/b/c"); !ok || string(n.Data) != "2" {
		t.Fatalf("Get(/cfg/b/c) = %+v, %v", n, ok)
	}
	if got := cc.Children("/cfg"); fmt.Sprint(got) != "[a b]" {
		t.Fatalf("Children(/cfg) = %v", got)
	}

	if _, err := w.Set(ctxT(t), "/cfg/a", []byte("3"), -1); err != nil {
		t.Fatal(err)
	}
	if got := describe(r.next(t)); got != "Changed /cfg/a=1->3" {
		t.Fatalf("after a set: %s", got)
	}
	mustCreate(t, w, "/cfg/b/d", "4")
	if got := describe(r.next(t)); got != "Created /cfg/b/d=4" {
		t.Fatalf("after a create: %s", got)
	}
	if err := w.Delete(ctxT(t), "/cfg/b", framework.WithChildren()); err != nil {
		t.Fatal(err)
	}
	var gone []string
	for range 3 {
		gone = append(gone, describe(r.next(t)))
	}
	if got := strings.Join(sortedCopy(gone), ", "); got != "Deleted /cfg/b, Deleted /cfg/b/c, Deleted /cfg/b/d" {
		t.Fatalf("after deleting a subtree: %s", got)
	}
	if cc.Len() != 2 {
		t.Fatalf("cache holds %v", cc.Snapshot())
	}
}

// TestDeleteAndRecreateIsSeen: a node deleted and created again with the
// same data, all between two reads of the cache, is reported as deleted
// and created (Curator's version check misses it).
func TestDeleteAndRecreateIsSeen(t *testing.T) {
	cs := clients(t, 2)
	w := cs[1]
	mustCreate(t, w, "/cfg/a", "same")
	cc, r := startCache(t, cs[0], "/cfg/a", cache.WithMaxDepth(0))
	r.until(t, cache.Initialized)
	before, _ := cc.Get("/cfg/a")
	// One transaction: no read of the cache can fall between the two.
	if _, err := w.Txn(ctxT(t), framework.DeleteOp("/cfg/a", -1), framework.CreateOp("/cfg/a", []byte("same"), framework.Persistent)); err != nil {
		t.Fatal(err)
	}
	got := []string{describe(r.next(t)), describe(r.next(t))}
	if strings.Join(got, ", ") != "Deleted /cfg/a, Created /cfg/a=same" {
		t.Fatalf("events %v, want the delete and the create", got)
	}
	after, _ := cc.Get("/cfg/a")
	if after.Stat.Czxid <= before.Stat.Czxid {
		t.Fatalf("czxid %d -> %d", before.Stat.Czxid, after.Stat.Czxid)
	}
}

func TestCacheOfAbsentNode(t *testing.T) {
	cs := clients(t, 2)
	cc, r := startCache(t, cs[0], "/later")
	if got := describe(r.next(t)); got != "Initialized" {
		t.Fatalf("first event %s, want Initialized (empty)", got)
	}
	mustCreate(t, cs[1], "/later", "x")
	if got := describe(r.next(t)); got != "Created /later=x" {
		t.Fatalf("after the create: %s", got)
	}
	if err := cs[1].Delete(ctxT(t), "/later"); err != nil {
		t.Fatal(err)
	}
	if got := describe(r.next(t)); got != "Deleted /later" {
		t.Fatalf("after the delete: %s", got)
	}
	mustCreate(t, cs[1], "/later", "y")
	if got := describe(r.next(t)); got != "Created /later=y" {
		t.Fatalf("after the second create: %s", got)
	}
	if cc.Len() != 1 {
		t.Fatal(cc.Snapshot())
	}
}

func TestDepthFilterAndStatsOnly(t *testing.T) {
	cs := clients(t, 1)
	c := cs[0]
	mustCreate(t, c, "/cfg/a/deep", "d")
	mustCreate(t, c, "/cfg/skip/x", "s")
	mustCreate(t, c, "/cfg/b", "b")
	cc, r := startCache(t, c, "/cfg", cache.WithMaxDepth(1), cache.WithoutData(),
		cache.WithFilter(func(p string) bool { return !strings.HasSuffix(p, "/skip") }))
	r.until(t, cache.Initialized)
	var paths []string
	for _, n := range cc.Snapshot() {
		paths = append(paths, n.Path)
		if n.Data != nil || n.Stat.Czxid == 0 {
			t.Fatalf("%s: data %q, czxid %d; want stats only", n.Path, n.Data, n.Stat.Czxid)
		}
	}
	if fmt.Sprint(paths) != "[/cfg /cfg/a /cfg/b]" {
		t.Fatalf("cached %v, want [/cfg /cfg/a /cfg/b]", paths)
	}
}

func TestBadInput(t *testing.T) {
	counter := zkharness.NewCounter()
	c := recipestest.NewClient(t, server.ConnectString(), framework.WithNamespace(recipestest.Namespace(t)), framework.WithDialer(counter.Dialer(nil)))
	before := counter.Requests()
	defer func() {
		if n := counter.Requests() - before; n != 0 {
			t.Errorf("bad input sent %d requests", n)
		}
	}()
	for _, path := range []string{"", "cfg", "/a//b", "/a/"} {
		if _, err := cache.New(c, path); !errors.Is(err, cache.ErrInvalidArg) {
			t.Errorf("New(%q) = %v", path, err)
		}
	}
	if _, err := cache.New(c, "/cfg", cache.WithMaxDepth(-1)); !errors.Is(err, cache.ErrInvalidArg) {
		t.Errorf("negative depth: %v", err)
	}
	if _, err := cache.New(nil, "/cfg"); !errors.Is(err, cache.ErrInvalidArg) {
		t.Errorf("nil client: %v", err)
	}
	cc, err := cache.New(c, "/cfg")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := cc.AddListener(nil); !errors.Is(err, cache.ErrInvalidArg) {
		t.Errorf("nil listener: %v", err)
	}
	if _, err := cache.New(c, "/cfg", cache.WithFilter(nil)); !errors.Is(err, cache.ErrInvalidArg) {
		t.Errorf("nil filter: %v", err)
	}
	if _, err := cache.New(c, "/cfg", cache.WithEventBuffer(0)); !errors.Is(err, cache.ErrInvalidArg) {
		t.Errorf("zero buffer: %v", err)
	}
	if _, err := cache.New(c, "/cfg", nil); !errors.Is(err, cache.ErrInvalidArg) {
		t.Errorf("nil option: %v", err)
	}
}

// TestCloseRemovesNothing: a cache's Close leaves the tree as it was.
func TestCloseRemovesNothing(t *testing.T) {
	cs := clients(t, 1)
	c := cs[0]
	mustCreate(t, c, "/cfg/a", "1")
	cc, r := startCache(t, c, "/cfg")
	r.until(t, cache.Initialized)
	if err := cc.Close(); err != nil {
		t.Fatal(err)
	}
	if err := cc.Close(); err != nil {
		t.Fatalf("second Close: %v, want nil: Close is idempotent", err)
	}
	if data, _, err := c.Get(ctxT(t), "/cfg/a"); err != nil || string(data) != "1" {
		t.Fatalf("after Close: %q, %v", data, err)
	}
}

func sortedCopy(s []string) []string {
	out := slices.Clone(s)
	slices.Sort(out)
	return out
}

// TestStartBeforeTheClientConnects: a cache started on a client that is
// not started yet (its reads fail) loads once the client is connected, and
// only then reports Initialized.
func TestStartBeforeTheClientConnects(t *testing.T) {
	for _, mode := range []struct {
		name    string
		opt     cache.Option
		watched []string // the paths the server then watches
	}{
		{"persistent", cache.WithPersistentWatch(), []string{"/cfg"}},
		{"one-shot", cache.WithOneShotWatches(), []string{"/cfg", "/cfg/a"}},
	} {
		t.Run(mode.name, func(t *testing.T) {
			ns := recipestest.Namespace(t)
			w := recipestest.NewClient(t, server.ConnectString(), framework.WithNamespace(ns))
			mustCreate(t, w, "/cfg/a", "1")
			// The first watch set or read fails, and is made again once connected.
			logger, failed := recipestest.LogSignal("failed on the connection")
			c, err := framework.New(server.ConnectString(), append(recipestest.ClientOptions(), framework.WithNamespace(ns), framework.WithLogger(logger))...)
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { c.Close() })
			cc, r := startCache(t, c, "/cfg", mode.opt)
			select {
			case <-failed:
			case ev := <-r.ch:
				t.Fatalf("%s before the client started", describe(ev))
			}
			if err := c.Start(context.Background()); err != nil {
				t.Fatal(err)
			}
			got := r.until(t, cache.Initialized)
			if strings.Join(sortedCopy(got[:len(got)-1]), ", ") != "Created /cfg/a=1, Created /cfg=" {
				t.Fatalf("load after connecting: %v", got)
			}
			if cc.Len() != 2 {
				t.Fatal(cc.Snapshot())
			}
			var want []string
			for _, p := range mode.watched {
				want = append(want, "/"+ns+p)
			}
			held := recipestest.WatchedPaths(t, server.Addr(), "/"+ns+"/")
			slices.Sort(held)
			if !slices.Equal(held, want) {
				t.Fatalf("the server watches %v, want %v", held, want)
			}
		})
	}
}

func TestDecoderDecodesOncePerChange(t *testing.T) {
	cs := clients(t, 1)
	c := cs[0]
	mustCreate(t, c, "/cfg/n", "1")
	cc, r := startCache(t, c, "/cfg")
	r.until(t, cache.Initialized)
	decodes := 0
	d, err := cache.NewDecoder(cc, func(b []byte) (int, error) {
		decodes++
		return strconv.Atoi(string(b))
	})
	if err != nil {
		t.Fatal(err)
	}
	for range 3 {
		if v, ok, err := d.Get("/cfg/n"); v != 1 || !ok || err != nil {
			t.Fatalf("Get = %v, %v, %v", v, ok, err)
		}
	}
	if _, err := c.Set(ctxT(t), "/cfg/n", []byte("x"), -1); err != nil {
		t.Fatal(err)
	}
	r.next(t) // Changed
	if _, ok, err := d.Get("/cfg/n"); !ok || err == nil || !strings.Contains(err.Error(), "/cfg/n") {
		t.Fatalf("Get of bad data: %v, %v", ok, err)
	}
	if _, ok, err := d.Get("/cfg/none"); ok || err != nil {
		t.Fatalf("Get of no node: %v, %v", ok, err)
	}
	if decodes != 2 {
		t.Fatalf("%d decodes for two versions", decodes)
	}
	if _, err := cache.NewDecoder[int](cc, nil); !errors.Is(err, cache.ErrInvalidArg) {
		t.Fatalf("nil decode: %v", err)
	}
}

// TestEphemeralsAreNotListed: an ephemeral node can have no children, so
// the cache reads each one (getData, with its watch) and never lists it; it
// still sees an ephemeral deleted, changed, and made again as a persistent
// node that then gets children.
func TestEphemeralsAreNotListed(t *testing.T) {
	counter := zkharness.NewCounter()
	ns := recipestest.Namespace(t)
	c := recipestest.NewClient(t, server.ConnectString(), framework.WithNamespace(ns), framework.WithDialer(counter.Dialer(nil)))
	w := recipestest.NewClient(t, server.ConnectString(), framework.WithNamespace(ns))
	ctx := ctxT(t)
	mustCreate(t, w, "/members", "")
	for i := range 10 {
		if _, err := w.Create(ctx, fmt.Sprintf("/members/m%d", i), []byte("up"), framework.WithMode(framework.Ephemeral)); err != nil {
			t.Fatal(err)
		}
	}
	lists := counter.RequestsOf(zkharness.OpGetChildren2)
	cc, _ := startCache(t, c, "/members")
	<-cc.Initialized()
	if n := counter.RequestsOf(zkharness.OpGetChildren2) - lists; n != 1 {
		t.Errorf("the load listed %d nodes, want 1 (the directory; its ephemerals cannot have children)", n)
	}
	if cc.Len() != 11 {
		t.Fatalf("cached %d nodes, want 11", cc.Len())
	}
	if _, err := w.Set(ctx, "/members/m1", []byte("busy"), -1); err != nil {
		t.Fatal(err)
	}
	if err := w.Delete(ctx, "/members/m2"); err != nil {
		t.Fatal(err)
	}
	if _, err := w.Txn(ctx, framework.DeleteOp("/members/m3", -1), framework.CreateOp("/members/m3", nil, framework.Persistent)); err != nil {
		t.Fatal(err)
	}
	mustCreate(t, w, "/members/m3/child", "")
	recipestest.Eventually(t, "the cache to follow", func() (bool, string) {
		n1, _ := cc.Get("/members/m1")
		_, has2 := cc.Get("/members/m2")
		_, hasChild := cc.Get("/members/m3/child")
		return string(n1.Data) == "busy" && !has2 && hasChild, cc.Explain("/members/m3/child")
	})
}
