// Package node keeps a node in ZooKeeper for as long as a process wants it
// there: Curator's PersistentNode and PersistentTtlNode.
//
// A Node creates its node in the background and creates it again whenever
// it goes: deleted by someone else, or gone with an expired session (an
// ephemeral node). Its data is the data it was last given (SetData), written
// again by every re-creation. A sequential node is created once, with a
// protected name, and keeps that name for good: after a lost create reply
// the client finds the node it made instead of making a second one, and a
// re-creation makes the same name again instead of a new sequence number.
// Listeners hear Created and Lost, in turn, each time the node comes and
// goes; Close deletes the node.
//
// A TTLNode is a container node kept alive by a TTL child that it touches
// every half TTL: when the process stops touching it, the child expires,
// and then the server reaps the empty container. It needs servers with TTL
// nodes enabled (zookeeper.extendedTypesEnabled=true); on any other, Start
// fails with ErrTTLUnsupported.
//
// See docs/recipes/node.md.
package node
