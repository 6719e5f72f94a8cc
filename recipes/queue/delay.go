package queue

import (
	"context"
	"fmt"
	"time"

	"github.com/gocurator/curator/framework"
)

// DelayQueue is Curator's DistributedDelayQueue: a Queue whose items carry
// a due time in their node names, path/queue-|<epoch ms, hex>|NNNNNNNNNN,
// and are delivered in due-time order, none before it is due by the
// consumer's clock (the clocks of producers and consumers must agree).
type DelayQueue[T any] struct{ c *core[T] }

// consuming reports whether the caller is the queue's Consumer (see Sharder.Close).
func (q *DelayQueue[T]) consuming() bool { return q.c.consuming() }

// NewDelay returns a DelayQueue at path; see New.
func NewDelay[T any](client *framework.Client, path string, ser Serializer[T], consumer Consumer[T], opts ...Option) (*DelayQueue[T], error) {
	c, err := newCore(delayKind(), client, path, ser, consumer, opts)
	if err != nil {
		return nil, err
	}
	return &DelayQueue[T]{c}, nil
}

// Start starts the queue; see Queue.Start.
func (q *DelayQueue[T]) Start(ctx context.Context) error { return q.c.start(ctx) }

// Close stops the queue; see Queue.Close.
func (q *DelayQueue[T]) Close() error { return q.c.close() }

// Put adds an item due at the given time (a time already past: at once;
// it must be after the Unix epoch); see Queue.Put.
func (q *DelayQueue[T]) Put(ctx context.Context, item T, due time.Time) error {
	return q.PutMulti(ctx, []T{item}, due)
}

// PutMulti adds items due at one time in one node; see Queue.PutMulti.
func (q *DelayQueue[T]) PutMulti(ctx context.Context, items []T, due time.Time) error {
	ms := due.UnixMilli()
	if ms <= 0 {
		return fmt.Errorf("%w: delay queue %s: due time %v is not after the Unix epoch", ErrInvalidArg, q.c.cfg.path, due)
	}
	return q.c.put(ctx, delayPrefix(ms), items)
}
