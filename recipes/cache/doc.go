// Package cache keeps an in-memory copy of a node, its children, or a
// subtree, in sync with ZooKeeper: Curator's CuratorCache, NodeCache,
// PathChildrenCache and TreeCache in one engine, and Kazoo's DataWatch and
// ChildrenWatch as two small helpers.
//
// A Cache reads each node with a watch set in the same request, re-reads it
// when the watch fires, and tells its listeners what changed: Created,
// Changed and Deleted per node, Initialized once the first full load is
// done, Stale while the connection is down, and Resynced once a re-read
// after a reconnect or a new session has delivered exactly the differences.
// Changes are detected on the creation and modification zxids, so a node
// deleted and created again between two reads is reported as both. See
// docs/recipes/cache.md.
package cache
