package cache

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"strings"
	"testing"

	"github.com/gocurator/curator/framework"
)

// srvNode is a node of the tree a test's server holds.
type srvNode struct {
	data                string
	czxid, mzxid, pzxid int64
	children            []string
}

// srvStat is the stat the server would send for n.
func srvStat(n srvNode) *framework.Stat {
	return &framework.Stat{Czxid: n.czxid, Mzxid: n.mzxid, Pzxid: n.pzxid, NumChildren: int32(len(n.children))}
}

// answer applies the reply the server holding tree gives to the read k.
func answer(c *Cache, tree map[string]srvNode, k key) {
	n, ok := tree[k.path]
	switch {
	case k.kind == dataRead && ok:
		c.applyData(k.path, []byte(n.data), srvStat(n))
	case k.kind == dataRead:
		c.applyData(k.path, nil, nil)
	case ok:
		c.applyChildren(k.path, slices.Clone(n.children), srvStat(n))
	default:
		c.applyChildren(k.path, nil, nil)
	}
}

// reply answers the read k, taken from the queue, from tree (nil: no
// node), and marks it done.
func reply(c *Cache, tree map[string]srvNode, k key) {
	answer(c, tree, k)
	if g := c.q.done(k); g != 0 {
		c.generationDone(g)
	}
}

// wantCached fails t unless the cache holds exactly paths.
func wantCached(t *testing.T, c *Cache, paths string) {
	t.Helper()
	if got := strings.Join(cachedPaths(c), " "); got != paths {
		t.Fatalf("cached %s, want %s", got, paths)
	}
}

// serve answers the cache's queued reads, in the queue's order, from
// tree, until none is left, and returns them ("data /t", "list /t").
func serve(t *testing.T, c *Cache, tree map[string]srvNode) []string {
	t.Helper()
	var made []string
	for {
		c.q.mu.Lock()
		left := len(c.q.fifo)
		c.q.mu.Unlock()
		if left == 0 {
			return made
		}
		k, _, _ := c.q.next(context.Background())
		made = append(made, map[kind]string{dataRead: "data ", childrenRead: "list "}[k.kind]+k.path)
		reply(c, tree, k)
	}
}

// persistentEngine is engine in the persistent mode, its first load asked
// for.
func persistentEngine(t *testing.T) *Cache {
	c := engine(t)
	c.persistent.Store(true)
	c.q.add(key{"/t", dataRead}, c.q.newGeneration())
	return c
}

// resync starts a resync as the persistent mode does once its watch is
// set again.
func resync(c *Cache) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.resyncLocked(true)
}

func cachedPaths(c *Cache) []string {
	var paths []string
	for p := range c.nodes {
		paths = append(paths, p)
	}
	slices.Sort(paths)
	return paths
}

// TestStatStandsInForAListing: with a persistent watch, a node whose stat
// shows no children is listed as empty without a listing, and a resync
// lists again only the nodes whose Pzxid moved, reading every node's data.
func TestStatStandsInForAListing(t *testing.T) {
	c := persistentEngine(t)
	tree := map[string]srvNode{
		"/t":     {czxid: 1, mzxid: 1, pzxid: 3, children: []string{"a", "b"}},
		"/t/a":   {data: "x", czxid: 2, mzxid: 2, pzxid: 2},
		"/t/b":   {data: "y", czxid: 3, mzxid: 3, pzxid: 4, children: []string{"c"}},
		"/t/b/c": {data: "z", czxid: 4, mzxid: 4, pzxid: 4},
	}
	if got, want := strings.Join(serve(t, c, tree), ", "), "data /t, list /t, data /t/a, data /t/b, list /t/b, data /t/b/c"; got != want {
		t.Fatalf("the load made %s, want %s", got, want)
	}
	select {
	case <-c.initialized:
	default:
		t.Fatal("not Initialized after the load")
	}
	wantCached(t, c, "/t /t/a /t/b /t/b/c")

	// While the watch was away: a gains a child d, b loses c, t's
	// children stay as they were.
	tree["/t/a"] = srvNode{data: "x", czxid: 2, mzxid: 2, pzxid: 5, children: []string{"d"}}
	tree["/t/a/d"] = srvNode{data: "w", czxid: 5, mzxid: 5, pzxid: 5}
	tree["/t/b"] = srvNode{data: "y", czxid: 3, mzxid: 3, pzxid: 6}
	delete(tree, "/t/b/c")
	resync(c)
	made := serve(t, c, tree)
	slices.Sort(made)
	if got, want := strings.Join(made, ", "), "data /t, data /t/a, data /t/a/d, data /t/b, data /t/b/c, list /t/a"; got != want {
		t.Fatalf("the resync made %s, want %s", got, want)
	}
	wantCached(t, c, "/t /t/a /t/a/d /t/b")
}

// TestResyncRedoesTheReadsInFlight: a read under way when the persistent
// watch is set again may have gone out before it; what it found is read
// again, or a child created before the watch, below a node that read
// found childless, would never be seen.
func TestResyncRedoesTheReadsInFlight(t *testing.T) {
	c := persistentEngine(t)
	tree := map[string]srvNode{
		"/t":   {czxid: 1, mzxid: 1, pzxid: 2, children: []string{"a"}},
		"/t/a": {data: "x", czxid: 2, mzxid: 2, pzxid: 2},
	}
	step(t, c, key{"/t", dataRead}, func() { answer(c, tree, key{"/t", dataRead}) })
	step(t, c, key{"/t", childrenRead}, func() { answer(c, tree, key{"/t", childrenRead}) })
	inFlight, _, _ := c.q.next(context.Background()) // /t/a's read, answered as childless
	then := maps.Clone(tree)
	tree["/t/a"] = srvNode{data: "x", czxid: 2, mzxid: 2, pzxid: 3, children: []string{"b"}}
	tree["/t/a/b"] = srvNode{data: "y", czxid: 3, mzxid: 3, pzxid: 3}
	resync(c) // the watch is set again after the child's create
	reply(c, then, inFlight)
	serve(t, c, tree)
	wantCached(t, c, "/t /t/a /t/a/b")
}

