package cache

import (
	"fmt"

	"github.com/gocurator/curator/framework"
)

// EventType says what an Event reports.
type EventType int

const (
	// Created: a node came into the cache (Event.Node).
	Created EventType = iota + 1
	// Changed: a node's data changed (Event.Old, then Event.Node).
	Changed
	// Deleted: a node left the cache (Event.Old).
	Deleted
	// Initialized: the first full load is done; the events before it
	// created the cache's first content.
	Initialized
	// Stale: the connection is suspended or lost, or the cache's
	// persistent watch was replaced and set again
	// (framework.EventWatchReset); the cache may fall behind the server
	// until Resynced.
	Stale
	// Resynced: after a reconnect, a new session or a reset of its
	// persistent watch, every cached node was read again; the events
	// before it were exactly the differences.
	Resynced
	// Overflowed: the listeners fell so far behind, after the first load,
	// that the events queued for them were dropped; the cache itself is
	// current, so read it again (Get, Snapshot) instead. The latest Stale
	// or Resynced among the dropped events follows it. The first load's
	// events are never dropped.
	Overflowed
)

// String returns the type's name.
func (t EventType) String() string {
	switch t {
	case Created:
		return "Created"
	case Changed:
		return "Changed"
	case Deleted:
		return "Deleted"
	case Initialized:
		return "Initialized"
	case Stale:
		return "Stale"
	case Resynced:
		return "Resynced"
	case Overflowed:
		return "Overflowed"
	}
	return fmt.Sprintf("EventType(%d)", int(t))
}

// Node is a cached node. Its Data must not be modified.
type Node struct {
	Path string
	Data []byte // nil in a cache made WithoutData
	Stat framework.Stat
}

// Event is a change the cache saw. Path is empty for Initialized, Stale,
// Resynced and Overflowed.
type Event struct {
	Type EventType
	Path string
	Node Node // the node now (Created, Changed)
	Old  Node // the node before (Changed, Deleted)
}
