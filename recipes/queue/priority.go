package queue

import (
	"context"

	"github.com/gocurator/curator/framework"
)

// PriorityQueue is Curator's DistributedPriorityQueue: a Queue whose items
// carry a priority in their node names, path/queue-<priority>NNNNNNNNNN, so
// that a lower priority is delivered first, and items of one priority in
// the order they were put. Every change to the queue makes each consumer
// list it again (see WithMinItemsBeforeRefresh): it costs more than a
// Queue.
type PriorityQueue[T any] struct{ c *core[T] }

// consuming reports whether the caller is the queue's Consumer (see Sharder.Close).
func (q *PriorityQueue[T]) consuming() bool { return q.c.consuming() }

// NewPriority returns a PriorityQueue at path; see New.
func NewPriority[T any](client *framework.Client, path string, ser Serializer[T], consumer Consumer[T], opts ...Option) (*PriorityQueue[T], error) {
	c, err := newCore(priorityKind(), client, path, ser, consumer, opts)
	if err != nil {
		return nil, err
	}
	return &PriorityQueue[T]{c}, nil
}

// Start starts the queue; see Queue.Start.
func (q *PriorityQueue[T]) Start(ctx context.Context) error { return q.c.start(ctx) }

// Close stops the queue; see Queue.Close.
func (q *PriorityQueue[T]) Close() error { return q.c.close() }

// Put adds an item with a priority (lower first); see Queue.Put.
func (q *PriorityQueue[T]) Put(ctx context.Context, item T, priority int32) error {
	return q.c.put(ctx, priorityPrefix(priority), []T{item})
}

// PutMulti adds items with one priority in one node; see Queue.PutMulti.
func (q *PriorityQueue[T]) PutMulti(ctx context.Context, items []T, priority int32) error {
	return q.c.put(ctx, priorityPrefix(priority), items)
}