// TestListingOfANodeNotYetCachedReadsItAgain: a listing that comes while
// the node's first data read is under way finds a child; the data read,
// answered before the child came, shows none. The listing asks for the
// read again, which lists the child.
func TestListingOfANodeNotYetCachedReadsItAgain(t *testing.T) {
	c := persistentEngine(t)
	tree := map[string]srvNode{"/t": {czxid: 1, mzxid: 1, pzxid: 1}}
	serve(t, c, tree)
	tree["/t"] = srvNode{czxid: 1, mzxid: 1, pzxid: 2, children: []string{"p"}}
	tree["/t/p"] = srvNode{czxid: 2, mzxid: 2, pzxid: 2}
	c.q.add(key{"/t", childrenRead}, 0) // /t/p created
	step(t, c, key{"/t", childrenRead}, func() { answer(c, tree, key{"/t", childrenRead}) })
	inFlight, _, _ := c.q.next(context.Background()) // /t/p's read, answered as of zxid 2
	then := maps.Clone(tree)
	tree["/t/p"] = srvNode{czxid: 2, mzxid: 2, pzxid: 3, children: []string{"c"}}
	tree["/t/p/c"] = srvNode{data: "x", czxid: 3, mzxid: 3, pzxid: 3}
	c.q.add(key{"/t/p", childrenRead}, 0) // /t/p/c created
	step(t, c, key{"/t/p", childrenRead}, func() { answer(c, tree, key{"/t/p", childrenRead}) })
	reply(c, then, inFlight)
	serve(t, c, tree)
	wantCached(t, c, "/t /t/p /t/p/c")
}

// TestReadOfANodeMadeAgainListsItsNewChildren: a node deleted and made
// again, then given a child; a read from before the child replaces the
// cached node and stands in for its listing, and the read made after it,
// outside any load, finds the children moved and lists them.
func TestReadOfANodeMadeAgainListsItsNewChildren(t *testing.T) {
	c := persistentEngine(t)
	tree := map[string]srvNode{
		"/t":   {czxid: 1, mzxid: 1, pzxid: 2, children: []string{"p"}},
		"/t/p": {czxid: 2, mzxid: 2, pzxid: 2},
	}
	serve(t, c, tree)
	tree["/t"] = srvNode{czxid: 1, mzxid: 1, pzxid: 6, children: []string{"p"}}
	tree["/t/p"] = srvNode{czxid: 6, mzxid: 6, pzxid: 6} // deleted at 5, made again at 6
	c.q.add(key{"/t/p", dataRead}, 0)
	c.q.add(key{"/t", childrenRead}, 0)
	inFlight, _, _ := c.q.next(context.Background()) // /t/p's read, answered as of zxid 6
	then := maps.Clone(tree)
	tree["/t/p"] = srvNode{czxid: 6, mzxid: 6, pzxid: 7, children: []string{"c"}}
	tree["/t/p/c"] = srvNode{data: "x", czxid: 7, mzxid: 7, pzxid: 7}
	c.q.add(key{"/t/p", childrenRead}, 0) // /t/p/c created
	step(t, c, key{"/t", childrenRead}, func() { answer(c, tree, key{"/t", childrenRead}) })
	step(t, c, key{"/t/p", childrenRead}, func() { answer(c, tree, key{"/t/p", childrenRead}) })
	reply(c, then, inFlight)
	serve(t, c, tree)
	wantCached(t, c, "/t /t/p /t/p/c")
}

// TestQueueHandsOutReadsAddedTogether: reads added in one step go to a
// waiting worker in one batch; a batch takes the data reads at the
// queue's front, up to its size, and stops at a listing, and with one-shot
// watches at a read that sets a watch.
func TestQueueHandsOutReadsAddedTogether(t *testing.T) {
	q := newQueue()
	got := make(chan []key)
	go func() {
		batch, _, _ := q.nextBatch(context.Background(), nil, 64, true)
		got <- batch
	}()
	q.addAll([]key{{"/a", dataRead}, {"/b", dataRead}, {"/c", dataRead}}, nil, 0)
	if b := <-got; len(b) != 3 {
		t.Fatalf("the waiting worker took %v, want the three reads added together", b)
	}
	for _, k := range []key{{"/d", dataRead}, {"/e", dataRead}, {"/f", childrenRead}, {"/g", dataRead}} {
		q.add(k, 0)
	}
	for _, want := range []string{"[{/d 0} {/e 0}]", "[{/f 1}]", "[{/g 0}]"} {
		b, _, _ := q.nextBatch(context.Background(), nil, 64, true)
		if got := fmt.Sprint(b); got != want {
			t.Fatalf("batch %s, want %s", got, want)
		}
	}
	for _, p := range []string{"/h", "/i", "/j"} {
		q.add(key{p, dataRead}, 0)
	}
	if b, _, _ := q.nextBatch(context.Background(), nil, 2, true); fmt.Sprint(b) != "[{/h 0} {/i 0}]" {
		t.Fatalf("batch %v, want two", b)
	}
	q.nextBatch(context.Background(), nil, 64, true) // /j

	// With one-shot watches only reads that set no watch go together.
	q.check(key{"/k", dataRead}, 0)
	q.check(key{"/l", dataRead}, 0)
	q.add(key{"/m", dataRead}, 0)
	q.check(key{"/n", dataRead}, 0)
	for _, want := range []string{"[{/k 0} {/l 0}]", "[{/m 0}]", "[{/n 0}]"} {
		b, _, _ := q.nextBatch(context.Background(), nil, 64, false)
		if got := fmt.Sprint(b); got != want {
			t.Fatalf("one-shot batch %s, want %s", got, want)
		}
	}
}

