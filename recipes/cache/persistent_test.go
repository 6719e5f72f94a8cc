package cache_test

import (
	"bytes"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/gocurator/curator/framework"
	"github.com/gocurator/curator/recipes/cache"
	"github.com/gocurator/curator/recipestest"
	"github.com/gocurator/curator/zkharness"
)

// TestPersistentWatchFollowsTheTree: a cache kept by one persistent
// recursive watch loads and follows creates at any depth, changes, a
// subtree's delete and a delete and re-create, as the one-shot mode does;
// the server holds that one watch for it (none per node), and none once
// the cache is closed.
func TestPersistentWatchFollowsTheTree(t *testing.T) {
	ns := recipestest.Namespace(t)
	cs := clients(t, 2, framework.WithNamespace(ns))
	w := cs[1]
	ctx := ctxT(t)
	mustCreate(t, w, "/cfg/a", "1")
	mustCreate(t, w, "/cfg/b/c", "2")
	cc, r := startCache(t, cs[0], "/cfg", cache.WithPersistentWatch())
	load := r.until(t, cache.Initialized)
	if got := strings.Join(sortedCopy(load[:len(load)-1]), ", "); got != "Created /cfg/a=1, Created /cfg/b/c=2, Created /cfg/b=, Created /cfg=" {
		t.Fatalf("load events: %s", got)
	}
	if held := recipestest.WatchedPaths(t, server.Addr(), "/"+ns+"/"); !slices.Equal(held, []string{"/" + ns + "/cfg"}) {
		t.Fatalf("the server holds watches on %v, want the cache's path alone", held)
	}

	if _, err := w.Set(ctx, "/cfg/a", []byte("3"), -1); err != nil {
		t.Fatal(err)
	}
	if got := describe(r.next(t)); got != "Changed /cfg/a=1->3" {
		t.Fatalf("after a set: %s", got)
	}
	mustCreate(t, w, "/cfg/b/d/e", "5")
	var made []string
	for range 2 {
		made = append(made, describe(r.next(t)))
	}
	if got := strings.Join(sortedCopy(made), ", "); got != "Created /cfg/b/d/e=5, Created /cfg/b/d=" {
		t.Fatalf("after a create two levels down: %s", got)
	}
	if err := w.Delete(ctx, "/cfg/b", framework.WithChildren()); err != nil {
		t.Fatal(err)
	}
	var gone []string
	for range 4 {
		gone = append(gone, describe(r.next(t)))
	}
	if got := strings.Join(sortedCopy(gone), ", "); got != "Deleted /cfg/b, Deleted /cfg/b/c, Deleted /cfg/b/d, Deleted /cfg/b/d/e" {
		t.Fatalf("after deleting a subtree: %s", got)
	}
	if _, err := w.Txn(ctx, framework.DeleteOp("/cfg/a", -1), framework.CreateOp("/cfg/a", []byte("3"), framework.Persistent)); err != nil {
		t.Fatal(err)
	}
	if got := describe(r.next(t)) + ", " + describe(r.next(t)); got != "Deleted /cfg/a, Created /cfg/a=3" {
		t.Fatalf("after a delete and re-create: %s", got)
	}
	want, err := serverTree(ctx, w, "/cfg", 1<<30)
	if err != nil {
		t.Fatal(err)
	}
	if d := diff(want, cc.Snapshot()); d != "" {
		t.Fatalf("the cache differs from the server: %s", d)
	}
	if held := recipestest.WatchedPaths(t, server.Addr(), "/"+ns+"/"); !slices.Equal(held, []string{"/" + ns + "/cfg"}) {
		t.Fatalf("the server holds watches on %v, want the cache's path alone", held)
	}
	if err := cc.Close(); err != nil {
		t.Fatal(err)
	}
	if held := recipestest.WatchedPaths(t, server.Addr(), "/"+ns+"/"); len(held) != 0 {
		t.Fatalf("after Close the server holds watches on %v", held)
	}
}

