package framework

import (
	"context"
	"fmt"
)

// AddWatchMode is the kind of a persistent watch, as ZooKeeper's
// AddWatchMode.
type AddWatchMode uint8

// The persistent watch modes.
const (
	// WatchPersistent watches one node: its create, data changes and delete,
	// and changes to its list of children.
	WatchPersistent AddWatchMode = iota + 1
	// WatchPersistentRecursive watches a node and every node under it: their
	// creates, data changes and deletes (no children changes).
	WatchPersistentRecursive
)

func (m AddWatchMode) String() string {
	switch m {
	case WatchPersistent:
		return "persistent"
	case WatchPersistentRecursive:
		return "persistent recursive"
	}
	return fmt.Sprintf("AddWatchMode(%d)", uint8(m))
}

// AddWatch sets a persistent watch on path, as ZooKeeper's addWatch (3.6
// and later) and Curator's watchers().add() do: unlike a one-shot watch it
// stays after it fires. Its notifications go to the watch listeners
// (AddWatchListener) that cover the node that changed: EventNodeCreated,
// EventNodeDeleted and EventNodeDataChanged for that node, and, with
// WatchPersistent only, EventNodeChildrenChanged for path. The node need
// not exist.
//
// The watch lasts as long as the connection it was set on. go-zookeeper
// does not set persistent watches again when it reconnects, and the server
// does not replay what changed meanwhile: after a reconnect (Reconnected,
// or a new session) set the watch again and then read afresh whatever it
// watches, as Curator's PersistentWatcher and CuratorCache do. A server
// before 3.9 holds one watch per path and connection: a one-shot watch set
// later on path itself replaces the persistent one there.
//
// The watch is the connection's, not the caller's: adding it twice sets it
// once, and RemoveWatch takes it off for every user of the client.
func (c *Client) AddWatch(ctx context.Context, path string, mode AddWatchMode) error {
	if mode != WatchPersistent && mode != WatchPersistentRecursive {
		return opErr("addWatch", path, fmt.Errorf("%w: watch mode %v", ErrInvalidArg, mode))
	}
	_, err := singleRequest(ctx, c, "addWatch", path, func(ctx context.Context, conn conn, full string) (struct{}, error) {
		return struct{}{}, conn.AddWatch(ctx, full, mode == WatchPersistentRecursive)
	})
	return err
}

// RemoveWatch takes off path the persistent watch of mode that AddWatch
// set there, as ZooKeeper's removeWatches does; it fails with ErrNoWatcher
// if the connection holds none.
func (c *Client) RemoveWatch(ctx context.Context, path string, mode AddWatchMode) error {
	if mode != WatchPersistent && mode != WatchPersistentRecursive {
		return opErr("removeWatches", path, fmt.Errorf("%w: watch mode %v", ErrInvalidArg, mode))
	}
	_, err := singleRequest(ctx, c, "removeWatches", path, func(ctx context.Context, conn conn, full string) (struct{}, error) {
		return struct{}{}, conn.RemoveWatch(ctx, full, mode == WatchPersistentRecursive)
	})
	return err
}