// TestSameSessionResyncChecksListingsByPzxid: with one-shot watches a
// resync on the same session checks every node's data, and a listing only
// where the check's Pzxid moved past the last listing's; a listed child
// the cache lacks is checked.
func TestSameSessionResyncChecksListingsByPzxid(t *testing.T) {
	c := engine(t)
	c.q.add(key{"/t", dataRead}, c.q.newGeneration())
	tree := map[string]srvNode{
		"/t":   {czxid: 1, mzxid: 1, pzxid: 3, children: []string{"a", "b", "c"}},
		"/t/a": {data: "x", czxid: 2, mzxid: 2, pzxid: 2},
		"/t/b": {data: "y", czxid: 3, mzxid: 3, pzxid: 3},
	}
	// The listing names c, whose read finds nothing: the cache lacks a
	// listed child, as after a read that failed.
	serve(t, c, tree)
	wantCached(t, c, "/t /t/a /t/b")
	tree["/t/b"] = srvNode{data: "y", czxid: 3, mzxid: 3, pzxid: 5, children: []string{"d"}}
	tree["/t/b/d"] = srvNode{data: "z", czxid: 5, mzxid: 5, pzxid: 5}
	tree["/t/c"] = srvNode{data: "w", czxid: 4, mzxid: 4, pzxid: 4}
	resyncOn(c, false)
	made := serve(t, c, tree)
	slices.Sort(made)
	if got, want := strings.Join(made, ", "), "data /t, data /t/a, data /t/b, data /t/b/d, data /t/c, list /t/b, list /t/b/d, list /t/c"; got != want {
		t.Fatalf("the resync made %s, want %s", got, want)
	}
	wantCached(t, c, "/t /t/a /t/b /t/b/d /t/c")
}

// resyncOn starts a resync with watches or, watch false, of checks.
func resyncOn(c *Cache, watch bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.resyncLocked(watch)
}

// TestLateNoNodeAfterAListingIsReadAgain: a child's read, answered "no
// node" before the child was made again, is applied after a listing that
// names the new child; the listing asked for the read again, so the
// child is cached in the end.
func TestLateNoNodeAfterAListingIsReadAgain(t *testing.T) {
	c := persistentEngine(t)
	tree := map[string]srvNode{
		"/t":   {czxid: 1, mzxid: 1, pzxid: 2, children: []string{"b"}},
		"/t/b": {data: "x", czxid: 2, mzxid: 2, pzxid: 2},
	}
	serve(t, c, tree)
	// b deleted at 3: its read and /t's listing queued.
	c.q.add(key{"/t/b", dataRead}, 0)
	c.q.add(key{"/t", childrenRead}, 0)
	late, _, _ := c.q.next(context.Background()) // b's read, answered "no node"
	tree["/t"] = srvNode{czxid: 1, mzxid: 1, pzxid: 4, children: []string{"b"}}
	tree["/t/b"] = srvNode{data: "y", czxid: 4, mzxid: 4, pzxid: 4} // made again at 4
	step(t, c, key{"/t", childrenRead}, func() { answer(c, tree, key{"/t", childrenRead}) })
	reply(c, nil, late) // no node
	serve(t, c, tree)
	if n := c.nodes["/t/b"]; n == nil || string(n.data) != "y" {
		t.Fatalf("/t/b: %+v, want the node made again", n)
	}
}

// TestResyncOnlyAfterTheLatestRearm: a rearm whose connection dropped
// before its resync began (the cache went stale again) does not resync:
// its reads would go out before the next connection's watch, and end in a
// Resynced too early; the latest rearm's resync does.
func TestResyncOnlyAfterTheLatestRearm(t *testing.T) {
	c := persistentEngine(t)
	serve(t, c, map[string]srvNode{"/t": {czxid: 1, mzxid: 1, pzxid: 1}})
	c.mu.Lock()
	c.armSeq++ // a rearm, whose watch is set
	first := c.armSeq
	c.staleLocked() // and the connection drops
	c.armSeq++      // the next rearm
	second := c.armSeq
	c.mu.Unlock()
	gen := c.q.current()
	c.resyncIfCurrent(first)
	if c.q.current() != gen {
		t.Fatal("the overtaken rearm resynced")
	}
	c.resyncIfCurrent(second)
	if c.q.current() != gen+1 {
		t.Fatal("the latest rearm did not resync")
	}
}

