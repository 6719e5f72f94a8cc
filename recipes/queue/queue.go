package queue

import (
	"context"

	"github.com/gocurator/curator/framework"
)

// Queue is Curator's DistributedQueue: items of type T, serialized into
// PERSISTENT_SEQUENTIAL nodes path/queue-NNNNNNNNNN in Curator's format,
// delivered to a Consumer in node order (first in, first out, for one
// consumer). Make one with New, Start it, and Close it when done.
//
// Without WithLockPath an item is removed before its Consumer runs, and
// only one consumer's removal succeeds: at most once. With it, an item is
// removed only after its Consumer returned nil, under an ephemeral lock
// node: at least once, and exactly once unless a consumer fails, its
// context ends, or its session is lost while it holds the item. A node
// whose data is not in Curator's format, or that the Serializer refuses,
// is logged and removed, as Curator does.
type Queue[T any] struct{ c *core[T] }

// consuming reports whether the caller is the queue's Consumer (see Sharder.Close).
func (q *Queue[T]) consuming() bool { return q.c.consuming() }

// New returns a Queue at path whose items ser turns into bytes, delivered to
// consumer; a nil consumer makes a producer-only queue. Nothing is sent
// until Start.
func New[T any](client *framework.Client, path string, ser Serializer[T], consumer Consumer[T], opts ...Option) (*Queue[T], error) {
	c, err := newCore(fifoKind(), client, path, ser, consumer, opts)
	if err != nil {
		return nil, err
	}
	return &Queue[T]{c}, nil
}

// Start creates the queue's node and the lock path's if missing (with
// container parents) and starts the consumer on a goroutine of the
// queue's. ctx is the queue's lifetime: when it ends the queue stops as if
// closed. A queue starts once.
func (q *Queue[T]) Start(ctx context.Context) error { return q.c.start(ctx) }

// Close stops the consumer and returns once it has stopped: an item being
// consumed is finished first (its Consumer's context ends), and its lock
// node deleted. Items stay in the queue. Close is idempotent, and every
// call waits so, except one from the Consumer: a Consumer may call Close
// (to stop at a "poison pill" item, say), which then ends the Consumer's
// context and returns without waiting for the Consumer, which is itself;
// the item is settled as for any Consumer whose context ended, once the
// Consumer returns.
func (q *Queue[T]) Close() error { return q.c.close() }

// Put adds an item at the end of the queue (in the foreground: Curator's
// default background put is a Put in a goroutine). With WithMaxItems it
// first waits for room. As with Curator, a put whose reply the connection
// lost is sent again, and may add the item twice. If ctx ends while the
// create is in flight, Put returns ctx's error and the client deletes the
// node if it was made after all; a consumer may have taken the item in
// that moment.
func (q *Queue[T]) Put(ctx context.Context, item T) error {
	return q.c.put(ctx, itemPrefix, []T{item})
}

// PutMulti adds items in one node: consumers take them together, in
// order. It needs at least one item.
func (q *Queue[T]) PutMulti(ctx context.Context, items []T) error {
	return q.c.put(ctx, itemPrefix, items)
}
