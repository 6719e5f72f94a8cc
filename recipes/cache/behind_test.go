package cache_test

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"golang.org/x/sync/errgroup"

	"github.com/gocurator/curator/framework"
	"github.com/gocurator/curator/recipes/cache"
	"github.com/gocurator/curator/recipestest"
)

// TestFirstLoadNeverOverflows: a first load larger than the event buffer,
// with a listener that takes nothing until the load is done, reaches the
// listener whole: one Created per node, then Initialized, and no
// Overflowed. After the load, the buffer's bound holds again: a listener
// that falls behind gets Overflowed.
func TestFirstLoadNeverOverflows(t *testing.T) {
	const nodes, buffer = 120, 8
	cs := clients(t, 2)
	c, w := cs[0], cs[1]
	mustCreate(t, w, "/cfg", "")
	g, gctx := errgroup.WithContext(ctxT(t))
	g.SetLimit(16)
	for i := range nodes - 1 {
		g.Go(func() error {
			_, err := w.Create(gctx, fmt.Sprintf("/cfg/n%03d", i), []byte("x"))
			return err
		})
	}
	if err := g.Wait(); err != nil {
		t.Fatal(err)
	}
	cc, err := cache.New(c, "/cfg", cache.WithEventBuffer(buffer))
	if err != nil {
		t.Fatal(err)
	}
	var (
		mu      sync.Mutex
		seen    []cache.Event
		gate    atomic.Pointer[chan struct{}] // the listener waits on it while set
		waiting = make(chan struct{}, 1)      // the listener waits at the gate
		got     = make(chan struct{}, 1)
	)
	shut := func() chan struct{} {
		g := make(chan struct{})
		gate.Store(&g)
		return g
	}
	load := shut() // the listener takes nothing until the load is done
	if _, err := cc.AddListener(func(ev cache.Event) {
		if g := gate.Load(); g != nil {
			select {
			case waiting <- struct{}{}:
			default:
			}
			<-*g
		}
		mu.Lock()
		seen = append(seen, ev)
		mu.Unlock()
		select {
		case got <- struct{}{}:
		default:
		}
	}); err != nil {
		t.Fatal(err)
	}
	events := func() []cache.Event {
		mu.Lock()
		defer mu.Unlock()
		return append([]cache.Event(nil), seen...)
	}
	// until waits for the listener to take an event of path (or of type
	// typ, for path "").
	until := func(path string, typ cache.EventType) {
		t.Helper()
		for {
			evs := events()
			if n := len(evs); n > 0 && (path != "" && evs[n-1].Path == path || path == "" && evs[n-1].Type == typ) {
				return
			}
			select {
			case <-got:
			case <-ctxT(t).Done():
				var tail []string
				for _, ev := range evs[max(len(evs)-8, 0):] {
					tail = append(tail, describe(ev))
				}
				t.Fatalf("the listener saw %d events, never %s %v; the last: %v", len(evs), path, typ, tail)
			}
		}
	}
	if err := cc.Start(context.Background()); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = cc.Close() })
	<-cc.Initialized() // the whole load is posted; the listener has taken nothing
	gate.Store(nil)
	close(load)
	until("", cache.Initialized)
	created := make(map[string]bool)
	for _, ev := range events() {
		switch ev.Type {
		case cache.Created:
			created[ev.Path] = true
		case cache.Initialized:
		default:
			t.Fatalf("the first load of %d nodes with a buffer of %d: %v among its events", nodes, buffer, ev.Type)
		}
	}
	if len(created) != nodes || len(events()) != nodes+1 {
		t.Fatalf("the listener saw %d events, %d nodes created, want %d and Initialized", len(events()), len(created), nodes)
	}

	// After the load the bound holds: a stalled listener is told it
	// overflowed.
	stalled := shut()
	<-waiting // drained: a stale signal from the load
	if _, err := w.Set(ctxT(t), "/cfg/n000", []byte("y"), -1); err != nil {
		t.Fatal(err)
	}
	<-waiting // the listener holds the Changed
	for i := range 3 * buffer {
		mustCreate(t, w, fmt.Sprintf("/cfg/later%02d", i), "z")
	}
	mustCreate(t, w, "/cfg/last", "z")
	recipestest.Eventually(t, "the cache to hold the later nodes", func() (bool, string) {
		_, ok := cc.Get("/cfg/last")
		return ok && cc.Len() == nodes+3*buffer+1, fmt.Sprint(cc.Len())
	})
	gate.Store(nil)
	close(stalled)
	mustCreate(t, w, "/cfg/final", "z") // posted after every event before it
	until("/cfg/final", 0)
	var types []string
	for _, ev := range events()[nodes+1:] {
		types = append(types, ev.Type.String())
	}
	if !strings.Contains(strings.Join(types, " "), "Overflowed") {
		t.Fatalf("after the load, a stalled listener saw %v: want an Overflowed", types)
	}
}

// call is one call of a watcher's function.
type call struct {
	state  string
	missed int
}