// TestResyncKeepsTheMarkOfAReadUnderWay: a listing finds a child gone while
// the child's read is under way, a resync comes, and a later listing names
// a new node of that name; the old read's reply, applied last, must not
// bring the old node back, not even for a moment.
func TestResyncKeepsTheMarkOfAReadUnderWay(t *testing.T) {
	c := persistentEngine(t)
	var events []string
	c.AddListener(func(ev Event) { events = append(events, ev.Type.String()+" "+ev.Path+" "+string(ev.Node.Data)) })
	tree := map[string]srvNode{
		"/t":   {czxid: 1, mzxid: 1, pzxid: 5, children: []string{"c"}},
		"/t/c": {data: "old", czxid: 5, mzxid: 5, pzxid: 5},
	}
	serve(t, c, tree)
	c.q.add(key{"/t/c", dataRead}, 0)
	old, _, _ := c.q.next(context.Background()) // c's read, answered with the old c
	then := maps.Clone(tree)
	delete(tree, "/t/c") // c deleted at 20
	tree["/t"] = srvNode{czxid: 1, mzxid: 1, pzxid: 20}
	c.q.add(key{"/t", childrenRead}, 0)
	step(t, c, key{"/t", childrenRead}, func() { answer(c, tree, key{"/t", childrenRead}) })
	resync(c)
	tree["/t"] = srvNode{czxid: 1, mzxid: 1, pzxid: 30, children: []string{"c"}}
	tree["/t/c"] = srvNode{data: "new", czxid: 30, mzxid: 30, pzxid: 30} // made again at 30
	step(t, c, key{"/t", dataRead}, func() { answer(c, tree, key{"/t", dataRead}) })
	step(t, c, key{"/t", childrenRead}, func() { answer(c, tree, key{"/t", childrenRead}) })
	reply(c, then, old)
	serve(t, c, tree)
	c.listeners.Close()
	got := strings.Join(events, ", ")
	if strings.Count(got, "Created /t/c old") != 1 || !strings.HasSuffix(got, "Deleted /t/c , Created /t/c new") {
		t.Fatalf("events %s; want the old c created once (the load), deleted, and the new one created", got)
	}
}

// notify queues the reads a persistent watch's notification calls for.
func notify(c *Cache, typ framework.EventType, path string) {
	c.notifiedPersistent(framework.WatchEvent{Type: typ, Path: path})
}

// TestOlderListingKeepsAChildItsReadAdded: a child made after the
// parent's listing was taken is added by its own read; that listing,
// applied after the read, does not take the child out.
func TestOlderListingKeepsAChildItsReadAdded(t *testing.T) {
	c := persistentEngine(t)
	tree := map[string]srvNode{
		"/t":   {czxid: 1, mzxid: 1, pzxid: 2, children: []string{"a"}},
		"/t/a": {data: "x", czxid: 2, mzxid: 2, pzxid: 2},
	}
	serve(t, c, tree)
	old := tree["/t"] // a listing of /t taken now, applied later
	tree["/t"] = srvNode{czxid: 1, mzxid: 1, pzxid: 3, children: []string{"a", "b"}}
	tree["/t/b"] = srvNode{data: "y", czxid: 3, mzxid: 3, pzxid: 3}
	notify(c, framework.EventNodeCreated, "/t/b")
	if got := strings.Join(serve(t, c, tree), ", "); got != "data /t/b" {
		t.Fatalf("a child made cost %s, want its read alone", got)
	}
	wantCached(t, c, "/t /t/a /t/b")
	c.applyChildren("/t", slices.Clone(old.children), srvStat(old))
	wantCached(t, c, "/t /t/a /t/b")
	if got := c.nodes["/t"].children; !slices.Equal(got, []string{"a", "b"}) {
		t.Fatalf("/t's children %q, want a and b", got)
	}
}

// TestReadOlderThanAListingAddsNothing: a child's read, answered before it
// was deleted, is applied after a listing that no longer names it: the
// child was made before that listing, so the read is older, and the
// cache does not hold the deleted child even for a moment.
func TestReadOlderThanAListingAddsNothing(t *testing.T) {
	c := persistentEngine(t)
	tree := map[string]srvNode{
		"/t":   {czxid: 1, mzxid: 1, pzxid: 1},
		"/t/a": {data: "x", czxid: 2, mzxid: 2, pzxid: 2},
	}
	serve(t, c, tree)
	wantCached(t, c, "/t")
	// /t/a, made at 2, and deleted at 3: its read was answered between.
	c.applyChildren("/t", nil, &framework.Stat{Czxid: 1, Mzxid: 1, Pzxid: 3})
	c.applyData("/t/a", []byte("x"), srvStat(tree["/t/a"]))
	wantCached(t, c, "/t")
	c.applyData("/t/a", []byte("x"), &framework.Stat{Czxid: 4, Mzxid: 4, Pzxid: 4}) // made again at 4
	wantCached(t, c, "/t /t/a")
}

// TestReadOfAChildBeforeItsParentReadsTheParentAgain: a node and its child
// are made one after the other; the child's read is applied before the
// parent is cached, and the parent's read was answered before the child
// was made (no children). The child's read asks for the parent's again,
// which then finds and lists the child.
func TestReadOfAChildBeforeItsParentReadsTheParentAgain(t *testing.T) {
	c := persistentEngine(t)
	tree := map[string]srvNode{"/t": {czxid: 1, mzxid: 1, pzxid: 1}}
	serve(t, c, tree)
	tree["/t"] = srvNode{czxid: 1, mzxid: 1, pzxid: 2, children: []string{"a"}}
	tree["/t/a"] = srvNode{czxid: 2, mzxid: 2, pzxid: 2}
	notify(c, framework.EventNodeCreated, "/t/a")
	parent, _, _ := c.q.next(context.Background()) // /t/a's read, answered now
	early := tree["/t/a"]
	tree["/t/a"] = srvNode{czxid: 2, mzxid: 2, pzxid: 3, children: []string{"b"}}
	tree["/t/a/b"] = srvNode{data: "y", czxid: 3, mzxid: 3, pzxid: 3}
	notify(c, framework.EventNodeCreated, "/t/a/b")
	step(t, c, key{"/t/a/b", dataRead}, func() { answer(c, tree, key{"/t/a/b", dataRead}) })
	reply(c, map[string]srvNode{"/t/a": early}, parent)
	wantCached(t, c, "/t /t/a")
	serve(t, c, tree)
	wantCached(t, c, "/t /t/a /t/a/b")
}

