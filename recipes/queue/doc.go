// Package queue holds Curator's queue recipes, on the same nodes and in the
// same formats as Curator 5, so that Go and Java producers and consumers
// share a queue:
//
//   - Simple is SimpleDistributedQueue (ZooKeeper's own queue recipe): raw
//     bytes in qn- sequential nodes, taken one at a time by the caller.
//   - Queue is DistributedQueue: typed items (a Serializer turns them into
//     bytes) in queue- sequential nodes, in Curator's multi-item format,
//     handed to a Consumer running on the queue's own goroutine; with a lock
//     path (WithLockPath) an item is removed only once its consumer has
//     returned nil, and is otherwise delivered again.
//   - IDQueue, PriorityQueue and DelayQueue are Curator's
//     DistributedIdQueue, DistributedPriorityQueue and DistributedDelayQueue:
//     a Queue whose node names carry an id (removable with Remove), a
//     priority (lower first) or a due time (not delivered before it).
//
// ZooKeeper is not a good store for large or long queues (Curator's Tech
// Note 4): every consumer lists all of a queue's children to take an item,
// a node holds at most about 1 MB (jute.maxbuffer), and a node with very
// many children cannot be listed at all. See docs/recipes/queue.md.
package queue