// TestWatchersSayWhenTheyFallBehind: a watcher whose function is slow
// reads the node once it returns, and its next call says how many changes
// it never showed: the versions in between, the children's creates and
// deletes in between, a change before a delete. A watcher that keeps up
// says 0.
func TestWatchersSayWhenTheyFallBehind(t *testing.T) {
	hook := &cacheHook{}
	cs := clients(t, 2, framework.WithHooks(hook))
	c, w := cs[0], cs[1]
	ctx := ctxT(t)
	mustCreate(t, w, "/cfg/x", "v0")
	mustCreate(t, w, "/svc", "")

	calls := make(chan call, 16)
	hold := make(chan chan struct{}, 16) // the test releases calls it holds
	fnData := func(n cache.Node, exists bool, missed int) {
		calls <- call{fmt.Sprintf("%v %s", exists, n.Data), missed}
		if release := <-hold; release != nil {
			<-release
		}
	}
	next := func() call {
		t.Helper()
		select {
		case got := <-calls:
			return got
		case <-ctx.Done():
			t.Fatal("the watcher's function was not called")
			return call{}
		}
	}
	set := func(path, data string) {
		t.Helper()
		if _, err := w.Set(ctx, path, []byte(data), -1); err != nil {
			t.Fatal(err)
		}
	}

	hold <- nil // the first call returns at once
	wd, err := cache.WatchData(context.Background(), c, "/cfg/x", fnData, cache.WithLabel("data"))
	if err != nil {
		t.Fatal(err)
	}
	defer wd.Close()
	if got := next(); got != (call{"true v0", 0}) {
		t.Fatalf("first call %+v", got)
	}
	release := make(chan struct{})
	hold <- release // the next call is slow
	set("/cfg/x", "v1")
	if got := next(); got != (call{"true v1", 0}) {
		t.Fatalf("after one set: %+v, want v1 and nothing missed", got)
	}
	for i := 2; i <= 6; i++ { // while the function still runs
		set("/cfg/x", fmt.Sprintf("v%d", i))
	}
	hold <- release
	close(release)
	if got := next(); got != (call{"true v6", 4}) {
		t.Fatalf("after five sets while the function ran: %+v, want v6 with 4 missed (v2..v5)", got)
	}
	release = make(chan struct{})
	hold <- nil
	set("/cfg/x", "v7") // keeps up again
	if got := next(); got != (call{"true v7", 0}) {
		t.Fatalf("a watcher that keeps up: %+v", got)
	}
	hold <- release
	set("/cfg/x", "v8")
	if got := next(); got != (call{"true v8", 0}) {
		t.Fatalf("%+v", got)
	}
	set("/cfg/x", "v9") // a change, then a delete, while the function runs
	if err := w.Delete(ctx, "/cfg/x"); err != nil {
		t.Fatal(err)
	}
	hold <- nil
	close(release)
	if got := next(); got != (call{"false ", 1}) {
		t.Fatalf("after a set and a delete while the function ran: %+v, want the node gone with 1 missed (v9)", got)
	}

	// The children: creates and deletes while the function runs.
	kidCalls := make(chan call, 16)
	kidHold := make(chan chan struct{}, 16)
	kidHold <- nil // the first call returns at once
	wc, err := cache.WatchChildren(context.Background(), c, "/svc", func(kids []string, exists bool, missed int) {
		kidCalls <- call{fmt.Sprint(exists, kids), missed}
		if release := <-kidHold; release != nil {
			<-release
		}
	}, cache.WithLabel("kids"))
	if err != nil {
		t.Fatal(err)
	}
	defer wc.Close()
	nextKid := func() call {
		t.Helper()
		select {
		case got := <-kidCalls:
			return got
		case <-ctx.Done():
			t.Fatal("the children watcher's function was not called")
			return call{}
		}
	}
	if got := nextKid(); got != (call{"true []", 0}) {
		t.Fatalf("first children call %+v", got)
	}
	release = make(chan struct{})
	kidHold <- release
	mustCreate(t, w, "/svc/a", "")
	if got := nextKid(); got != (call{"true [a]", 0}) {
		t.Fatalf("after one create: %+v", got)
	}
	mustCreate(t, w, "/svc/b", "")                  // while the function runs: [a b]
	mustCreate(t, w, "/svc/c", "")                  // [a b c]
	if err := w.Delete(ctx, "/svc/b"); err != nil { // [a c]
		t.Fatal(err)
	}
	kidHold <- nil
	close(release)
	if got := nextKid(); got != (call{"true [a c]", 2}) {
		t.Fatalf("after three changes while the function ran: %+v, want [a c] with 2 missed", got)
	}
	if err := errors.Join(wd.Close(), wc.Close()); err != nil {
		t.Fatal(err)
	}
	// The hooks heard each call as a change, and each call's missed
	// changes as an overflow.
	expect(t, "the data watcher", hook.await(t, "data", 8), []string{"resync initial=true nodes=1 changes=0",
		"changed /cfg/x nodes=1", "changed /cfg/x nodes=1", "overflow 4", "changed /cfg/x nodes=1", "changed /cfg/x nodes=1",
		"deleted /cfg/x nodes=0", "overflow 1"}, 0)
	expect(t, "the children watcher", hook.await(t, "kids", 4), []string{"resync initial=true nodes=0 changes=0",
		"changed /svc nodes=1", "changed /svc nodes=2", "overflow 2"}, 0)
}
