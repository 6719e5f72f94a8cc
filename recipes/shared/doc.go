// Package shared holds Curator's shared values: SharedValue, a node's bytes
// that every participant reads and sets with a version check, and
// SharedCount, a SharedValue holding a 4-byte big-endian integer. Java and
// Go participants share one node: the format is Curator's.
//
// A Value keeps a local copy, refreshed by a watch that survives dropped
// connections and lost sessions (it reads the node again then, since
// changes made meanwhile are not replayed), and tells its listeners about
// every change it sees, in order, on a goroutine of its own.
package shared