// TestDeletedChildrenAreForgottenByAListing: in the persistent mode a
// deletion costs the deleted node's read; once the names of deleted
// children are half a directory's, one listing drops them.
func TestDeletedChildrenAreForgottenByAListing(t *testing.T) {
	c := persistentEngine(t)
	names := make([]string, 2*forgetAfter)
	for i := range names {
		names[i] = fmt.Sprintf("n%02d", i)
	}
	tree := map[string]srvNode{"/t": {czxid: 1, mzxid: 1, pzxid: 2, children: slices.Clone(names)}}
	for _, name := range names {
		tree["/t/"+name] = srvNode{czxid: 2, mzxid: 2, pzxid: 2}
	}
	serve(t, c, tree)
	for i, name := range names[:forgetAfter] {
		delete(tree, "/t/"+name)
		tree["/t"] = srvNode{czxid: 1, mzxid: 1, pzxid: int64(3 + i), children: slices.Clone(names[i+1:])}
		notify(c, framework.EventNodeDeleted, "/t/"+name)
		want := "data /t/" + name
		if i == forgetAfter-1 {
			want += ", list /t"
		}
		if got := strings.Join(serve(t, c, tree), ", "); got != want {
			t.Fatalf("deletion %d made %s, want %s", i, got, want)
		}
	}
	if got := c.nodes["/t"].children; !slices.Equal(got, names[forgetAfter:]) {
		t.Fatalf("/t's children %q, want %q", got, names[forgetAfter:])
	}
}

// TestReadOfAChildOfAnUnlistedParentListsItAgain: a child is made while
// its parent's first listing is under way, answered before the child was
// made; the child's read, applied first, finds the parent not listed yet,
// and asks for the listing again, which finds the child.
func TestReadOfAChildOfAnUnlistedParentListsItAgain(t *testing.T) {
	c := persistentEngine(t)
	tree := map[string]srvNode{
		"/t":   {czxid: 1, mzxid: 1, pzxid: 2, children: []string{"a"}},
		"/t/a": {data: "x", czxid: 2, mzxid: 2, pzxid: 2},
	}
	step(t, c, key{"/t", dataRead}, func() { answer(c, tree, key{"/t", dataRead}) })
	listing, _, _ := c.q.next(context.Background()) // /t's listing, answered now
	early := tree["/t"]
	tree["/t"] = srvNode{czxid: 1, mzxid: 1, pzxid: 3, children: []string{"a", "b"}}
	tree["/t/b"] = srvNode{data: "y", czxid: 3, mzxid: 3, pzxid: 3}
	notify(c, framework.EventNodeCreated, "/t/b")
	step(t, c, key{"/t/b", dataRead}, func() { answer(c, tree, key{"/t/b", dataRead}) })
	reply(c, map[string]srvNode{"/t": early}, listing)
	serve(t, c, tree)
	wantCached(t, c, "/t /t/a /t/b")
}

// TestNoChildJoinsAParentMadeAgain: a node p deleted and made again, then
// given a child c, whose read is applied while the old p is cached and
// p's read is pending. c does not join the old p (it would be reported
// Created, then Deleted with it, then Created again); p's read, made
// again, replaces p and lists c.
func TestNoChildJoinsAParentMadeAgain(t *testing.T) {
	c := persistentEngine(t)
	events := recordEvents(t, c)
	tree := map[string]srvNode{
		"/t":   {czxid: 1, mzxid: 1, pzxid: 2, children: []string{"p"}},
		"/t/p": {data: "a", czxid: 2, mzxid: 2, pzxid: 2},
	}
	serve(t, c, tree)
	tree["/t/p"] = srvNode{data: "b", czxid: 2, mzxid: 3, pzxid: 2}
	notify(c, framework.EventNodeDataChanged, "/t/p")
	pRead, _, _ := c.q.next(context.Background()) // answered now: the old p
	then := maps.Clone(tree)
	// p deleted at 4, made again at 5, its child c made at 6.
	tree["/t"] = srvNode{czxid: 1, mzxid: 1, pzxid: 5, children: []string{"p"}}
	tree["/t/p"] = srvNode{data: "n", czxid: 5, mzxid: 5, pzxid: 6, children: []string{"c"}}
	tree["/t/p/c"] = srvNode{data: "c", czxid: 6, mzxid: 6, pzxid: 6}
	notify(c, framework.EventNodeDeleted, "/t/p")
	notify(c, framework.EventNodeCreated, "/t/p")
	notify(c, framework.EventNodeCreated, "/t/p/c")
	reply(c, then, pRead) // p's read is made again after c's
	serve(t, c, tree)
	wantCached(t, c, "/t /t/p /t/p/c")
	wantEvents(t, c, events, "Created /t, Created /t/p, Initialized , Changed /t/p, Deleted /t/p, Created /t/p, Created /t/p/c")
}

