package locks

import (
	"context"

	"github.com/gocurator/curator/framework"
)

// pipelined runs create and, as soon as its request has been written to the
// connection (framework.NotifyWritten), list: ZooKeeper answers a
// session's requests in order, so the listing shows the created node, and
// the two take one round trip instead of two. A listing can still miss the
// node (the create failed, or was sent again on a new connection, or
// create made a request without a path that Written knows); callers then
// list again. ok is false if list failed or never
// ran. pipelined returns only when both are done.
func pipelined[T any](ctx context.Context, create func(context.Context) (string, error), list func(context.Context) (T, error)) (path string, listing T, ok bool, err error) {
	cctx, sent := framework.NotifyWritten(ctx)
	created := make(chan struct{})
	type result struct {
		v  T
		ok bool
	}
	listed := make(chan result, 1)
	go func() { // joined below
		select {
		case <-sent:
			v, err := list(ctx)
			listed <- result{v, err == nil}
		case <-created:
			listed <- result{}
		}
	}()
	path, err = create(cctx)
	close(created)
	r := <-listed
	return path, r.v, r.ok, err
}
