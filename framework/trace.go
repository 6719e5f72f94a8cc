package framework

import "context"

// Trace holds hooks the client calls while it runs an operation, in the
// manner of net/http/httptrace: attach one to an operation's context with
// WithTrace. Hooks run on the goroutine making the request and must not
// block.
type Trace struct {
	// BeforeRequest is called just before each request of the operation is
	// handed to go-zookeeper, which sends a session's requests in the order
	// it receives them.
	BeforeRequest func()
}

type traceKey struct{}

// WithTrace returns a context that carries t.
func WithTrace(ctx context.Context, t *Trace) context.Context {
	return context.WithValue(ctx, traceKey{}, t)
}

// traced wraps f with the BeforeRequest hook of ctx's trace, if any.
func traced(ctx context.Context, f func() error) func() error {
	t, _ := ctx.Value(traceKey{}).(*Trace)
	if t == nil || t.BeforeRequest == nil {
		return f
	}
	return func() error {
		t.BeforeRequest()
		return f()
	}
}
