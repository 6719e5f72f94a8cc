package node

import (
	"sync"

	"github.com/gocurator/curator/internal/goroutine"
)

// EventType says what an Event reports.
type EventType int

const (
	// Created: the node is in place, made by this Node or found there
	// (Curator's PersistentNodeListener.nodeCreated).
	Created EventType = iota + 1
	// Lost: the node is gone, or may be: someone deleted it, or it was
	// ephemeral and its session was lost. The Node makes it again; a
	// Created follows once it is back.
	Lost
)

// String returns the type's name.
func (t EventType) String() string {
	switch t {
	case Created:
		return "Created"
	case Lost:
		return "Lost"
	}
	return "EventType(?)"
}

// Event is a change of a Node's node. Created and Lost alternate, Created
// first.
type Event struct {
	Type EventType
	Path string // the node's path (with its protected prefix and sequence number)
}

// maxQueued bounds the events a slow listener leaves queued; beyond it the
// oldest Created and Lost pair is dropped, which keeps them alternating.
const maxQueued = 1024

// notifier delivers events to listeners, in order, from a goroutine of its
// own, so that a slow listener never holds up the Node's work.
type notifier struct {
	mu        sync.Mutex
	listeners []*listenerEntry
	queue     []Event
	wake      chan struct{} // capacity 1
	quit      chan struct{}
	done      chan struct{}
	running   bool
	deliverer uint64 // the delivery goroutine's id, once it runs
}

type listenerEntry struct {
	fn      func(Event)
	removed bool // guarded by notifier.mu
}

func newNotifier() *notifier {
	return &notifier{wake: make(chan struct{}, 1), quit: make(chan struct{}), done: make(chan struct{})}
}

// add registers fn and returns the function that removes it.
func (n *notifier) add(fn func(Event)) (remove func()) {
	e := &listenerEntry{fn: fn}
	n.mu.Lock()
	n.listeners = append(n.listeners, e)
	n.mu.Unlock()
	return func() {
		n.mu.Lock()
		defer n.mu.Unlock()
		e.removed = true
		for i, l := range n.listeners {
			if l == e {
				n.listeners = append(n.listeners[:i:i], n.listeners[i+1:]...)
				return
			}
		}
	}
}

// start starts the delivery goroutine.
func (n *notifier) start() {
	n.mu.Lock()
	n.running = true
	n.mu.Unlock()
	go n.deliver()
}

// post queues ev; it never blocks.
func (n *notifier) post(ev Event) {
	n.mu.Lock()
	n.queue = append(n.queue, ev)
	if len(n.queue) > maxQueued {
		n.queue = append(n.queue[:0:0], n.queue[2:]...)
	}
	n.mu.Unlock()
	select {
	case n.wake <- struct{}{}:
	default:
	}
}

// delivering reports whether the caller is the delivery goroutine: a
// listener, which must not wait for that goroutine to end.
func (n *notifier) delivering() bool {
	n.mu.Lock()
	id := n.deliverer
	n.mu.Unlock()
	return id != 0 && goroutine.ID() == id
}

// stop delivers what is queued, then stops the goroutine and waits for it.
func (n *notifier) stop() {
	n.mu.Lock()
	running := n.running
	n.running = false
	n.mu.Unlock()
	if running {
		close(n.quit)
		<-n.done
	}
}

func (n *notifier) deliver() {
	defer close(n.done)
	n.mu.Lock()
	n.deliverer = goroutine.ID()
	n.mu.Unlock()
	for {
		n.mu.Lock()
		if len(n.queue) == 0 {
			n.mu.Unlock()
			select {
			case <-n.wake:
				continue
			case <-n.quit:
				n.mu.Lock()
				empty := len(n.queue) == 0
				n.mu.Unlock()
				if empty {
					return
				}
				continue
			}
		}
		ev := n.queue[0]
		n.queue = n.queue[1:]
		ls := append([]*listenerEntry(nil), n.listeners...)
		n.mu.Unlock()
		for _, l := range ls {
			n.mu.Lock()
			removed := l.removed
			n.mu.Unlock()
			if !removed {
				l.fn(ev)
			}
		}
	}
}
