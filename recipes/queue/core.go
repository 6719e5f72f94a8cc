package queue

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"sync"
	"time"

	"github.com/gocurator/curator/framework"
	"github.com/gocurator/curator/internal/goroutine"
)

// Consumer takes one item off a queue (Curator's QueueConsumer). It runs on
// the queue's goroutine, one item at a time, in the queue's order. ctx ends
// when the queue closes, and, in a lock-safe queue, when the item's lock
// may be gone (its Cause is then ErrLockLost): the connection entered an
// error state of the client's ErrorPolicy, so another consumer may take the
// item too. In a lock-safe queue, returning nil removes the item, and an
// error applies the queue's ErrorMode; without a lock the item is already
// removed, and an error is only logged. It may call its queue's Close.
type Consumer[T any] func(ctx context.Context, item T) error

// ErrLockLost is the Cause of a Consumer's context when the item's lock may
// be gone (see Consumer).
var ErrLockLost = errors.New("the item's lock may be lost")

// Queue states.
const (
	created = iota
	started
	closed
)

// core is what every queue type shares: the lifecycle, puts, and the
// consumer's goroutine (consume.go).
type core[T any] struct {
	cfg *config[T]
	log *slog.Logger

	mu     sync.Mutex
	state  int
	ctx    context.Context // the queue's lifetime, from Start; nil before
	cancel context.CancelFunc
	done   chan struct{} // closed when the consumer's goroutine returns; nil without one
	runner uint64        // the consumer's goroutine (goroutine.ID); 0 until it runs
	// skipped holds the items a pass went past because they could not
	// be read, each logged once.
	skipped map[string]bool
	// unsettled holds, by lock node path, the token of a lock create
	// whose outcome could not be told: it may have made the node, which
	// then holds the item for this client's session. The next take or
	// Remove of the item creates with the same token, and so knows that
	// node for its own.
	unsettled map[string][]byte
}

// maxUnsettled bounds the tokens a queue keeps for lock creates of unknown
// outcome.
const maxUnsettled = 1000

// lockTokenFor returns the token for a create of the lock node lock: the
// one kept from a create of unknown outcome (retaking is then true), else a
// new one.
func (q *core[T]) lockTokenFor(lock string) (token []byte, retaking bool) {
	q.mu.Lock()
	defer q.mu.Unlock()
	if t, ok := q.unsettled[lock]; ok {
		return t, true
	}
	return lockToken(q.cfg.client), false
}

// settleToken forgets the token of the lock node lock once a create's
// outcome is known, and keeps it (see unsettled) when it is not.
func (q *core[T]) settleToken(lock string, token []byte, known bool) {
	q.mu.Lock()
	defer q.mu.Unlock()
	switch {
	case known:
		delete(q.unsettled, lock)
	case len(q.unsettled) < maxUnsettled:
		if q.unsettled == nil {
			q.unsettled = make(map[string][]byte)
		}
		q.unsettled[lock] = token
	}
}

func newCore[T any](k kind, client *framework.Client, path string, ser Serializer[T], consumer Consumer[T], opts []Option) (*core[T], error) {
	cfg, err := newConfig(k, client, path, ser, consumer, opts)
	if err != nil {
		return nil, err
	}
	return &core[T]{cfg: cfg, log: client.Logger().With("recipe", k.name, "path", path)}, nil
}

// start creates the queue's node and its lock path's (as Curator's start:
// default data, container parents; existing ones are fine) and starts the
// consumer. ctx is the queue's lifetime.
func (q *core[T]) start(ctx context.Context) error {
	q.mu.Lock()
	switch q.state {
	case started:
		q.mu.Unlock()
		return fmt.Errorf("%w: %s %s", ErrAlreadyStarted, q.cfg.kind.name, q.cfg.path)
	case closed:
		q.mu.Unlock()
		return fmt.Errorf("%w: %s %s", ErrClosed, q.cfg.kind.name, q.cfg.path)
	}
	q.state = started
	q.mu.Unlock()
	for _, p := range []string{q.cfg.path, q.cfg.lockPath} {
		if p == "" {
			continue
		}
		if _, err := q.cfg.client.Create(ctx, p, nil, framework.WithContainerParents()); err != nil && !errors.Is(err, framework.ErrNodeExists) {
			q.mu.Lock()
			q.state = closed // a failed Start is final, as Curator's
			q.mu.Unlock()
			return err
		}
	}
	lctx, cancel := context.WithCancel(ctx)
	q.mu.Lock()
	defer q.mu.Unlock()
	if q.state == closed { // Close came while Start was creating
		cancel()
		return fmt.Errorf("%w: %s %s: closed while starting", ErrClosed, q.cfg.kind.name, q.cfg.path)
	}
	q.ctx, q.cancel = lctx, cancel
	if q.cfg.consumer != nil {
		q.done = make(chan struct{})
		go q.run(lctx)
	}
	return nil
}

