package framework

import (
	"context"
	"time"

	"github.com/gocurator/curator/retry"
)

// retrying runs one operation in the retry loop. Each attempt waits (up to the
// connection timeout) for a connection and then runs fn on it. Close ends
// the loop, its sleeps too; the error is then ErrClosed. The error is an
// *OpError for op and path.
func (c *Client) retrying(ctx context.Context, op, path string, fn func(ctx context.Context, conn conn) error) error {
	var policy retry.Policy = c.cfg.retryPolicy
	obs := c.observe(op, path)
	if obs != nil {
		policy = obs
	}
	err := retry.DoUntil(ctx, c.closing, policy, func(ctx context.Context) error {
		err := c.attempt(ctx, fn)
		if obs != nil {
			obs.attempt(err)
		}
		return err
	})
	if err != nil && ctx.Err() == nil {
		err = c.closedErr(err) // the error of the attempt before Close ended the loop
	}
	err = opErr(op, path, err)
	if obs != nil {
		obs.done(err)
	}
	return err
}

// attempt is one attempt of an operation: it waits (up to the connection
// timeout) for a connection, and runs fn on it.
func (c *Client) attempt(ctx context.Context, fn func(ctx context.Context, conn conn) error) error {
	conn, err := c.connected(ctx, c.cfg.connectionTimeout)
	if err != nil {
		return err
	}
	c.ensureNamespace(ctx, conn)
	return c.closedErr(fn(ctx, conn))
}

// ensureNamespace creates the namespace's root (and its missing parents, as
// containers) before the client's first operation, as Curator does, so that
// a transaction or a listing at the root of a fresh namespace works. Like
// Curator it succeeds once per client: a root reaped later is made again
// only by a create that needs it. It is best effort: an operation that needs
// the root fails on its own if it could not be made (a read-only server, an
// ACL), and the next operation tries again.
func (c *Client) ensureNamespace(ctx context.Context, conn conn) {
	root := c.cfg.namespace.root()
	if root == "/" || c.nsMade.Load() {
		return
	}
	if c.mkdirs(ctx, conn, root, containerParents) == nil {
		c.nsMade.Store(true)
	}
}

// undoGrace is how long a cancelled call whose effect must be undone (a
// create, a transaction) waits for the server's answer, so that the undo
// can happen before the caller returns. Connected, the answer takes one
// round trip.
const undoGrace = time.Second

// undoable pairs a call whose effect must be undone if its caller leaves
// first with that undo. Its late func is the call's Late hook: it undoes the
// answer, then tells settled. After the call, settle waits up to undoGrace
// for that if the caller's ctx ended first, so that a prompt answer is
// undone before the caller returns; a later one is undone when it comes.
type undoable[T any] struct {
	undo    func(T)
	settled chan struct{}
}

func newUndoable[T any](undo func(T)) *undoable[T] {
	return &undoable[T]{undo: undo, settled: make(chan struct{})}
}

// late is the call's Late hook: it undoes a success.
func (u *undoable[T]) late(v T, err error) {
	if err == nil {
		u.undo(v)
	}
	close(u.settled)
}

// settle waits for a call abandoned with ctx to be answered and undone, up
// to undoGrace.
func (u *undoable[T]) settle(ctx context.Context, err error) {
	if err == nil || err != ctx.Err() {
		return // answered: nothing was abandoned
	}
	t := time.NewTimer(undoGrace)
	defer t.Stop()
	select {
	case <-u.settled:
	case <-t.C:
	}
}
