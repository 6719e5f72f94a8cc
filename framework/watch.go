package framework

import (
	"context"
	"fmt"
)

// Watch is a one-shot ZooKeeper watch. Its channel receives one event and is
// then closed; nothing blocks if it is never read, so a Watch is safe to
// abandon. Watches survive a dropped connection (go-zookeeper sets them
// again on reconnect) and fire with EventNotWatching when the session
// expires or the client closes.
type Watch struct {
	ch   <-chan Event
	ns   namespace
	path string // as the caller named it, for errors
}

// WatchEvent is what a watch saw.
type WatchEvent struct {
	Type EventType // EventNodeCreated, ...Deleted, ...DataChanged, ...ChildrenChanged or EventNotWatching
	Path string    // as the caller names it, without the namespace
	Err  error     // with EventNotWatching: an *OpError whose Kind is ErrSessionExpired or ErrClosed
}

// C returns the channel the event arrives on, for use in a select; pass what
// it yields to Event.
func (w Watch) C() <-chan Event { return w.ch }

// Event translates a raw event from C.
func (w Watch) Event(ev Event) WatchEvent {
	path := w.ns.fromServer(ev.Path)
	return WatchEvent{Type: ev.Type, Path: path, Err: opErr("watch", path, ev.Err)}
}

// Wait waits for the event or for ctx. A watch whose event was already
// taken (by Wait or from C) is ErrInvalidArg.
func (w Watch) Wait(ctx context.Context) (WatchEvent, error) {
	select {
	case ev, ok := <-w.ch:
		if !ok { // go-zookeeper closes the channel only after its one event
			return WatchEvent{}, opErr("watch", w.path, fmt.Errorf("%w: the watch's event was already taken", ErrInvalidArg))
		}
		return w.Event(ev), nil
	case <-ctx.Done():
		return WatchEvent{}, ctx.Err()
	}
}
