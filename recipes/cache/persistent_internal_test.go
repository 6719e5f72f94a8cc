package cache

import (
	"context"
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
		answer(c, tree, k)
		if g := c.q.done(k); g != 0 {
			c.generationDone(g)
		}
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
	c.resyncLocked(c.q.add)
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
	if got := strings.Join(cachedPaths(c), " "); got != "/t /t/a /t/b /t/b/c" {
		t.Fatalf("cached %s", got)
	}

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
	if got := strings.Join(cachedPaths(c), " "); got != "/t /t/a /t/a/d /t/b" {
		t.Fatalf("cached %s after the resync", got)
	}
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
	old := tree["/t/a"]
	tree["/t/a"] = srvNode{data: "x", czxid: 2, mzxid: 2, pzxid: 3, children: []string{"b"}}
	tree["/t/a/b"] = srvNode{data: "y", czxid: 3, mzxid: 3, pzxid: 3}
	resync(c) // the watch is set again after the child's create
	c.applyData(inFlight.path, []byte(old.data), srvStat(old))
	if g := c.q.done(inFlight); g != 0 {
		c.generationDone(g)
	}
	serve(t, c, tree)
	if got := strings.Join(cachedPaths(c), " "); got != "/t /t/a /t/a/b" {
		t.Fatalf("cached %s, want /t /t/a /t/a/b", got)
	}
}
