package locks

import (
	"context"
	"sync"

	"github.com/gocurator/curator/framework"
)

// pipelined runs create and, as soon as its request has been written to the
// connection (framework.Trace's Written), list: ZooKeeper answers a
// session's requests in order, so the listing shows the created node, and
// the two take one round trip instead of two. A listing can still miss the
// node (the create failed, or was sent again on a new connection, or
// create made a request without a path that Written knows); callers then
// list again. ok is false if list failed or never
// ran. pipelined returns only when both are done.
func pipelined[T any](ctx context.Context, create func(context.Context) (string, error), list func(context.Context) (T, error)) (path string, listing T, ok bool, err error) {
	sent := make(chan struct{})
	var once sync.Once // create may make several requests that call Written (a driver's own creates)
	trace := &framework.Trace{Written: func() { once.Do(func() { close(sent) }) }}
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
	path, err = create(framework.WithTrace(ctx, trace))
	close(created)
	r := <-listed
	return path, r.v, r.ok, err
}
