package group

import "github.com/gocurator/curator/recipes/cache"

// EventType says what an Event reports.
type EventType int

const (
	// Joined: a member's node appeared (the members present at start
	// are reported so, before Initialized).
	Joined EventType = iota + 1
	// Changed: a member's data changed.
	Changed
	// Left: a member's node went.
	Left
	// Initialized: the members present at start have all been reported.
	Initialized
	// Overflowed: the listeners fell so far behind (a buffer of 100,000
	// events) that events were dropped; the view itself is current: read
	// Members again.
	Overflowed
)

// String returns the type's name.
func (t EventType) String() string {
	switch t {
	case Joined:
		return "Joined"
	case Changed:
		return "Changed"
	case Left:
		return "Left"
	case Initialized:
		return "Initialized"
	case Overflowed:
		return "Overflowed"
	}
	return "EventType(?)"
}

// Event is a change of the group's membership. ID and Data are empty for
// Initialized and Overflowed; Data is the member's data after the change (before it, for
// Left).
type Event struct {
	Type EventType
	ID   string
	Data []byte
}

// translate turns a cache event on the membership path into a group
// event; ok is false for the events a group does not report (the
// membership node's own, Stale, Resynced).
func translate(root string, ev cache.Event) (Event, bool) {
	switch ev.Type {
	case cache.Initialized:
		return Event{Type: Initialized}, true
	case cache.Overflowed:
		return Event{Type: Overflowed}, true
	}
	id, ok := memberID(root, ev.Path)
	if !ok {
		return Event{}, false
	}
	switch ev.Type {
	case cache.Created:
		return Event{Type: Joined, ID: id, Data: ev.Node.Data}, true
	case cache.Changed:
		return Event{Type: Changed, ID: id, Data: ev.Node.Data}, true
	case cache.Deleted:
		return Event{Type: Left, ID: id, Data: ev.Old.Data}, true
	}
	return Event{}, false
}