// TestGoneMarksGoWithTheirReads: a listing that drops a child whose read
// is under way marks it; the read's reply, "no node", takes the mark, so a
// churn of unique names (a queue) leaves no marks behind.
func TestGoneMarksGoWithTheirReads(t *testing.T) {
	c := persistentEngine(t)
	tree := map[string]srvNode{"/t": {czxid: 1, mzxid: 1, pzxid: 1}}
	serve(t, c, tree)
	z := int64(1)
	for i := range 200 {
		name := fmt.Sprintf("q%04d", i)
		z++
		tree["/t/"+name] = srvNode{czxid: z, mzxid: z, pzxid: z}
		tree["/t"] = srvNode{czxid: 1, mzxid: 1, pzxid: z, children: []string{name}}
		notify(c, framework.EventNodeCreated, "/t/"+name)
		serve(t, c, tree)
		z++
		delete(tree, "/t/"+name)
		tree["/t"] = srvNode{czxid: 1, mzxid: 1, pzxid: z}
		notify(c, framework.EventNodeDeleted, "/t/"+name)
		k, _, _ := c.q.next(context.Background())       // the deletion's read, under way
		c.applyChildren("/t", nil, srvStat(tree["/t"])) // a listing applied meanwhile
		reply(c, tree, k)
	}
	wantCached(t, c, "/t")
	if n := len(c.nodes["/t"].gone); n > 0 {
		t.Fatalf("/t keeps %d gone marks after 200 children came and went", n)
	}
}

// TestChurnKeepsTheNamesBounded: 5,000 children made and deleted one after
// the other, 10 alive at a time: the names of deleted children a directory
// keeps stay bounded, and it is listed once per forgetAfter deletions.
func TestChurnKeepsTheNamesBounded(t *testing.T) {
	c := persistentEngine(t)
	tree := map[string]srvNode{"/t": {czxid: 1, mzxid: 1, pzxid: 1}}
	serve(t, c, tree)
	z := int64(1)
	var live []string
	peak, lists := 0, 0
	apply := func() {
		for _, m := range serve(t, c, tree) {
			if m == "list /t" {
				lists++
			}
		}
	}
	const n, alive = 5000, 10
	for i := range n {
		name := fmt.Sprintf("q%05d", i)
		z++
		tree["/t/"+name] = srvNode{czxid: z, mzxid: z, pzxid: z}
		live = append(live, name)
		tree["/t"] = srvNode{czxid: 1, mzxid: 1, pzxid: z, children: slices.Clone(live)}
		notify(c, framework.EventNodeCreated, "/t/"+name)
		apply()
		if len(live) > alive {
			z++
			delete(tree, "/t/"+live[0])
			notify(c, framework.EventNodeDeleted, "/t/"+live[0])
			live = live[1:]
			tree["/t"] = srvNode{czxid: 1, mzxid: 1, pzxid: z, children: slices.Clone(live)}
			apply()
		}
		peak = max(peak, len(c.nodes["/t"].children))
	}
	if peak > forgetAfter+alive+1 {
		t.Fatalf("/t named %d children at most, want %d at most", peak, forgetAfter+alive+1)
	}
	if want := (n - alive) / forgetAfter; lists != want {
		t.Fatalf("/t was listed %d times, want %d", lists, want)
	}
	if got := strings.Join(cachedPaths(c), " "); got != "/t /t/"+strings.Join(live, " /t/") {
		t.Fatalf("cached %s", got)
	}
}

// wantEvents fails t unless the events recorded (recordEvents) are want,
// once the engine's deliveries are done.
func wantEvents(t *testing.T, c *Cache, events *[]string, want string) {
	t.Helper()
	c.listeners.Close()
	if got := strings.Join(*events, ", "); got != want {
		t.Fatalf("events %s\nwant   %s", got, want)
	}
}

// recordEvents records the engine's events as "Type path".
func recordEvents(t *testing.T, c *Cache) *[]string {
	var events []string
	if _, err := c.AddListener(func(ev Event) { events = append(events, ev.Type.String()+" "+ev.Path) }); err != nil {
		t.Fatal(err)
	}
	return &events
}

// TestNoChildUnderAKeptNameJoinsAParentMadeAgain: a child deleted (its name
// kept among its parent's children, see goneLocked), the parent deleted
// and made again, the child made again under it; the child's read is
// applied while the parent's is pending. It is not added under the old
// parent (Created, then Deleted with it): the parent's read comes first.
func TestNoChildUnderAKeptNameJoinsAParentMadeAgain(t *testing.T) {
	c := persistentEngine(t)
	events := recordEvents(t, c)
	tree := map[string]srvNode{
		"/t":     {czxid: 1, mzxid: 1, pzxid: 2, children: []string{"p"}},
		"/t/p":   {data: "a", czxid: 2, mzxid: 2, pzxid: 3, children: []string{"c"}},
		"/t/p/c": {data: "c", czxid: 3, mzxid: 3, pzxid: 3},
	}
	serve(t, c, tree)
	// c deleted at 4: its read takes it out, its name stays in p's children.
	delete(tree, "/t/p/c")
	tree["/t/p"] = srvNode{data: "a", czxid: 2, mzxid: 2, pzxid: 4}
	notify(c, framework.EventNodeDeleted, "/t/p/c")
	serve(t, c, tree)
	// p deleted at 5, made again at 6, c made at 7.
	tree["/t"] = srvNode{czxid: 1, mzxid: 1, pzxid: 6, children: []string{"p"}}
	tree["/t/p"] = srvNode{data: "n", czxid: 6, mzxid: 6, pzxid: 7, children: []string{"c"}}
	tree["/t/p/c"] = srvNode{data: "c2", czxid: 7, mzxid: 7, pzxid: 7}
	notify(c, framework.EventNodeDeleted, "/t/p")
	notify(c, framework.EventNodeCreated, "/t/p")
	notify(c, framework.EventNodeCreated, "/t/p/c")
	pRead, _, _ := c.q.next(context.Background()) // p's read, sent by one worker
	then := maps.Clone(tree)
	step(t, c, key{"/t/p/c", dataRead}, func() { answer(c, tree, key{"/t/p/c", dataRead}) }) // c's, by another, applied first
	reply(c, then, pRead)
	serve(t, c, tree)
	wantCached(t, c, "/t /t/p /t/p/c")
	wantEvents(t, c, events, "Created /t, Created /t/p, Created /t/p/c, Initialized , Deleted /t/p/c, Deleted /t/p, Created /t/p, Created /t/p/c")
}

