package framework

import (
	"context"

	"github.com/gocurator/curator/internal/zkconn"
)

// Watch is a one-shot ZooKeeper watch, set by ExistsW, GetW or ChildrenW.
// Done is closed once it has fired; nothing needs to wait for it, so a Watch
// is safe to abandon. Watches survive a dropped connection (the client sets
// them again on reconnect) and fire with EventNotWatching when the session
// expires or the client closes.
type Watch struct {
	w    *zkconn.Watch
	ns   namespace
	path string // as the caller named it
}

// watchOf is the Watch of a watching read's result.
func (c *Client) watchOf(n node, path string) Watch {
	if n.watch == nil {
		return Watch{}
	}
	return Watch{w: n.watch, ns: c.cfg.namespace, path: path}
}

// WatchEvent is what a watch saw.
type WatchEvent struct {
	Type EventType // EventNodeCreated, ...Deleted, ...DataChanged, ...ChildrenChanged or EventNotWatching
	Path string    // as the caller names it, without the namespace
	Err  error     // with EventNotWatching: an *OpError whose Kind is ErrSessionExpired or ErrClosed
}

// Done returns a channel that is closed once the watch has fired, for use
// in a select; Event then says what it saw. The zero Watch's is never
// closed.
func (w Watch) Done() <-chan struct{} {
	if w.w == nil {
		return nil
	}
	return w.w.Done()
}

// Event returns what the watch saw, once Done is closed; ok is false
// before.
func (w Watch) Event() (ev WatchEvent, ok bool) {
	if w.w == nil {
		return WatchEvent{}, false
	}
	raw, ok := w.w.Event()
	if !ok {
		return WatchEvent{}, false
	}
	return watchEventOf(w.ns, raw), true
}

// Wait waits for the watch to fire, or for ctx.
func (w Watch) Wait(ctx context.Context) (WatchEvent, error) {
	select {
	case <-w.Done():
		ev, _ := w.Event()
		return ev, nil
	case <-ctx.Done():
		return WatchEvent{}, ctx.Err()
	}
}

// watchEventOf is the connection's notification as the caller names its
// path.
func watchEventOf(ns namespace, ev zkconn.Event) WatchEvent {
	we := WatchEvent{Type: EventType(ev.Type), Path: ns.fromServer(ev.Path)}
	if ev.Err != nil {
		we.Err = opErr("watch", we.Path, ev.Err)
	}
	return we
}
