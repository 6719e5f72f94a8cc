package queue

import (
	"context"
	"errors"
	"fmt"

	"github.com/gocurator/curator/framework"
)

// IDQueue is Curator's DistributedIdQueue: a Queue whose items carry an id
// in their node names, path/queue-|<id>|NNNNNNNNNN ("/" and "|" in the id
// become "_"), so that they can be removed by id before they are
// consumed. Items are delivered in the order they were put.
type IDQueue[T any] struct{ c *core[T] }

// consuming reports whether the caller is the queue's Consumer (see Sharder.Close).
func (q *IDQueue[T]) consuming() bool { return q.c.consuming() }

// NewID returns an IDQueue at path (which cannot contain "|"); see New.
func NewID[T any](client *framework.Client, path string, ser Serializer[T], consumer Consumer[T], opts ...Option) (*IDQueue[T], error) {
	c, err := newCore(idKind(), client, path, ser, consumer, opts)
	if err != nil {
		return nil, err
	}
	return &IDQueue[T]{c}, nil
}

// Start starts the queue; see Queue.Start.
func (q *IDQueue[T]) Start(ctx context.Context) error { return q.c.start(ctx) }

// Close stops the queue; see Queue.Close.
func (q *IDQueue[T]) Close() error { return q.c.close() }

// Put adds an item with an id, which need not be unique; see Queue.Put.
func (q *IDQueue[T]) Put(ctx context.Context, item T, id string) error {
	if err := q.validID(id); err != nil {
		return err
	}
	return q.c.put(ctx, idPrefix(id), []T{item})
}

// Remove removes every item with this id that no consumer has taken, and
// returns how many it removed. In a lock-safe queue it takes each item's
// lock first, so an item being consumed is left to its consumer, this
// queue's own included.
func (q *IDQueue[T]) Remove(ctx context.Context, id string) (int, error) {
	if err := q.validID(id); err != nil {
		return 0, err
	}
	if err := q.c.check(); err != nil {
		return 0, err
	}
	c := q.c.cfg.client
	names, _, err := c.Children(ctx, q.c.cfg.path)
	if err != nil {
		return 0, err
	}
	n := 0
	for _, name := range names {
		if got, _, ok := parseID(name); !ok || got != fixID(id) {
			continue
		}
		ok, err := q.c.tryRemove(ctx, name)
		if err != nil {
			return n, err
		}
		if ok {
			n++
		}
	}
	return n, nil
}

// validID checks an id before any request: not empty, and a valid node
// name once fixed.
func (q *IDQueue[T]) validID(id string) error {
	if id == "" {
		return fmt.Errorf("%w: id queue %s: empty id", ErrInvalidArg, q.c.cfg.path)
	}
	if err := framework.ValidatePath(framework.JoinPath(q.c.cfg.path, idPrefix(id)), true); err != nil {
		return fmt.Errorf("%w: id queue %s: id %q: %w", ErrInvalidArg, q.c.cfg.path, id, err)
	}
	return nil
}

// tryRemove removes one item node without delivering it (Curator's
// tryRemove): under its lock in a lock-safe queue, otherwise at version 0.
// It reports false if another consumer has the item or took it.
func (q *core[T]) tryRemove(ctx context.Context, name string) (bool, error) {
	c := q.cfg.client
	item := framework.JoinPath(q.cfg.path, name)
	gone := func(err error) bool {
		return errors.Is(err, framework.ErrNoNode) || errors.Is(err, framework.ErrBadVersion)
	}
	if q.cfg.lockPath == "" {
		err := c.Delete(ctx, item, framework.WithVersion(0))
		if gone(err) {
			return false, nil
		}
		return err == nil, err
	}
	lock := framework.JoinPath(q.cfg.lockPath, name)
	token, _ := q.lockTokenFor(lock)
	session := c.SessionID()
	_, err := c.Create(ctx, lock, token, framework.WithMode(framework.Ephemeral))
	switch {
	case errors.Is(err, framework.ErrNodeExists) || err == nil && c.SessionID() != session:
		// Ours only if a retry after a lost reply, or an earlier Remove
		// that could not tell, made the node with this token (a consumer
		// on the same session has the item otherwise), or, the session
		// having changed around the create, if the current session owns
		// it.
		session, err = q.ownsLock(ctx, lock, token)
		q.settleToken(lock, token, err == nil)
		if session == 0 || err != nil {
			return false, err
		}
	case err != nil:
		// The create may have been made all the same, its answer lost:
		// the next take or Remove of the item tries with this token.
		q.settleToken(lock, token, false)
		return false, err
	default:
		q.settleToken(lock, token, true)
	}
	defer q.unlock(ctx, lock, session)
	err = c.Delete(ctx, item)
	if gone(err) {
		return false, nil
	}
	return err == nil, err
}