// TestPersistentWatchResyncsAfterReconnect: the watch goes with a cut
// connection; the cache sets it again, reads everything, and so holds the
// changes made meanwhile, and follows the ones after.
func TestPersistentWatchResyncsAfterReconnect(t *testing.T) {
	ns := recipestest.Namespace(t)
	proxy := recipestest.StartProxy(t, server.Addr())
	c := recipestest.NewClient(t, proxy.Addr(), framework.WithNamespace(ns))
	w := recipestest.NewClient(t, server.ConnectString(), framework.WithNamespace(ns))
	ctx := ctxT(t)
	mustCreate(t, w, "/r/a", "1")
	cc, r := startCache(t, c, "/r", cache.WithPersistentWatch())
	r.until(t, cache.Initialized)
	proxy.DropAll()
	if _, err := w.Set(ctx, "/r/a", []byte("2"), -1); err != nil {
		t.Fatal(err)
	}
	mustCreate(t, w, "/r/b/c", "3")
	r.until(t, cache.Resynced)
	for i, step := range []func() error{
		func() error { return nil },
		func() error { _, err := w.Set(ctx, "/r/b/c", []byte("4"), -1); return err },
	} {
		if err := step(); err != nil {
			t.Fatal(err)
		}
		want, err := serverTree(ctx, w, "/r", 1<<30)
		if err != nil {
			t.Fatal(err)
		}
		recipestest.Eventually(t, fmt.Sprintf("the cache to equal the server (%d)", i), func() (bool, string) {
			d := diff(want, cc.Snapshot())
			return d == "", d
		})
	}
	if held := recipestest.WatchedPaths(t, server.Addr(), "/"+ns+"/"); !slices.Equal(held, []string{"/" + ns + "/r"}) {
		t.Fatalf("the server holds watches on %v, want the cache's path alone", held)
	}
}

// TestPersistentWatchAfterAOneShotWatchOnItsPath: a one-shot watch set on
// the cache's path through the cache's client (a WatchData there) replaces
// the persistent watch on a server before 3.9; the client sets it again,
// the cache goes Stale and reads everything again (Resynced, with no
// change to tell), and follows every change below as before, and the
// WatchData still fires (and, setting its watch again, resets the cache's
// once more).
func TestPersistentWatchAfterAOneShotWatchOnItsPath(t *testing.T) {
	ns := recipestest.Namespace(t)
	cs := clients(t, 2, framework.WithNamespace(ns))
	c, w := cs[0], cs[1]
	ctx := ctxT(t)
	mustCreate(t, w, "/cfg/a", "1")
	cc, r := startCache(t, c, "/cfg")
	r.until(t, cache.Initialized)
	seen := make(chan string, 16)
	dw, err := cache.WatchData(ctx, c, "/cfg", func(n cache.Node, _ bool, _ int) { seen <- string(n.Data) })
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { dw.Close() })
	if got := <-seen; got != "" {
		t.Fatalf("the data watcher's first call: %q", got)
	}
	if got := strings.Join(r.until(t, cache.Resynced), ", "); got != "Stale, Resynced" {
		t.Fatalf("after the one-shot watch: %s", got)
	}
	for i := range 2 {
		deep := fmt.Sprintf("/cfg/b%d/c", i)
		mustCreate(t, w, deep, "2")
		var made []string
		for range 2 {
			made = append(made, describe(r.next(t)))
		}
		if got, want := strings.Join(sortedCopy(made), ", "), fmt.Sprintf("Created /cfg/b%d/c=2, Created /cfg/b%d=", i, i); got != want {
			t.Fatalf("after a create two levels down: %s, want %s", got, want)
		}
	}
	if _, err := w.Set(ctx, "/cfg", []byte("x"), -1); err != nil {
		t.Fatal(err)
	}
	// The data watcher sets its watch again at once, which resets the
	// cache's again: Stale and Resynced may come before the change.
	for {
		got := describe(r.next(t))
		if got == "Stale" || got == "Resynced" {
			continue
		}
		if got != "Changed /cfg=->x" {
			t.Fatalf("after a set of the cache's node: %s", got)
		}
		break
	}
	select {
	case got := <-seen:
		if got != "x" {
			t.Fatalf("the data watcher's second call: %q", got)
		}
	case <-ctx.Done():
		t.Fatal("the data watcher did not see the set")
	}
	want, err := serverTree(ctx, w, "/cfg", 1<<30)
	if err != nil {
		t.Fatal(err)
	}
	if d := diff(want, cc.Snapshot()); d != "" {
		t.Fatalf("the cache differs from the server: %s", d)
	}
}

