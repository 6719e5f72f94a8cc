package cache

import (
	"fmt"
	"sync/atomic"
)

// AddListener registers fn to be told of every change, in order, from a
// goroutine of the cache's own: never the client's, and a slow listener
// delays only this cache's later events (see WithEventBuffer). The first
// load's events, up to Initialized, all reach it however slow it is.
// remove unregisters it; after remove returns, fn is not called again
// (but for a call under way from another goroutine).
func (c *Cache) AddListener(fn func(Event)) (remove func(), err error) {
	if fn == nil {
		return nil, fmt.Errorf("%w: nil listener", ErrInvalidArg)
	}
	var removed atomic.Bool
	rm := c.listeners.Add(func(evs []Event) {
		for _, ev := range evs {
			if removed.Load() {
				return
			}
			fn(ev)
		}
	})
	return func() { removed.Store(true); rm() }, nil
}

// post queues ev for the listeners. Callers hold c.mu, so that the
// listeners hear the events in the order the cache applied them.
func (c *Cache) post(ev Event) { c.listeners.Post([]Event{ev}) }

// fold shortens a full buffer. The first load's events are never dropped:
// those still undelivered, up to Initialized (all of them while the load
// runs), are kept, in one item however many they are. The events after
// them give way to one Overflowed event, followed by the latest Stale or
// Resynced among them. It runs in Post, under c.mu; Initialized is posted
// before c.initialized is closed.
func (c *Cache) fold(pending [][]Event) [][]Event {
	all := pending[0]
	for _, evs := range pending[1:] {
		all = append(all, evs...)
	}
	load := len(all) // the load runs: everything pending is its
	select {
	case <-c.initialized:
		load = 0 // Initialized has been delivered, unless it is pending
		for i, ev := range all {
			if ev.Type == Initialized {
				load = i + 1
				break
			}
		}
	default:
	}
	if load < len(all) {
		kept := overflowed(all[load:])
		dropped := len(all) - load - (len(kept) - 1) // the Stale or Resynced kept is not dropped
		for _, ev := range all[load:] {
			if ev.Type == Overflowed {
				dropped-- // stood for events counted when it was made
			}
		}
		c.report.overflow(dropped)
		all = append(all[:load], kept...)
	}
	return [][]Event{all}
}

// overflowed is what stands for dropped events: one Overflowed, then the
// latest Stale or Resynced among them, which a listener must still see.
func overflowed(dropped []Event) []Event {
	out := []Event{{Type: Overflowed}}
	for i := len(dropped) - 1; i >= 0; i-- {
		if t := dropped[i].Type; t == Stale || t == Resynced {
			return append(out, dropped[i])
		}
	}
	return out
}
