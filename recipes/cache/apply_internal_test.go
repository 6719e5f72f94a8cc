package cache

import (
	"context"
	"math"
	"strings"
	"testing"

	"github.com/gocurator/curator/framework"
	"github.com/gocurator/curator/internal/delivery"
	"github.com/gocurator/curator/listener"
)

// engine returns a started cache of /t whose client is never started: the
// apply functions on their own, fed replies as the server would send them.
func engine(t *testing.T) *Cache {
	client, err := framework.New("127.0.0.1:1") // never started: the engine sends nothing
	if err != nil {
		t.Fatal(err)
	}
	c := &Cache{client: client, root: "/t", opts: options{maxDepth: math.MaxInt}, q: newQueue(), nodes: make(map[string]*entry), state: started, initialized: make(chan struct{})}
	c.listeners = delivery.NewContainer(0, c.fold)
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
	c.applyData("/t", nil, stat(1, 1, 1))
	c.applyChildren("/t", []string{"b"}, stat(1, 1, 2))
	c.applyData("/t/b", []byte("x"), stat(2, 2, 2))
	c.applyData("/t/b", nil, nil) // deleted at 3
	if c.nodes["/t/b"] != nil {
		t.Fatal("b still cached after a read found it gone")
	}
	c.q = newQueue()                                    // forget the reads asked for so far
	c.applyChildren("/t", []string{"b"}, stat(1, 1, 4)) // created again at 4
	if !c.q.pending(key{"/t/b", dataRead}) {
		t.Fatal("the listing naming b again did not ask for b's data")
	}
}

// TestReadOverTakenByAListingIsDropped: a read of a child sent before the
// listing that found the child deleted must not bring it back; a read of a
// later node of that name must.
func TestReadOverTakenByAListingIsDropped(t *testing.T) {
	c := engine(t)
	c.applyData("/t", nil, stat(1, 1, 1))
	c.applyChildren("/t", []string{"b"}, stat(1, 1, 2)) // b's read now pending
	c.applyChildren("/t", nil, stat(1, 1, 3))           // b deleted at 3
	c.applyData("/t/b", []byte("old"), stat(2, 2, 2))   // the pending read, answered before the delete
	if c.nodes["/t/b"] != nil {
		t.Fatal("a read from before the delete brought b back")
	}
	c.applyChildren("/t", []string{"b"}, stat(1, 1, 5)) // created again at 5
	c.applyData("/t/b", []byte("new"), stat(5, 5, 5))
	if e := c.nodes["/t/b"]; e == nil || string(e.data) != "new" {
		t.Fatal("the node created again is not cached")
	}
}

// step makes the next queued read as a worker does, answering it with
// reply, and reports a completed generation as work does.
func step(t *testing.T, c *Cache, want key, reply func()) {
	t.Helper()
	k, _, ok := c.q.next(context.Background())
	if !ok || k != want {
		t.Fatalf("next read %v, want %v", k, want)
	}
	reply()
	if g := c.q.done(k); g != 0 {
		c.generationDone(g)
	}
}

// TestResyncTakesInTheReadsInFlight: a read sent before a reconnect
// belongs to the resync that follows, so the first load is not reported
// done while that read, and what it finds, is missing.
func TestResyncTakesInTheReadsInFlight(t *testing.T) {
	c := engine(t)
	c.q.add(key{"/t", dataRead}, c.q.newGeneration())
	step(t, c, key{"/t", dataRead}, func() { c.applyData("/t", nil, stat(1, 1, 2)) })
	step(t, c, key{"/t", childrenRead}, func() { c.applyChildren("/t", []string{"a"}, stat(1, 1, 2)) })
	inFlight, _, _ := c.q.next(context.Background()) // /t/a's read, sent; then the connection flaps
	c.connectionChanged(listener.Suspended)
	c.connectionChanged(listener.Reconnected)
	step(t, c, key{"/t", dataRead}, func() { c.applyData("/t", nil, stat(1, 1, 2)) })
	step(t, c, key{"/t", childrenRead}, func() { c.applyChildren("/t", []string{"a"}, stat(1, 1, 2)) })
	select {
	case <-c.initialized:
		t.Fatal("Initialized while /t/a's read was in flight")
	default:
	}
	c.applyData(inFlight.path, []byte("x"), stat(2, 2, 2))
	if g := c.q.done(inFlight); g != 0 {
		c.generationDone(g)
	}
	// /t/a's listing, and its read again: the resync's listing named it
	// while the read was in flight.
	serve(t, c, map[string]srvNode{"/t": {czxid: 1, mzxid: 1, pzxid: 2, children: []string{"a"}}, "/t/a": {data: "x", czxid: 2, mzxid: 2, pzxid: 2}})
	select {
	case <-c.initialized:
	default:
		t.Fatalf("not Initialized once every read was made: %s", c.Explain("/t/a"))
	}
}

// TestResyncWaitsForAChildFoundByAnEarlierListing: a listing sent before a
// reconnect finds a new child; the resync is not done until that child is
// read, so Resynced never comes before the child's Created.
func TestResyncWaitsForAChildFoundByAnEarlierListing(t *testing.T) {
	c := engine(t)
	var events []string
	c.AddListener(func(ev Event) { events = append(events, ev.Type.String()+" "+ev.Path) })
	c.q.add(key{"/t", dataRead}, c.q.newGeneration())
	step(t, c, key{"/t", dataRead}, func() { c.applyData("/t", nil, stat(1, 1, 1)) })
	step(t, c, key{"/t", childrenRead}, func() { c.applyChildren("/t", nil, stat(1, 1, 1)) })
	c.q.add(key{"/t", childrenRead}, 0) // a child watch fired
	listing, _, _ := c.q.next(context.Background())
	c.connectionChanged(listener.Suspended)
	c.connectionChanged(listener.Reconnected)
	c.applyChildren(listing.path, []string{"b"}, stat(1, 1, 2)) // the earlier listing's reply names b
	c.q.done(listing)
	step(t, c, key{"/t", dataRead}, func() { c.applyData("/t", nil, stat(1, 1, 2)) })
	read, _, _ := c.q.next(context.Background()) // b's read, in flight
	step(t, c, key{"/t", childrenRead}, func() { c.applyChildren("/t", []string{"b"}, stat(1, 1, 2)) })
	if !c.IsStale() {
		t.Fatalf("resynced while /t/b's read was in flight: %s", c.Explain("/t/b"))
	}
	c.applyData(read.path, []byte("x"), stat(2, 2, 2))
	if g := c.q.done(read); g != 0 {
		c.generationDone(g)
	}
	// /t/b's listing, and its read again: the resync's listing named it
	// while the read was in flight.
	serve(t, c, map[string]srvNode{"/t": {czxid: 1, mzxid: 1, pzxid: 2, children: []string{"b"}}, "/t/b": {data: "x", czxid: 2, mzxid: 2, pzxid: 2}})
	c.listeners.Close()
	if got := strings.Join(events, ", "); !strings.HasSuffix(got, "Stale , Created /t/b, Resynced ") {
		t.Fatalf("events %s", got)
	}
}
