package node

import "github.com/gocurator/curator/internal/delivery"

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

// newEvents returns the Node's listeners and the goroutine that calls them,
// in order, so that a slow listener never holds up the Node's work.
func newEvents() *delivery.Container[Event] {
	return delivery.NewContainer(maxQueued, func(pending []Event) []Event {
		return pending[2:] // the oldest Created and Lost pair
	})
}
