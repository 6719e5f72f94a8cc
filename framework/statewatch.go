package framework

import (
	"maps"
	"slices"
	"sync"

	"github.com/gocurator/curator/listener"
)

// WatchConnectionState registers fn for every later state change and
// returns a function that removes it. Unlike a listener
// (AddConnectionStateListener), fn is called at the transition itself, on
// the goroutine that makes it and with the client's state locked, before any
// listener hears of it: a listener that blocks cannot delay it, and no state
// is folded away. So fn must return at once and must not call the client.
// Recipes watch their holds' connection with it; most code wants a listener.
func (c *Client) WatchConnectionState(fn func(listener.ConnectionState)) (remove func(), err error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.closed {
		return nil, ErrClosed
	}
	return c.watchers.add(fn), nil
}

// stateWatchers holds the functions WatchConnectionState registered.
type stateWatchers struct {
	mu   sync.Mutex
	next int
	fns  map[int]func(listener.ConnectionState)
}

func (w *stateWatchers) add(fn func(listener.ConnectionState)) (remove func()) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.fns == nil {
		w.fns = make(map[int]func(listener.ConnectionState))
	}
	id := w.next
	w.next++
	w.fns[id] = fn
	return func() {
		w.mu.Lock()
		defer w.mu.Unlock()
		delete(w.fns, id)
	}
}

// notify calls every watcher with s, outside w.mu: a watcher removed
// meanwhile may still get this call.
func (w *stateWatchers) notify(s listener.ConnectionState) {
	w.mu.Lock()
	fns := slices.Collect(maps.Values(w.fns))
	w.mu.Unlock()
	for _, fn := range fns {
		fn(s)
	}
}
