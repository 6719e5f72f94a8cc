package barrier

import (
	"context"
	"errors"
	"fmt"

	"github.com/gocurator/curator/framework"
)

// Barrier is Curator's DistributedBarrier: the barrier is its node, and it
// holds while the node exists. It is safe for concurrent use and has
// nothing to close.
type Barrier struct {
	client *framework.Client
	path   string
}

// NewBarrier returns the barrier whose node is path. It checks its
// arguments and sends nothing.
func NewBarrier(client *framework.Client, path string) (*Barrier, error) {
	if err := checkArgs(client, path); err != nil {
		return nil, err
	}
	return &Barrier{client: client, path: path}, nil
}

// Set raises the barrier: it creates the node (with the client's default
// data, and missing parents as containers, as Curator does), if it does
// not exist. If ctx ends before the server answers, the barrier may have
// been raised all the same, and stays raised: another client's Set may
// already have found it and reported it raised.
func (b *Barrier) Set(ctx context.Context) error {
	_, err := b.client.Create(ctx, b.path, nil, framework.WithContainerParents(), framework.WithoutUndo())
	if errors.Is(err, framework.ErrNodeExists) {
		return nil
	}
	return err
}

// Remove lowers the barrier, letting every waiter go: it deletes the node,
// if it exists.
func (b *Barrier) Remove(ctx context.Context) error {
	return b.client.Delete(ctx, b.path, framework.Quietly())
}

// Wait blocks until the barrier's node does not exist, or ctx ends. It
// returns at once if the barrier is not set.
func (b *Barrier) Wait(ctx context.Context) error {
	for {
		ok, _, w, err := b.client.ExistsW(ctx, b.path)
		if err != nil || !ok {
			return err
		}
		select {
		case <-w.Done(): // deleted, changed, or the session ended: look again
		case <-ctx.Done():
			return ctx.Err()
		}
	}
}

// checkArgs refuses a nil client and a path no node can have, or the root.
func checkArgs(client *framework.Client, path string) error {
	if client == nil {
		return fmt.Errorf("%w: barrier: nil client", ErrInvalidArg)
	}
	if path == "/" {
		return fmt.Errorf("%w: barrier path %q: the root cannot be used", ErrInvalidArg, path)
	}
	if err := framework.ValidatePath(path, false); err != nil {
		return fmt.Errorf("%w: barrier path %q: %w", ErrInvalidArg, path, err)
	}
	return nil
}
