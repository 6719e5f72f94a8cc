package framework

import (
	"fmt"
	"time"

	"github.com/gocurator/curator/internal/zkconn"
	"github.com/gocurator/curator/observe"
	"github.com/gocurator/curator/retry"
)

// WithHooks registers hooks that observe the client and every recipe built
// on it: each is a value implementing one or more of package observe's hook
// interfaces (observe.RequestHook, observe.LockHook, ...). They are called
// on a goroutine of the client's, in order, never with a lock of the
// client's held; a hook that blocks or panics cannot stall or break the
// client (see package observe). A value that implements none of them is
// ErrInvalidArg.
func WithHooks(hooks ...any) Option {
	return func(c *config) error {
		for i, h := range hooks {
			if h == nil {
				return fmt.Errorf("%w: nil hook %d", ErrInvalidArg, i)
			}
		}
		c.hooks = append(c.hooks, hooks...)
		return nil
	}
}

// Hooks returns the hooks registered on the client (WithHooks), for recipes
// to report to: nil if there are none, and a nil *observe.Hooks reports
// nothing.
func (c *Client) Hooks() *observe.Hooks { return c.hooks }

// onRequest hands the door's report of a request to the hooks.
func (c *Client) onRequest(r zkconn.RequestInfo) {
	c.hooks.Request(observe.Request{Time: r.Start, Op: r.Op, Path: c.cfg.namespace.fromServer(r.Path),
		Latency: r.Latency, Err: r.Err, BytesOut: r.BytesOut, BytesIn: r.BytesIn})
}

// observed is one operation's retry loop as the hooks hear it: its policy,
// which reports each decision, and what its attempts were.
type observed struct {
	retry.Policy
	c        *Client
	op, path string
	start    time.Time
	attempts int
	last     error
}

// observe returns the policy of one operation that reports to the hooks, or
// nil when the client has no hook that hears operations or retries.
func (c *Client) observe(op, path string) *observed {
	if c.hooks == nil {
		return nil
	}
	return &observed{Policy: c.cfg.retryPolicy, c: c, op: op, path: path, start: time.Now()}
}

// attempt counts an attempt and its error.
func (o *observed) attempt(err error) error {
	o.attempts++
	o.last = err
	return err
}

// AllowRetry asks the client's policy, and reports its decision.
func (o *observed) AllowRetry(retries int, elapsed time.Duration) (time.Duration, bool) {
	var sleep time.Duration
	var ok bool
	if o.Policy != nil { // a nil policy never retries
		sleep, ok = o.Policy.AllowRetry(retries, elapsed)
	}
	o.c.hooks.Retry(observe.Retry{Time: time.Now(), Op: o.op, Path: o.path, Attempt: o.attempts, Err: o.last, Sleep: sleep, GaveUp: !ok})
	return sleep, ok
}

// AllowRetryOn asks the client's policy's filter, if it has one.
func (o *observed) AllowRetryOn(err error) bool {
	if f, ok := o.Policy.(retry.ErrorFilter); ok {
		return f.AllowRetryOn(err)
	}
	return true
}

// done reports the operation.
func (o *observed) done(err error) {
	o.c.hooks.Operation(observe.Operation{Time: o.start, Op: o.op, Path: o.path, Latency: time.Since(o.start), Attempts: o.attempts, Err: err})
}
