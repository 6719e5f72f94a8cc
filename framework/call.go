package framework

import (
	"context"
	"sync"
	"time"

	"github.com/go-zookeeper/zk"

	"github.com/gocurator/curator/retry"
)

// do runs one operation in the retry loop. Each attempt waits (up to the
// connection timeout) for a connection and then runs fn on it. The error is
// an *OpError for op and path.
func (c *Client) do(ctx context.Context, op, path string, fn func(ctx context.Context, conn *zk.Conn) error) error {
	err := retry.Do(ctx, c.cfg.retryPolicy, func(ctx context.Context) error {
		conn, err := c.connected(ctx, c.cfg.connectionTimeout)
		if err != nil {
			return err
		}
		return c.closedErr(fn(ctx, conn))
	})
	return opErr(op, path, err)
}

// undoGrace is how long a cancelled call whose effect must be undone (a
// create) waits for the server's answer, so that the undo can happen before
// the caller returns. Connected, the answer takes one round trip.
const undoGrace = time.Second

// call runs f, a blocking go-zookeeper call, and returns its error, or
// ctx.Err() once ctx is done. go-zookeeper cannot cancel a request, so f
// runs on in its goroutine (Close waits for it). If undo is set, a
// cancelled call first waits up to undoGrace for f's answer and hands it to
// undo before returning; later than that, undo runs when f returns.
func (c *Client) call(ctx context.Context, f func() error, undo func(error)) error {
	f = traced(ctx, f)
	if ctx.Done() == nil {
		return f()
	}
	if err := ctx.Err(); err != nil {
		return err
	}
	var (
		mu        sync.Mutex
		abandoned bool
		done      = make(chan error, 1)
	)
	c.wg.Add(1)
	go func() {
		defer c.wg.Done()
		err := f()
		mu.Lock()
		late := abandoned
		if !late {
			done <- err
		}
		mu.Unlock()
		if late && undo != nil {
			undo(err)
		}
	}()
	select {
	case err := <-done:
		return err
	case <-ctx.Done():
	}
	if undo != nil {
		t := time.NewTimer(undoGrace)
		defer t.Stop()
		select {
		case err := <-done:
			undo(err)
			return ctx.Err()
		case <-t.C:
		}
	}
	mu.Lock()
	defer mu.Unlock()
	select {
	case err := <-done: // answered just now
		if undo != nil {
			undo(err)
		}
	default:
		abandoned = true
	}
	return ctx.Err()
}
