package framework

import (
	"context"
	"sync"
	"time"

	"github.com/go-zookeeper/zk"

	"github.com/gocurator/curator/retry"
)

// retrying runs one operation in the retry loop. Each attempt waits (up to the
// connection timeout) for a connection and then runs fn on it. Close ends
// the loop, its sleeps too; the error is then ErrClosed. The error is an
// *OpError for op and path.
func (c *Client) retrying(ctx context.Context, op, path string, fn func(ctx context.Context, conn *zk.Conn) error) error {
	err := retry.DoUntil(ctx, c.closing, c.cfg.retryPolicy, func(ctx context.Context) error {
		conn, err := c.connected(ctx, c.cfg.connectionTimeout)
		if err != nil {
			return err
		}
		c.ensureNamespace(ctx, conn)
		return c.closedErr(fn(ctx, conn))
	})
	if err != nil && ctx.Err() == nil {
		err = c.closedErr(err) // the error of the attempt before Close ended the loop
	}
	return opErr(op, path, err)
}

// ensureNamespace creates the namespace's root (and its missing parents, as
// containers) before the client's first operation, as Curator does, so that
// a transaction or a listing at the root of a fresh namespace works. Like
// Curator it succeeds once per client: a root reaped later is made again
// only by a create that needs it. It is best effort: an operation that needs
// the root fails on its own if it could not be made (a read-only server, an
// ACL), and the next operation tries again.
func (c *Client) ensureNamespace(ctx context.Context, conn *zk.Conn) {
	root := c.cfg.namespace.root()
	if root == "/" || c.nsMade.Load() {
		return
	}
	if c.mkdirs(ctx, conn, root, containerParents) == nil {
		c.nsMade.Store(true)
	}
}

// undoGrace is how long a cancelled call whose effect must be undone (a
// create) waits for the server's answer, so that the undo can happen before
// the caller returns. Connected, the answer takes one round trip.
const undoGrace = time.Second

// callCancellable runs f, a blocking go-zookeeper call, and returns its error, or
// ctx.Err() once ctx is done. go-zookeeper cannot cancel a request, so f
// runs on in its goroutine (Close waits for it). If undo is set, a
// cancelled call first waits up to undoGrace for f's answer and hands it to
// undo before returning; later than that, undo runs when f returns. Once
// Close has begun, callCancellable returns ErrClosed without running f.
func (c *Client) callCancellable(ctx context.Context, f func() error, undo func(error)) error {
	if ctx.Done() == nil {
		if c.isClosed() {
			return ErrClosed
		}
		return f()
	}
	if err := ctx.Err(); err != nil {
		return err
	}
	p := &pendingCall{f: f, undo: undo, done: make(chan error, 1)}
	// Counted under the lock Close sets closed with, before it waits: a
	// call either is counted before Close waits, or sees closed.
	c.mu.Lock()
	if c.closed {
		c.mu.Unlock()
		return ErrClosed
	}
	c.wg.Add(1)
	c.mu.Unlock()
	go c.runPending(p)
	select {
	case err := <-p.done:
		return err
	case <-ctx.Done():
	}
	if undo != nil {
		t := time.NewTimer(undoGrace)
		defer t.Stop()
		select {
		case err := <-p.done:
			undo(err)
			return ctx.Err()
		case <-t.C:
		}
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	select {
	case err := <-p.done: // answered just now
		if undo != nil {
			undo(err)
		}
	default:
		p.abandoned = true
	}
	return ctx.Err()
}

// pendingCall is a call running on its own goroutine: one allocation for
// all the state the caller and the goroutine share.
type pendingCall struct {
	f    func() error
	undo func(error)
	done chan error // buffered: the answer, unless abandoned

	mu        sync.Mutex
	abandoned bool // the caller left; undo the answer
}

// runPending runs p.f and hands its answer to the caller, or to p.undo if
// the caller has left.
func (c *Client) runPending(p *pendingCall) {
	defer c.wg.Done()
	err := p.f()
	p.mu.Lock()
	late := p.abandoned
	if !late {
		p.done <- err
	}
	p.mu.Unlock()
	if late && p.undo != nil {
		p.undo(err)
	}
}