// TestTreeAndNodeCachesOnOnePath: a cache of the whole tree and a cache of
// the node alone, both on their default persistent watch, on one path
// through one client (a recursive and a non-recursive watch, which a
// server before 3.9 cannot hold apart) each follow what they cache, and
// after the tree's Close the node's still follows its node.
func TestTreeAndNodeCachesOnOnePath(t *testing.T) {
	ns := recipestest.Namespace(t)
	cs := clients(t, 2, framework.WithNamespace(ns))
	c, w := cs[0], cs[1]
	ctx := ctxT(t)
	mustCreate(t, w, "/cfg/a", "1")
	tree, tr := startCache(t, c, "/cfg")
	tr.until(t, cache.Initialized)
	node, nr := startCache(t, c, "/cfg", cache.WithMaxDepth(0))
	nr.until(t, cache.Initialized)
	mustCreate(t, w, "/cfg/a/b", "2")
	if got := describe(tr.next(t)); got != "Created /cfg/a/b=2" {
		t.Fatalf("the tree cache, after a create two levels down: %s", got)
	}
	for i, want := range []string{"Changed /cfg=->x", "Changed /cfg=x->y"} {
		if _, err := w.Set(ctx, "/cfg", []byte(want[len(want)-1:]), -1); err != nil {
			t.Fatal(err)
		}
		if i == 0 {
			if got := describe(tr.next(t)); got != want {
				t.Fatalf("the tree cache, after set %d: %s", i, got)
			}
		}
		if got := describe(nr.next(t)); got != want {
			t.Fatalf("the node cache, after set %d: %s", i, got)
		}
		if i == 0 {
			if err := tree.Close(); err != nil {
				t.Fatal(err)
			}
		}
	}
	if node.Len() != 1 {
		t.Fatal(node.Snapshot())
	}
}

// TestPersistentLoadListsOnlyInnerNodes: with a persistent watch a node's
// stat stands in for the listing of a node with no children, so a load
// reads every node's data and lists only the nodes with children, a leaf
// that gains a child later is still seen, and a resync after a cut
// connection reads every node's data again but lists only the nodes whose
// children changed while it was away.
func TestPersistentLoadListsOnlyInnerNodes(t *testing.T) {
	c, w, counter, proxy := countedThroughProxy(t)
	ctx := ctxT(t)
	for _, p := range []string{"/t/a", "/t/b/c", "/t/b/d", "/t/e/f/g"} {
		mustCreate(t, w, p, "v")
	}
	now := func() readCounts { return countReads(counter) }
	before := now()
	cc, r := startCache(t, c, "/t")
	r.until(t, cache.Initialized)
	// Eight nodes; /t, /t/b, /t/e and /t/e/f have children.
	if got := now().minus(before); got.reads != 8 || got.lists != 4 {
		t.Fatalf("the load made %d data reads and %d listings, want 8 and 4", got.reads, got.lists)
	}
	converged := func(step string) {
		t.Helper()
		want, err := serverTree(ctx, w, "/t", 1<<30)
		if err != nil {
			t.Fatal(err)
		}
		recipestest.Eventually(t, "the cache to equal the server "+step, func() (bool, string) {
			d := diff(want, cc.Snapshot())
			return d == "", d
		})
	}

	mustCreate(t, w, "/t/a/x", "v") // a leaf gains a child
	if got := describe(r.next(t)); got != "Created /t/a/x=v" {
		t.Fatalf("after a leaf gained a child: %s", got)
	}
	converged("after a leaf gained a child")

	// While the connection is cut: a leaf gains a child, a node loses its
	// only child, the cache's node gains one; /t/a, /t/b and /t/e keep
	// theirs.
	proxy.Blackhole(true)
	proxy.DropAll()
	mustCreate(t, w, "/t/b/c/y", "v")
	if err := w.Delete(ctx, "/t/e/f/g"); err != nil {
		t.Fatal(err)
	}
	mustCreate(t, w, "/t/h", "v")
	if _, err := w.Set(ctx, "/t/b/d", []byte("changed"), -1); err != nil {
		t.Fatal(err)
	}
	before = now()
	proxy.Blackhole(false)
	r.until(t, cache.Resynced)
	// The nine nodes cached, and the two new; /t and /t/b/c listed, and
	// /t/a, whose child was added by its read, not by a listing. That
	// listing names /t/a/x: if /t/a/x's own read is under way then, it is
	// made again (a read answered before the listing may be older than
	// it), a twelfth.
	if got := now().minus(before); got.reads < 11 || got.reads > 12 || got.lists != 3 {
		t.Fatalf("the resync made %d data reads and %d listings, want 11 (12 at most) and 3", got.reads, got.lists)
	}
	converged("after the resync")
}

