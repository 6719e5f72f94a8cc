package leader

import (
	"context"
	"errors"
	"time"

	"github.com/gocurator/curator/framework"
	"github.com/gocurator/curator/recipes/locks"
)

// cleanupTimeout bounds the foreground delete of an ended term's node.
const cleanupTimeout = 10 * time.Second

// maxPause caps the wait between attempts to join after an error.
const maxPause = 2 * time.Second

// release deletes an ended term's node and reports whether it is surely
// gone. A term that was lost may have left its node to the client's
// guaranteed delete (Release does not wait for a connection that is down);
// the caller then removes it in the foreground before joining again
// (removeStale), so that an old node of ours never stands ahead of the new
// one.
func release(ctx context.Context, hold *locks.Hold) bool {
	rctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), cleanupTimeout)
	defer cancel()
	return hold.Release(rctx) == nil
}

// removeStale deletes the node of an ended term and reports whether it is
// gone.
func removeStale(ctx context.Context, client *framework.Client, path string) bool {
	err := client.Delete(ctx, path, framework.Quietly())
	if err == nil || errors.Is(err, framework.ErrNoNode) {
		return true
	}
	if ctx.Err() == nil {
		client.Logger().Warn("leader: deleting the node of an ended term failed; trying again before joining", "node", path, "err", err)
	}
	return false
}

// sleep waits d (none if zero) and reports whether ctx is still live.
func sleep(ctx context.Context, d time.Duration) bool {
	if d == 0 {
		return ctx.Err() == nil
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return true
	case <-ctx.Done():
		return false
	}
}

// nextPause doubles the wait between failed attempts, from 50 ms to maxPause.
func nextPause(d time.Duration) time.Duration {
	if d == 0 {
		return 50 * time.Millisecond
	}
	return min(2*d, maxPause)
}
