package cache_test

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"testing"

	"github.com/gocurator/curator/framework"
	"github.com/gocurator/curator/recipes/cache"
	"github.com/gocurator/curator/recipestest"
)

// TestStaleThenResyncedWithTheDifferences: while the cache's connection is
// cut, another client creates, sets and deletes; the cache reports Stale,
// and once back, exactly those three differences, then Resynced.
func TestStaleThenResyncedWithTheDifferences(t *testing.T) {
	proxy := recipestest.StartProxy(t, server.ConnectString())
	ns := recipestest.Namespace(t)
	c := recipestest.NewClient(t, proxy.Addr(), framework.WithNamespace(ns))
	w := recipestest.NewClient(t, server.ConnectString(), framework.WithNamespace(ns))
	mustCreate(t, w, "/cfg/a", "1")
	mustCreate(t, w, "/cfg/b", "2")
	cc, r := startCache(t, c, "/cfg")
	r.until(t, cache.Initialized)

	proxy.Blackhole(true)
	if got := describe(r.next(t)); got != "Stale" {
		t.Fatalf("after the cut: %s, want Stale", got)
	}
	if !cc.IsStale() {
		t.Fatal("IsStale false while the connection is down")
	}
	mustCreate(t, w, "/cfg/new", "3")
	if _, err := w.Set(ctxT(t), "/cfg/a", []byte("4"), -1); err != nil {
		t.Fatal(err)
	}
	if err := w.Delete(ctxT(t), "/cfg/b"); err != nil {
		t.Fatal(err)
	}
	proxy.Blackhole(false)
	got := r.until(t, cache.Resynced)
	want := "Changed /cfg/a=1->4, Created /cfg/new=3, Deleted /cfg/b, Resynced"
	if s := strings.Join(append(sortedCopy(got[:len(got)-1]), got[len(got)-1]), ", "); s != want {
		t.Fatalf("after the reconnect: %s\nwant %s", s, want)
	}
	if cc.IsStale() {
		t.Fatal("IsStale after Resynced")
	}
}

// TestSlowListenerOverflows: a listener that stops reading holds up
// neither the client nor another cache; once its buffer is full the
// buffered events give way to one Overflowed event, and the cache itself
// stays current.
func TestSlowListenerOverflows(t *testing.T) {
	cs := clients(t, 2)
	c, w := cs[0], cs[1]
	mustCreate(t, w, "/cfg", "")
	slow, err := cache.New(c, "/cfg", cache.WithEventBuffer(4))
	if err != nil {
		t.Fatal(err)
	}
	block := make(chan struct{})
	var unblock sync.Once
	var seen []string
	done := make(chan struct{})
	if _, err := slow.AddListener(func(ev cache.Event) {
		<-block
		seen = append(seen, describe(ev))
		if ev.Type == cache.Created && ev.Path == "/cfg/last" {
			close(done)
		}
	}); err != nil {
		t.Fatal(err)
	}
	if err := slow.Start(context.Background()); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { unblock.Do(func() { close(block) }); slow.Close() })
	_, fast := startCache(t, c, "/cfg")
	fast.until(t, cache.Initialized)
	for i := range 20 {
		mustCreate(t, w, fmt.Sprintf("/cfg/n%02d", i), "x")
		if got := describe(fast.next(t)); got != fmt.Sprintf("Created /cfg/n%02d=x", i) {
			t.Fatalf("fast cache: %s", got)
		}
	}
	recipestest.Eventually(t, "the slow cache to hold every node", func() (bool, string) {
		return slow.Len() == 21, fmt.Sprint(slow.Len())
	})
	mustCreate(t, w, "/cfg/last", "x")
	unblock.Do(func() { close(block) })
	<-done
	joined := strings.Join(seen, ", ")
	if !strings.Contains(joined, "Overflowed") || strings.Count(joined, "Created") >= 22 {
		t.Fatalf("the slow listener saw %s; want an Overflowed in place of dropped events", joined)
	}
}

// TestEventsPerPathInServerOrder: under a stream of sets, a node's events
// come in the order the server applied them: each Changed starts where the
// one before ended, modification zxids rising, the last set last. (A read
// may take in several sets at once: the cache reports what it read.)
func TestEventsPerPathInServerOrder(t *testing.T) {
	cs := clients(t, 2)
	c, w := cs[0], cs[1]
	mustCreate(t, w, "/cfg/x", "0")
	_, r := startCache(t, c, "/cfg")
	r.until(t, cache.Initialized)
	const sets = 300
	for i := 1; i <= sets; i++ {
		if _, err := w.Set(ctxT(t), "/cfg/x", []byte(fmt.Sprint(i)), -1); err != nil {
			t.Fatal(err)
		}
	}
	var prev int64
	changes := 0
	for {
		ev := r.next(t)
		if ev.Type != cache.Changed || ev.Path != "/cfg/x" {
			t.Fatalf("unexpected %s", describe(ev))
		}
		changes++
		if prev != 0 && ev.Old.Stat.Mzxid != prev || ev.Node.Stat.Mzxid <= ev.Old.Stat.Mzxid {
			t.Fatalf("event %d: %d->%d after %d", changes, ev.Old.Stat.Mzxid, ev.Node.Stat.Mzxid, prev)
		}
		prev = ev.Node.Stat.Mzxid
		if string(ev.Node.Data) == fmt.Sprint(sets) {
			break
		}
	}
	t.Logf("%d sets, %d Changed events", sets, changes)
}