// readCounts are what a client sent for reads: requests for data
// (getData and multiRead), the data reads in them, the multiReads among
// them, and listings.
type readCounts struct{ data, reads, multi, lists int64 }

func countReads(c *zkharness.Counter) readCounts {
	multi := c.RequestsOf(zkharness.OpMultiRead)
	return readCounts{
		data:  c.RequestsOf(zkharness.OpGetData) + multi,
		reads: c.ReadsOf(zkharness.OpGetData),
		multi: multi,
		lists: c.RequestsOf(zkharness.OpGetChildren) + c.RequestsOf(zkharness.OpGetChildren2),
	}
}

func (r readCounts) minus(s readCounts) readCounts {
	return readCounts{r.data - s.data, r.reads - s.reads, r.multi - s.multi, r.lists - s.lists}
}

// TestPersistentLoadReadsInBatches: with a persistent watch the data reads
// a listing asks for go out together, 64 to a request (a multiRead): a
// directory of 300 children loads in one read of its own node, one
// listing and five multiReads, and resyncs after a cut connection, with
// nothing changed, in five multiReads and no listing.
func TestPersistentLoadReadsInBatches(t *testing.T) {
	c, w, counter, proxy := countedThroughProxy(t)
	makeDir(t, w, 300)
	before := countReads(counter)
	cc, r := startCache(t, c, "/dir")
	r.until(t, cache.Initialized)
	if got := countReads(counter).minus(before); got != (readCounts{data: 6, reads: 301, multi: 5, lists: 1}) {
		t.Fatalf("the load made %+v requests, want one getData, five multiReads and one listing", got)
	}
	if n := cc.Len(); n != 301 {
		t.Fatalf("the cache holds %d nodes, want 301", n)
	}
	for i := range 300 {
		if n, ok := cc.Get(fmt.Sprintf("/dir/n%03d", i)); !ok || len(n.Data) != 1 || n.Data[0] != byte(i) {
			t.Fatalf("/dir/n%03d: %+v, %v", i, n, ok)
		}
	}
	before = countReads(counter)
	proxy.DropAll()
	r.until(t, cache.Resynced)
	if got := countReads(counter).minus(before); got != (readCounts{data: 5, reads: 301, multi: 5, lists: 0}) {
		t.Fatalf("the resync made %+v requests, want five multiReads and no listing", got)
	}
}

