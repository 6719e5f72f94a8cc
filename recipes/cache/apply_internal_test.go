package cache

import (
	"math"
	"testing"

	"github.com/gocurator/curator/framework"
	"github.com/gocurator/curator/listener"
)

// engine returns a started cache of /t with no client: the apply functions
// on their own, fed replies as the server would send them.
func engine(t *testing.T) *Cache {
	c := &Cache{root: "/t", opts: options{maxDepth: math.MaxInt}, q: newQueue(), listeners: listener.NewContainer[Event](0, nil), nodes: make(map[string]*entry), state: started, initialized: make(chan struct{})}
	t.Cleanup(c.listeners.Close)
	return c
}

func stat(czxid, mzxid, pzxid int64) *framework.Stat {
	return &framework.Stat{Czxid: czxid, Mzxid: mzxid, Pzxid: pzxid}
}

// TestListingFindsANodeBackThatAReadFoundGone: a read finds a child gone
// (no watch is set on a missing node), the child is created again, and the
// parent's next listing still names it as the one before did: the listing
// must ask for the child's data, or the cache never holds it again.
func TestListingFindsANodeBackThatAReadFoundGone(t *testing.T) {
	c := engine(t)
	c.applyData("/t", nil, stat(1, 1, 1), 0)
	c.applyChildren("/t", []string{"b"}, stat(1, 1, 2), 0)
	c.applyData("/t/b", []byte("x"), stat(2, 2, 2), 0)
	c.applyData("/t/b", nil, nil, 0) // deleted at 3
	if c.nodes["/t/b"] != nil {
		t.Fatal("b still cached after a read found it gone")
	}
	c.q = newQueue()                                       // forget the reads asked for so far
	c.applyChildren("/t", []string{"b"}, stat(1, 1, 4), 0) // created again at 4
	if !c.q.pending(key{"/t/b", dataRead}) {
		t.Fatal("the listing naming b again did not ask for b's data")
	}
}

// TestReadOverTakenByAListingIsDropped: a read of a child sent before the
// listing that found the child deleted must not bring it back; a read of a
// later node of that name must.
func TestReadOverTakenByAListingIsDropped(t *testing.T) {
	c := engine(t)
	c.applyData("/t", nil, stat(1, 1, 1), 0)
	c.applyChildren("/t", []string{"b"}, stat(1, 1, 2), 0) // b's read now pending
	c.applyChildren("/t", nil, stat(1, 1, 3), 0)           // b deleted at 3
	c.applyData("/t/b", []byte("old"), stat(2, 2, 2), 0)   // the pending read, answered before the delete
	if c.nodes["/t/b"] != nil {
		t.Fatal("a read from before the delete brought b back")
	}
	c.applyChildren("/t", []string{"b"}, stat(1, 1, 5), 0) // created again at 5
	c.applyData("/t/b", []byte("new"), stat(5, 5, 5), 0)
	if e := c.nodes["/t/b"]; e == nil || string(e.node.Data) != "new" {
		t.Fatal("the node created again is not cached")
	}
}
