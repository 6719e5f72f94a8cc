package framework

import "context"

// Trace holds hooks the client calls while it runs an operation, in the
// manner of net/http/httptrace: attach one to an operation's context with
// WithTrace.
type Trace struct {
	// Written is called once the request of a Create, or of a Txn, has been
	// written to the server's connection. A request made on the same Client
	// after that is sent, and answered, after it: go-zookeeper sends a
	// session's requests in order and ZooKeeper answers them in order,
	// unless the connection drops in between and the create is sent again
	// on the next one. The request is known by the path it creates (for a
	// Txn, its first op's path), so a concurrent create of the same path may
	// set it off instead. It is called at most once, and not at all if the
	// request is never written; other operations do not call it.
	//
	// Written runs on go-zookeeper's send loop, which sends nothing, pings
	// included, until it returns: it must not block, and must not wait for
	// a request on the same Client. The answer can come back before the
	// send loop gets to call it: an operation that succeeds then calls it
	// itself, on the caller's goroutine, as it returns; one that fails
	// does not. Either way a call under way on the send loop has returned
	// before the operation does.
	Written func()
}

type traceKey struct{}

// WithTrace returns a context that carries t.
func WithTrace(ctx context.Context, t *Trace) context.Context {
	return context.WithValue(ctx, traceKey{}, t)
}

// traceWritten arranges for ctx's Written hook, if any, to be called once a
// request carrying full (a path as sent to the server) is written. The
// operation calls the returned func as it returns, with whether it
// succeeded: a success's request was written, so the hook is called then if
// the send loop has not called it yet.
func (c *Client) traceWritten(ctx context.Context, full string) (done func(succeeded bool)) {
	t, _ := ctx.Value(traceKey{}).(*Trace)
	if t == nil || t.Written == nil {
		return func(bool) {}
	}
	remove := c.writes.Add(full, t.Written)
	return func(succeeded bool) {
		if remove() && succeeded {
			t.Written()
		}
	}
}
