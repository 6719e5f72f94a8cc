package retry

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/cenkalti/backoff/v4"
)

type inLoopKey struct{}

// Do runs op until it succeeds, fails with an error that is not retryable,
// or the policy (and its ErrorFilter, if any) refuses another try, sleeping
// per the policy between attempts. A nil policy never retries.
//
// Do returns at once when ctx is done, during a sleep too, with an error that
// wraps ctx.Err() and the last error of op.
//
// Nested loops do not multiply retries: op receives a context marked as
// inside a loop, and a Do called with such a context runs its op once and
// returns the error unchanged, leaving retries to the outermost loop.
//
// After a first attempt that may be retried, the loop is cenkalti/backoff's
// RetryNotify; the policy plugs in as its BackOff.
func Do(ctx context.Context, p Policy, op func(ctx context.Context) error) error {
	return DoUntil(ctx, nil, p, op)
}

// DoUntil is Do for a loop whose owner can end it: once stop is done, the
// loop makes no further attempt, a sleep between attempts ends at once, and
// DoUntil returns the last error of op, which does not wrap stop's error
// (stop is not the caller's context). op runs under ctx alone. A nil stop
// is Do. The framework's client passes a context done at Close, so that a
// call does not sleep out its policy on a closed client.
func DoUntil(ctx, stop context.Context, p Policy, op func(ctx context.Context) error) error {
	if ctx.Value(inLoopKey{}) != nil {
		return op(ctx)
	}
	inner := context.WithValue(ctx, inLoopKey{}, true)
	// The first attempt runs before the backoff machinery is built: nearly
	// every call succeeds at once, and this is every request's path.
	start := time.Now()
	last := op(inner)
	if last != nil && retryable(p, last) && (stop == nil || stop.Err() == nil) {
		sleepCtx := ctx
		if stop != nil {
			var cancel context.CancelFunc
			sleepCtx, cancel = context.WithCancel(ctx)
			defer cancel()
			defer context.AfterFunc(stop, cancel)()
		}
		replay := true // the backoff loop starts with the first attempt's error
		err := backoff.RetryNotify(func() error {
			if replay { // already judged retryable: ask the policy's filter once per error
				replay = false
				return last
			}
			if stop != nil && stop.Err() != nil { // sooner than AfterFunc's cancel, after a short sleep
				return backoff.Permanent(last)
			}
			last = op(inner)
			switch {
			case last == nil:
				return nil
			case !retryable(p, last):
				return backoff.Permanent(last)
			}
			return last
		}, backoff.WithContext(&policyBackOff{policy: p, start: start}, sleepCtx), nil)
		if err == nil {
			return nil
		}
	}
	if last != nil && ctx.Err() != nil && !errors.Is(last, ctx.Err()) {
		return fmt.Errorf("%w: %w", ctx.Err(), last)
	}
	return last
}

// retryable reports whether err may be retried under p.
func retryable(p Policy, err error) bool {
	if p == nil || !IsRetryable(err) {
		return false
	}
	f, ok := p.(ErrorFilter)
	return !ok || f.AllowRetryOn(err)
}

// policyBackOff adapts a Policy to backoff.BackOff, counting retries and the
// time since the first attempt.
type policyBackOff struct {
	policy  Policy
	start   time.Time
	retries int
}

// Reset counts retries from none; the time counts from the first attempt,
// which the loop set in start.
func (b *policyBackOff) Reset() {
	b.retries = 0
}

func (b *policyBackOff) NextBackOff() time.Duration {
	sleep, ok := b.policy.AllowRetry(b.retries, time.Since(b.start))
	b.retries++
	if !ok {
		return backoff.Stop
	}
	return sleep
}
