// Package cache keeps an in-memory copy of a node, its children, or a
// subtree, in sync with ZooKeeper: Curator's CuratorCache, NodeCache,
// PathChildrenCache and TreeCache in one engine, and Kazoo's DataWatch and
// ChildrenWatch as two small helpers.
//
// A Cache learns of changes through one persistent watch on its path (a
// cache of a whole tree or of one node, by default) or a one-shot watch on
// each node, set in the same request as the node's read (a cache of a few
// levels, by default); see WithPersistentWatch. It re-reads a node when a
// watch tells of a change, and tells its listeners what changed: Created,
// Changed and Deleted per node, Initialized once the first full load is
// done, Stale while the connection is down, and Resynced once a re-read
// after a reconnect or a new session has delivered exactly the differences.
// Changes are detected on the creation and modification zxids, so a node
// deleted and created again between two reads is reported as both. See
// docs/recipes/cache.md.
package cache