// TestResyncReplacesAParentBeforeItsChild: p and its child c both made
// again while the watch was away; the resync's read of c is applied
// before p's (a resync queues its reads in no set order). c is not made
// again under the old p: the events say p and c were made again, once.
func TestResyncReplacesAParentBeforeItsChild(t *testing.T) {
	c := persistentEngine(t)
	events := recordEvents(t, c)
	tree := map[string]srvNode{
		"/t":     {czxid: 1, mzxid: 1, pzxid: 2, children: []string{"p"}},
		"/t/p":   {czxid: 2, mzxid: 2, pzxid: 3, children: []string{"c"}},
		"/t/p/c": {data: "c", czxid: 3, mzxid: 3, pzxid: 3},
	}
	serve(t, c, tree)
	tree["/t"] = srvNode{czxid: 1, mzxid: 1, pzxid: 6, children: []string{"p"}}
	tree["/t/p"] = srvNode{czxid: 6, mzxid: 6, pzxid: 7, children: []string{"c"}}
	tree["/t/p/c"] = srvNode{data: "c2", czxid: 7, mzxid: 7, pzxid: 7}
	resync(c)
	var ks []key
	for range 3 {
		k, _, _ := c.q.next(context.Background())
		ks = append(ks, k)
	}
	for _, k := range ks { // c first
		if k.path == "/t/p/c" {
			reply(c, tree, k)
		}
	}
	for _, k := range ks {
		if k.path != "/t/p/c" {
			reply(c, tree, k)
		}
	}
	serve(t, c, tree)
	wantCached(t, c, "/t /t/p /t/p/c")
	wantEvents(t, c, events, "Created /t, Created /t/p, Created /t/p/c, Initialized , Deleted /t/p/c, Deleted /t/p, Created /t/p, Created /t/p/c")
}

// TestChildMadeWithItsParentsDataChange: a child made and its parent's
// data set with it (a multi): the child's read finds the parent's read
// pending and waits for it; the parent's read, its Pzxid moved, lists the
// directory (a cost docs/recipes/cache.md names), and the child is cached.
func TestChildMadeWithItsParentsDataChange(t *testing.T) {
	c := persistentEngine(t)
	tree := map[string]srvNode{"/t": {czxid: 1, mzxid: 1, pzxid: 1}}
	for i := range 300 {
		name := fmt.Sprintf("n%03d", i)
		tree["/t/"+name] = srvNode{czxid: 2, mzxid: 2, pzxid: 2}
		n := tree["/t"]
		n.children = append(n.children, name)
		n.pzxid = 2
		tree["/t"] = n
	}
	serve(t, c, tree)
	tree["/t/new"] = srvNode{czxid: 3, mzxid: 3, pzxid: 3}
	n := tree["/t"]
	n.children = append(slices.Clone(n.children), "new")
	n.pzxid, n.mzxid, n.data = 3, 3, "count"
	tree["/t"] = n
	notify(c, framework.EventNodeCreated, "/t/new")
	notify(c, framework.EventNodeDataChanged, "/t")
	// one batch, as a worker takes them: new then /t
	k1, _, _ := c.q.next(context.Background())
	k2, _, _ := c.q.next(context.Background())
	answer(c, tree, k1)
	c.q.done(k1)
	answer(c, tree, k2)
	c.q.done(k2)
	if k1.path != "/t/new" || k2.path != "/t" {
		t.Fatalf("reads %v, %v, want /t/new's, then /t's", k1, k2)
	}
	if got, want := strings.Join(serve(t, c, tree), ", "), "list /t, data /t, data /t/new"; got != want {
		t.Fatalf("then made %s, want %s", got, want)
	}
	wantCached(t, c, strings.Join(append([]string{"/t"}, func() []string {
		var p []string
		for _, ch := range tree["/t"].children {
			p = append(p, "/t/"+ch)
		}
		slices.Sort(p)
		return p
	}()...), " "))
}

