// Package delivery delivers events to listeners in order, from one goroutine
// per Container, so that whoever posts them (go-zookeeper's event callback, a
// recipe holding its lock) never runs or waits for a listener.
package delivery

import (
	"slices"
	"sync"

	"github.com/gocurator/curator/internal/goroutine"
	"github.com/gocurator/curator/listener"
)

// DefaultLimit is the number of undelivered events a Container holds before it
// folds them.
const DefaultLimit = 1024

// Container delivers events to its listeners in the order they were posted,
// from one goroutine of its own. Post never blocks, so it is safe to call from
// go-zookeeper's event callback. A listener that blocks delays the listeners
// after it and the events after this one, never the poster.
//
// The queue of undelivered events is bounded. When it is full, the fold
// function given to NewContainer shortens it; FoldFlaps is the one for
// connection states.
type Container[E any] struct {
	fold  func(pending []E) []E
	limit int

	mu        sync.Mutex
	listeners []*entry[E]
	queue     []E
	started   bool   // the delivery goroutine runs (from the first Post)
	deliverer uint64 // its id, once it runs
	closed    bool

	wake    chan struct{} // capacity 1: "the queue may be non-empty"
	quit    chan struct{} // closed by Close
	stopped chan struct{} // closed when the delivery goroutine returns
}

type entry[E any] struct {
	fn      func(E)
	removed bool // guarded by Container.mu
}

// NewContainer returns a container holding at most limit undelivered events
// (DefaultLimit if limit < 1). When a post finds the queue full, fold is given
// the pending events and returns the shorter list to keep; a nil fold drops the
// oldest event. The first Post starts the container's goroutine; Close stops
// it.
func NewContainer[E any](limit int, fold func(pending []E) []E) *Container[E] {
	if limit < 1 {
		limit = DefaultLimit
	}
	return &Container[E]{
		fold:    fold,
		limit:   limit,
		wake:    make(chan struct{}, 1),
		quit:    make(chan struct{}),
		stopped: make(chan struct{}),
	}
}

// Add registers fn and returns a function that removes it. After remove
// returns, fn is not called again, except for a call already under way when
// remove is called from another goroutine. Remove may be called more than once.
func (c *Container[E]) Add(fn func(E)) (remove func()) {
	e := &entry[E]{fn: fn}
	c.mu.Lock()
	c.listeners = append(c.listeners, e)
	c.mu.Unlock()
	return func() {
		c.mu.Lock()
		defer c.mu.Unlock()
		if e.removed {
			return
		}
		e.removed = true
		// slices.Delete clears the slot it frees: a removed listener
		// left in the backing array would keep what it refers to (a
		// closed cache and all it held) from being collected.
		if i := slices.Index(c.listeners, e); i >= 0 {
			c.listeners = slices.Delete(c.listeners, i, i+1)
		}
	}
}

// Post queues ev for every listener registered when it is delivered. It never
// blocks. Events posted after Close are dropped.
func (c *Container[E]) Post(ev E) {
	c.mu.Lock()
	if c.closed {
		c.mu.Unlock()
		return
	}
	if len(c.queue) >= c.limit {
		if c.fold != nil {
			c.queue = c.fold(c.queue)
		}
		if len(c.queue) >= c.limit {
			c.queue = c.queue[1:]
		}
	}
	c.queue = append(c.queue, ev)
	if !c.started {
		c.started = true
		go c.deliver()
	}
	c.mu.Unlock()
	select {
	case c.wake <- struct{}{}:
	default:
	}
}

// Delivering reports whether the caller is the delivery goroutine: a
// listener, or what it calls.
func (c *Container[E]) Delivering() bool {
	c.mu.Lock()
	deliverer := c.deliverer
	c.mu.Unlock()
	return deliverer != 0 && goroutine.ID() == deliverer
}

// Close delivers the events already posted, then stops the delivery goroutine
// and waits for it. Called from a listener, on that goroutine, it does not
// wait: the goroutine stops once the listener has returned and the events
// before Close have been delivered.
func (c *Container[E]) Close() {
	c.mu.Lock()
	if !c.closed {
		c.closed = true
		close(c.quit)
	}
	started := c.started
	c.mu.Unlock()
	if started && !c.Delivering() {
		<-c.stopped
	}
}

func (c *Container[E]) deliver() {
	defer close(c.stopped)
	c.mu.Lock()
	c.deliverer = goroutine.ID()
	c.mu.Unlock()
	for {
		c.mu.Lock()
		if len(c.queue) == 0 {
			closed := c.closed
			c.mu.Unlock()
			if closed {
				return
			}
			select {
			case <-c.wake:
			case <-c.quit:
			}
			continue
		}
		ev := c.queue[0]
		c.queue = c.queue[1:]
		ls := append([]*entry[E](nil), c.listeners...)
		c.mu.Unlock()

		for _, l := range ls {
			c.mu.Lock()
			removed := l.removed
			c.mu.Unlock()
			if !removed {
				l.fn(ev)
			}
		}
	}
}

// FoldFlaps shortens a full queue of connection states by removing the oldest
// Suspended that is directly followed by Reconnected: a flap that ended on
// the session it began on, so the pair tells a late listener nothing it must
// act on. Lost, and the states around it, are never folded. If the queue has
// no such pair, FoldFlaps returns it unchanged and the container drops the
// oldest event.
func FoldFlaps(pending []listener.ConnectionState) []listener.ConnectionState {
	for i := 0; i+1 < len(pending); i++ {
		if pending[i] == listener.Suspended && pending[i+1] == listener.Reconnected {
			return append(pending[:i:i], pending[i+2:]...)
		}
	}
	return pending
}
