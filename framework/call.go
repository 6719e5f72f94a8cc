package framework

import (
	"context"
	"sync"

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

// call runs f, a blocking go-zookeeper call, and returns its error, or
// ctx.Err() as soon as ctx is done. go-zookeeper cannot cancel a request, so
// an abandoned f runs on in its goroutine (Close waits for it); when it
// finally returns, late is called with its error so a caller can undo what
// the request did after all. late may be nil.
func (c *Client) call(ctx context.Context, f func() error, late func(error)) error {
	if ctx.Done() == nil {
		return f()
	}
	if err := ctx.Err(); err != nil {
		return err
	}
	var (
		mu        sync.Mutex
		abandoned bool
		finished  bool
		done      = make(chan error, 1)
	)
	c.wg.Add(1)
	go func() {
		defer c.wg.Done()
		err := f()
		mu.Lock()
		if abandoned {
			mu.Unlock()
			if late != nil {
				late(err)
			}
			return
		}
		finished = true
		mu.Unlock()
		done <- err
	}()
	select {
	case err := <-done:
		return err
	case <-ctx.Done():
		mu.Lock()
		if finished {
			mu.Unlock()
			return <-done
		}
		abandoned = true
		mu.Unlock()
		return ctx.Err()
	}
}
