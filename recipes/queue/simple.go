package queue

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/gocurator/curator/framework"
)

// Simple is Curator's SimpleDistributedQueue, ZooKeeper's own queue
// recipe: each item is the raw bytes of a PERSISTENT_SEQUENTIAL node
// path/qn-NNNNNNNNNN, and a taker reads the first node and deletes it; only
// one taker's delete succeeds, so an item is taken once. The queue's node
// is a container, which the server removes once it is empty. A Simple has
// no goroutine and nothing to start or close.
type Simple struct {
	client *framework.Client
	path   string
}

// NewSimple returns the Simple queue at path. Nothing is sent.
func NewSimple(client *framework.Client, path string) (*Simple, error) {
	if client == nil {
		return nil, fmt.Errorf("%w: simple queue %s: nil client", ErrInvalidArg, path)
	}
	if err := framework.ValidatePath(path, false); err != nil {
		return nil, fmt.Errorf("%w: simple queue %q: %w", ErrInvalidArg, path, err)
	}
	if path == "/" {
		return nil, fmt.Errorf("%w: simple queue: the root cannot be a queue", ErrInvalidArg)
	}
	return &Simple{client: client, path: path}, nil
}

// Offer adds data at the end of the queue, creating the queue's node (a
// container) if it is missing. As with Curator, an offer whose reply the
// connection lost is sent again, and may add the item twice.
func (s *Simple) Offer(ctx context.Context, data []byte) error {
	if data == nil {
		data = []byte{} // not the client's default data
	}
	_, err := s.client.Create(ctx, framework.JoinPath(s.path, simplePrefix), data,
		framework.WithMode(framework.PersistentSequential), framework.WithContainerParents())
	return err
}

// Take removes the first item and returns its data, waiting for one while
// the queue is empty, until ctx ends (Curator's take, and poll with a
// timeout). If the reply to its delete is lost and it cannot tell whether
// it or another taker removed the item, it returns the item's data with an
// error wrapping framework.ErrOutcomeUnknown.
func (s *Simple) Take(ctx context.Context) ([]byte, error) {
	for {
		names, _, w, err := s.client.ChildrenW(ctx, s.path)
		if errors.Is(err, framework.ErrNoNode) { // no queue yet, or reaped: wait for an offer to make it
			ok, _, ew, err := s.client.ExistsW(ctx, s.path)
			if err != nil {
				return nil, err
			}
			if !ok {
				if _, err := ew.Wait(ctx); err != nil {
					return nil, err
				}
			}
			continue
		}
		if err != nil {
			return nil, err
		}
		data, err := s.first(ctx, names, true)
		if !errors.Is(err, ErrEmpty) {
			return data, err
		}
		if _, err := w.Wait(ctx); err != nil {
			return nil, err
		}
	}
}

// Poll removes the first item and returns its data, or ErrEmpty at once if
// there is none (Curator's poll without a timeout, and remove). See Take
// for a removal whose outcome is unknown.
func (s *Simple) Poll(ctx context.Context) ([]byte, error) { return s.head(ctx, true) }

// Peek returns the first item's data without removing it, or ErrEmpty
// (Curator's peek, and element).
func (s *Simple) Peek(ctx context.Context) ([]byte, error) { return s.head(ctx, false) }

func (s *Simple) head(ctx context.Context, remove bool) ([]byte, error) {
	names, _, err := s.client.Children(ctx, s.path)
	if errors.Is(err, framework.ErrNoNode) {
		return nil, fmt.Errorf("%w: simple queue %s", ErrEmpty, s.path)
	}
	if err != nil {
		return nil, err
	}
	return s.first(ctx, names, remove)
}

// first reads (and with remove deletes) the first item of a listing that
// is still there, trying the next one when another taker was first.
func (s *Simple) first(ctx context.Context, names []string, remove bool) ([]byte, error) {
	slices.Sort(names)
	for _, name := range names {
		if !strings.HasPrefix(name, simplePrefix) {
			s.client.Logger().Warn("queue: foreign node in a simple queue's path", "path", s.path, "node", name)
			continue
		}
		p := framework.JoinPath(s.path, name)
		data, _, err := s.client.Get(ctx, p)
		if errors.Is(err, framework.ErrNoNode) {
			continue
		}
		if err != nil || !remove {
			return data, err
		}
		// A transaction, so that a delete whose reply was lost reports an
		// unknown outcome rather than another taker's NoNode.
		_, err = s.client.Txn(ctx, framework.DeleteOp(p, -1))
		var te *framework.TxnError
		switch {
		case errors.As(err, &te):
			continue // another taker removed it
		case errors.Is(err, framework.ErrOutcomeUnknown):
			return data, fmt.Errorf("simple queue %s: taking %s: %w", s.path, name, err)
		case err != nil:
			return nil, err
		}
		return data, nil
	}
	return nil, fmt.Errorf("%w: simple queue %s", ErrEmpty, s.path)
}