// TestResyncLeavesTheNamesOfDeletedChildrenToTheListing: a directory that
// lost a child since its last listing keeps the child's name; a resync
// reads the directory, which lists it (its Pzxid moved), and does not read
// the deleted child by its name.
func TestResyncLeavesTheNamesOfDeletedChildrenToTheListing(t *testing.T) {
	c := persistentEngine(t)
	tree := map[string]srvNode{"/t": {czxid: 1, mzxid: 1, pzxid: 5, children: []string{"a", "b", "c", "d"}}}
	for i, name := range []string{"a", "b", "c", "d"} {
		tree["/t/"+name] = srvNode{czxid: int64(2 + i), mzxid: int64(2 + i), pzxid: int64(2 + i)}
	}
	serve(t, c, tree)
	delete(tree, "/t/a")
	tree["/t"] = srvNode{czxid: 1, mzxid: 1, pzxid: 6, children: []string{"b", "c", "d"}}
	notify(c, framework.EventNodeDeleted, "/t/a")
	if got := strings.Join(serve(t, c, tree), ", "); got != "data /t/a" {
		t.Fatalf("the deletion made %s, want /t/a's read alone", got)
	}
	resync(c)
	made := serve(t, c, tree)
	slices.Sort(made)
	if got, want := strings.Join(made, ", "), "data /t, data /t/b, data /t/c, data /t/d, list /t"; got != want {
		t.Fatalf("the resync made %s, want %s", got, want)
	}
	wantCached(t, c, "/t /t/b /t/c /t/d")
	if got := c.nodes["/t"].children; !slices.Equal(got, []string{"b", "c", "d"}) {
		t.Fatalf("/t's children %q", got)
	}
}

// afterTheGap starts a resync, once the connection came back, and applies
// late, the replies of reads made before the watch was set again, either
// at once or (parentFirst) between the resync's read of /t, which finds
// its children changed and asks for its listing, and that listing.
func afterTheGap(t *testing.T, c *Cache, tree map[string]srvNode, parentFirst bool, late func()) {
	t.Helper()
	resync(c)
	if !parentFirst {
		late()
		return
	}
	step(t, c, key{"/t", dataRead}, func() { answer(c, tree, key{"/t", dataRead}) })
	listing, _, _ := c.q.next(context.Background())
	if listing != (key{"/t", childrenRead}) {
		t.Fatalf("next %v, want /t's listing", listing)
	}
	late()
	reply(c, tree, listing)
}

// gapOrders are afterTheGap's two orders.
var gapOrders = []struct {
	name        string
	parentFirst bool
}{{"at once", false}, {"between the parent's read and its listing", true}}

// TestResyncRedoesAReadFromBeforeTheGap: a new node's read, asked for by
// its notification and answered before the connection dropped, is applied
// after the resync began; the node changed while the watch was away. Applied
// at once, the node waits for its parent's pending read, whose listing reads
// it again; applied after that read, it is added with its old data, and the
// resync, which made every read then in flight again, reads it again.
func TestResyncRedoesAReadFromBeforeTheGap(t *testing.T) {
	for _, order := range gapOrders {
		t.Run(order.name, func(t *testing.T) {
			c := persistentEngine(t)
			tree := map[string]srvNode{"/t": {czxid: 1, mzxid: 1, pzxid: 1}}
			serve(t, c, tree)
			tree["/t"] = srvNode{czxid: 1, mzxid: 1, pzxid: 2, children: []string{"n"}}
			tree["/t/n"] = srvNode{data: "v1", czxid: 2, mzxid: 2, pzxid: 2}
			notify(c, framework.EventNodeCreated, "/t/n")
			inFlight, _, _ := c.q.next(context.Background()) // n's read, answered now
			then := maps.Clone(tree)
			tree["/t/n"] = srvNode{data: "v2", czxid: 2, mzxid: 3, pzxid: 2} // set while the watch was away
			afterTheGap(t, c, tree, order.parentFirst, func() { reply(c, then, inFlight) })
			serve(t, c, tree)
			if n := c.nodes["/t/n"]; n == nil || string(n.data) != "v2" {
				t.Fatalf("/t/n: %+v, want v2", n)
			}
		})
	}
}

// TestResyncDropsAChildDeletedInTheGap: a new node p and its new child g,
// both read before the watch was set again (p with no children), g deleted
// while the watch was away; both replies applied after the resync began,
// in either order of afterTheGap. The cache does not keep g.
func TestResyncDropsAChildDeletedInTheGap(t *testing.T) {
	for _, order := range gapOrders {
		t.Run(order.name, func(t *testing.T) {
			c := persistentEngine(t)
			tree := map[string]srvNode{"/t": {czxid: 1, mzxid: 1, pzxid: 1}}
			serve(t, c, tree)
			tree["/t"] = srvNode{czxid: 1, mzxid: 1, pzxid: 2, children: []string{"p"}}
			tree["/t/p"] = srvNode{czxid: 2, mzxid: 2, pzxid: 2}
			notify(c, framework.EventNodeCreated, "/t/p")
			pRead, _, _ := c.q.next(context.Background())
			thenP := maps.Clone(tree)
			tree["/t/p"] = srvNode{czxid: 2, mzxid: 2, pzxid: 3, children: []string{"g"}}
			tree["/t/p/g"] = srvNode{data: "x", czxid: 3, mzxid: 3, pzxid: 3}
			notify(c, framework.EventNodeCreated, "/t/p/g")
			gRead, _, _ := c.q.next(context.Background())
			thenG := maps.Clone(tree)
			delete(tree, "/t/p/g") // while the watch was away
			tree["/t/p"] = srvNode{czxid: 2, mzxid: 2, pzxid: 4}
			afterTheGap(t, c, tree, order.parentFirst, func() {
				reply(c, thenP, pRead)
				reply(c, thenG, gRead)
			})
			serve(t, c, tree)
			wantCached(t, c, "/t /t/p")
		})
	}
}
