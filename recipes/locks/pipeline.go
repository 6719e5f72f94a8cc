package locks

import (
	"context"
	"sync"

	"github.com/gocurator/curator/framework"
)

// pipelined runs create and, as soon as create's first request has been
// handed to go-zookeeper, list: ZooKeeper answers a session's requests in
// order, so the listing normally shows the created node, and the two take
// one round trip instead of two. A listing that overtook the create lacks
// the node; callers then list again. ok is false if list failed or never
// ran. pipelined returns only when both are done.
func pipelined[T any](ctx context.Context, create func(context.Context) (string, error), list func(context.Context) (T, error)) (path string, listing T, ok bool, err error) {
	sent := make(chan struct{})
	var once sync.Once
	trace := &framework.Trace{BeforeRequest: func() { once.Do(func() { close(sent) }) }}
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