// TestPersistentChangeReadsOnlyTheNode: with a persistent watch a child
// made or deleted in a directory of 300 costs the read of that child
// alone, not a listing of the directory; the names of deleted children
// gather until they are half the directory's, and one listing then drops
// them (TestDeletedChildrenAreForgottenByAListing checks that no other
// listing follows).
func TestPersistentChangeReadsOnlyTheNode(t *testing.T) {
	c, w, counter, _ := countedThroughProxy(t)
	ctx := ctxT(t)
	makeDir(t, w, 300)
	cc, r := startCache(t, c, "/dir")
	r.until(t, cache.Initialized)

	before := countReads(counter)
	mustCreate(t, w, "/dir/new", "v")
	if got := describe(r.next(t)); got != "Created /dir/new=v" {
		t.Fatalf("after a create: %s", got)
	}
	if err := w.Delete(ctx, "/dir/n000"); err != nil {
		t.Fatal(err)
	}
	if got := describe(r.next(t)); got != "Deleted /dir/n000" {
		t.Fatalf("after a delete: %s", got)
	}
	if got := countReads(counter).minus(before); got != (readCounts{data: 2, reads: 2}) {
		t.Fatalf("a create and a delete made %+v requests, want two getData and no listing", got)
	}

	// The directory names 301 children, one of them deleted: 149 more
	// deletions make half of them, and the directory is listed once.
	before = countReads(counter)
	ops := make([]framework.Op, 149)
	for i := range ops {
		ops[i] = framework.DeleteOp(fmt.Sprintf("/dir/n%03d", i+1), -1)
	}
	if _, err := w.Txn(ctx, ops...); err != nil {
		t.Fatal(err)
	}
	for range ops {
		if ev := r.next(t); ev.Type != cache.Deleted {
			t.Fatalf("after the deletions: %s", describe(ev))
		}
	}
	recipestest.Eventually(t, "149 reads and one listing", func() (bool, string) {
		got := countReads(counter).minus(before)
		return got.reads == 149 && got.lists == 1, fmt.Sprintf("%+v", got)
	})
	want, err := serverTree(ctx, w, "/dir", 1<<30)
	if err != nil {
		t.Fatal(err)
	}
	if d := diff(want, cc.Snapshot()); d != "" || cc.Len() != 152 {
		t.Fatalf("the cache holds %d nodes, want 152: %s", cc.Len(), d)
	}
}

// TestPersistentLoadSplitsATooLongReply: a batch of reads whose reply is
// longer than the client accepts is asked for again in halves, and the
// cache loads every node.
func TestPersistentLoadSplitsATooLongReply(t *testing.T) {
	ns := recipestest.Namespace(t)
	counter := zkharness.NewCounter()
	c := recipestest.NewClient(t, server.ConnectString(), framework.WithNamespace(ns), framework.WithDialer(counter.Dialer(nil)), framework.WithMaxReplySize(64<<10))
	w := recipestest.NewClient(t, server.ConnectString(), framework.WithNamespace(ns))
	ctx := ctxT(t)
	mustCreate(t, w, "/big", "")
	data := bytes.Repeat([]byte("d"), 30<<10)
	for i := range 4 {
		if _, err := w.Create(ctx, fmt.Sprintf("/big/n%d", i), data); err != nil {
			t.Fatal(err)
		}
	}
	before := countReads(counter)
	cc, r := startCache(t, c, "/big")
	r.until(t, cache.Initialized)
	// 120 KiB refused, then two of 60 KiB.
	if got := countReads(counter).minus(before); got.multi != 3 || got.reads != 1+4+4 {
		t.Fatalf("the load made %+v requests, want three multiReads", got)
	}
	for i := range 4 {
		if n, ok := cc.Get(fmt.Sprintf("/big/n%d", i)); !ok || !bytes.Equal(n.Data, data) {
			t.Fatalf("/big/n%d: %d bytes, %v", i, len(n.Data), ok)
		}
	}
}