// close stops the consumer, waiting for an item under way to be finished
// (its Consumer must return once its context ends), and deletes the lock
// node it holds. Every call waits so, except one from the Consumer itself,
// which would wait on its own return: it stops the consumer and returns,
// and the consumer's goroutine finishes once the Consumer has returned.
func (q *core[T]) close() error {
	q.mu.Lock()
	q.state = closed
	cancel, done := q.cancel, q.done
	q.mu.Unlock()
	if cancel != nil {
		cancel()
	}
	if done != nil && !q.consuming() {
		<-done
	}
	return nil
}

// consuming reports whether the caller is the queue's consumer goroutine
// (running its Consumer).
func (q *core[T]) consuming() bool {
	q.mu.Lock()
	runner := q.runner
	q.mu.Unlock()
	return runner != 0 && goroutine.ID() == runner
}

// check returns an error unless the queue has started and is not closed.
func (q *core[T]) check() error {
	q.mu.Lock()
	defer q.mu.Unlock()
	switch {
	case q.state == created || (q.state == started && q.ctx == nil): // or still starting
		return fmt.Errorf("%w: %s %s", ErrNotStarted, q.cfg.kind.name, q.cfg.path)
	case q.state == closed || q.ctx.Err() != nil:
		return fmt.Errorf("%w: %s %s", ErrClosed, q.cfg.kind.name, q.cfg.path)
	}
	return nil
}

// put serializes items into one node named prefix plus a sequence number.
// As Curator's, a put whose reply is lost is sent again, and may leave the
// items in the queue twice.
func (q *core[T]) put(ctx context.Context, prefix string, items []T) error {
	if len(items) == 0 {
		return fmt.Errorf("%w: %s %s: no item to put", ErrInvalidArg, q.cfg.kind.name, q.cfg.path)
	}
	if err := q.check(); err != nil {
		return err
	}
	raw := make([][]byte, len(items))
	for i, it := range items {
		b, err := q.cfg.ser.Serialize(it)
		if err != nil {
			return fmt.Errorf("queue %s: serializing item %d: %w", q.cfg.path, i, err)
		}
		raw[i] = b
	}
	if q.cfg.maxItemsSet {
		if err := q.waitBelowMax(ctx); err != nil {
			return err
		}
	}
	_, err := q.cfg.client.Create(ctx, framework.JoinPath(q.cfg.path, prefix), encodeItems(raw), framework.WithMode(framework.PersistentSequential))
	return err
}

// waitBelowMax waits until the queue has fewer than maxItems nodes, ctx
// ends, or the queue closes.
func (q *core[T]) waitBelowMax(ctx context.Context) error {
	kids, _, err := q.cfg.client.Children(ctx, q.cfg.path)
	for err == nil && len(kids) >= q.cfg.maxItems {
		var w framework.Watch
		kids, _, w, err = q.cfg.client.ChildrenW(ctx, q.cfg.path)
		if err != nil || len(kids) < q.cfg.maxItems {
			break
		}
		q.mu.Lock()
		life := q.ctx
		q.mu.Unlock()
		select {
		case <-w.Done():
		case <-ctx.Done():
			return ctx.Err()
		case <-life.Done():
			return fmt.Errorf("%w: %s %s", ErrClosed, q.cfg.kind.name, q.cfg.path)
		}
	}
	return err
}

// settleContext returns the context of the requests that settle an item
// taken (removing or requeueing it, deleting its lock): ctx's values
// without its end, bounded by the session timeout (5 s at least), so that
// a queue closing while its Consumer ran still removes the item the
// Consumer took, which would otherwise be delivered again.
func (q *core[T]) settleContext(ctx context.Context) (context.Context, context.CancelFunc) {
	return context.WithTimeout(context.WithoutCancel(ctx), max(q.cfg.client.SessionTimeout(), 5*time.Second))
}
