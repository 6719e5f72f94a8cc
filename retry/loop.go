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
// The loop itself is cenkalti/backoff's RetryNotify; the policy plugs in as
// its BackOff.
func Do(ctx context.Context, p Policy, op func(ctx context.Context) error) error {
	if ctx.Value(inLoopKey{}) != nil {
		return op(ctx)
	}
	inner := context.WithValue(ctx, inLoopKey{}, true)
	start := time.Now()
	last := op(inner)
	if last == nil || !retryable(p, last) {
		return withCtxErr(ctx, last) // the common case, without the loop's allocations
	}
	first := true
	err := backoff.RetryNotify(func() error {
		if !first {
			last = op(inner)
		}
		first = false
		switch {
		case last == nil:
			return nil
		case !retryable(p, last):
			return backoff.Permanent(last)
		}
		return last
	}, backoff.WithContext(&policyBackOff{policy: p, start: start}, ctx), nil)
	if err != nil && last != nil && ctx.Err() != nil {
		return withCtxErr(ctx, last)
	}
	return err
}

// withCtxErr wraps err with ctx's error if ctx has ended and err does not
// already say so.
func withCtxErr(ctx context.Context, err error) error {
	if err != nil && ctx.Err() != nil && !errors.Is(err, ctx.Err()) {
		return fmt.Errorf("%w: %w", ctx.Err(), err)
	}
	return err
}

// retryable reports whether p allows another attempt after err.
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

// Reset starts counting; the time since the first attempt counts from the
// start given, if any.
func (b *policyBackOff) Reset() {
	if b.start.IsZero() {
		b.start = time.Now()
	}
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