// TestOneShotResyncChecksInBatches: with one-shot watches a resync on the
// same session checks every node's data without a watch (the watches
// survived), 64 to a multiRead, and checks a listing only where the data
// check's Pzxid shows the children changed (here none); the change made
// while away is found.
func TestOneShotResyncChecksInBatches(t *testing.T) {
	c, w, counter, proxy := countedThroughProxy(t)
	ctx := ctxT(t)
	makeDir(t, w, 300)
	before := countReads(counter)
	cc, r := startCache(t, c, "/dir", cache.WithOneShotWatches())
	r.until(t, cache.Initialized)
	if got := countReads(counter).minus(before); got != (readCounts{data: 301, reads: 301, lists: 301}) {
		t.Fatalf("the load made %+v requests, want a getData and a listing per node", got)
	}
	session := c.SessionID()
	before = countReads(counter)
	proxy.Blackhole(true)
	proxy.DropAll()
	if _, err := w.Set(ctx, "/dir/n007", []byte("changed"), -1); err != nil {
		t.Fatal(err)
	}
	proxy.Blackhole(false)
	r.until(t, cache.Resynced)
	if c.SessionID() != session {
		t.Fatal("the session changed")
	}
	// 301 checks in multiReads of up to 64, and no listing: no Pzxid
	// moved (TestSameSessionResyncChecksListingsByPzxid has one that did).
	// The changed node's watch fired: its read, which sets the watch
	// again, goes alone, before or after its check (which it may replace),
	// and may split a batch.
	got := countReads(counter).minus(before)
	if single := got.data - got.multi; got.multi < 5 || got.multi > 6 || single > 1 || got.reads < 301 || got.reads > 302 || got.lists != 0 {
		t.Fatalf("the resync made %+v requests, want five or six multiReads of the 301 checks, at most one getData, and no listing", got)
	}
	recipestest.Eventually(t, "the change in the cache", func() (bool, string) {
		n, ok := cc.Get("/dir/n007")
		return ok && string(n.Data) == "changed", fmt.Sprintf("%q", n.Data)
	})
	want, err := serverTree(ctx, w, "/dir", 1<<30)
	if err != nil {
		t.Fatal(err)
	}
	if d := diff(want, cc.Snapshot()); d != "" {
		t.Fatalf("the cache differs from the server: %s", d)
	}
}

// countedThroughProxy starts a client through a proxy, its requests
// counted, and a second client to write with, in a namespace of their own.
func countedThroughProxy(t *testing.T) (c, w *framework.Client, counter *zkharness.Counter, proxy *zkharness.Proxy) {
	ns := recipestest.Namespace(t)
	counter = zkharness.NewCounter()
	proxy = recipestest.StartProxy(t, server.Addr())
	c = recipestest.NewClient(t, proxy.Addr(), framework.WithNamespace(ns), framework.WithDialer(counter.Dialer(nil)))
	w = recipestest.NewClient(t, server.ConnectString(), framework.WithNamespace(ns))
	return c, w, counter, proxy
}

// makeDir makes /dir with n children, /dir/n000 on, each its number as
// its one byte of data, in transactions of 1,000.
func makeDir(t testing.TB, w *framework.Client, n int) {
	t.Helper()
	mustCreate(t, w, "/dir", "")
	for from := 0; from < n; from += 1000 {
		ops := make([]framework.Op, min(1000, n-from))
		for i := range ops {
			ops[i] = framework.CreateOp(fmt.Sprintf("/dir/n%03d", from+i), []byte{byte(from + i)}, framework.Persistent)
		}
		if _, err := w.Txn(ctxT(t), ops...); err != nil {
			t.Fatal(err)
		}
	}
}

// TestPersistentFilterAfterTheLoad: with a persistent watch, the nodes
// made after the load that the filter refuses, or that lie below a node
// it refuses, are neither cached nor told of; the others are.
func TestPersistentFilterAfterTheLoad(t *testing.T) {
	c := clients(t, 1)[0]
	mustCreate(t, c, "/cfg/a", "a")
	mustCreate(t, c, "/cfg/skip/x", "s")
	cc, r := startCache(t, c, "/cfg", cache.WithFilter(func(p string) bool { return !strings.HasSuffix(p, "/skip") }))
	r.until(t, cache.Initialized)
	mustCreate(t, c, "/cfg/a/skip", "s") // refused, below a cached leaf
	mustCreate(t, c, "/cfg/skip/y", "s") // below a refused node
	mustCreate(t, c, "/cfg/c", "c")
	if got := describe(r.next(t)); got != "Created /cfg/c=c" {
		t.Fatalf("event %s, want Created /cfg/c=c", got)
	}
	var paths []string
	for _, n := range cc.Snapshot() {
		paths = append(paths, n.Path)
	}
	if fmt.Sprint(paths) != "[/cfg /cfg/a /cfg/c]" {
		t.Fatalf("cached %v, want [/cfg /cfg/a /cfg/c]", paths)
	}
}
