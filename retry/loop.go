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
	var last error
	err := backoff.RetryNotify(func() error {
		last = op(inner)
		switch {
		case last == nil:
			return nil
		case p == nil || !IsRetryable(last):
			return backoff.Permanent(last)
		}
		if f, ok := p.(ErrorFilter); ok && !f.AllowRetryOn(last) {
			return backoff.Permanent(last)
		}
		return last
	}, backoff.WithContext(&policyBackOff{policy: p}, ctx), nil)
	if err != nil && last != nil && ctx.Err() != nil && !errors.Is(last, ctx.Err()) {
		return fmt.Errorf("%w: %w", ctx.Err(), last)
	}
	return err
}

// policyBackOff adapts a Policy to backoff.BackOff, counting retries and the
// time since the first attempt.
type policyBackOff struct {
	policy  Policy
	start   time.Time
	retries int
}

func (b *policyBackOff) Reset() {
	b.start, b.retries = time.Now(), 0
}

func (b *policyBackOff) NextBackOff() time.Duration {
	sleep, ok := b.policy.AllowRetry(b.retries, time.Since(b.start))
	b.retries++
	if !ok {
		return backoff.Stop
	}
	return sleep
}
