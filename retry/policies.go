package retry

import (
	"errors"
	"math"
	"math/rand/v2"
	"time"

	"github.com/gocurator/curator/internal/zkerr"
)

// maxExponentialRetries is Curator's cap: 2^(29+1) base sleeps already
// overflow any useful wait.
const maxExponentialRetries = 29

// ExponentialBackoffRetry is Curator's ExponentialBackoffRetry(base,
// maxRetries): up to maxRetries retries (capped at 29), sleeping
// base × max(1, a random integer in [0, 2^(retries+1))).
func ExponentialBackoffRetry(base time.Duration, maxRetries int) Policy {
	return ExponentialBackoffRetryMaxSleep(base, maxRetries, 0)
}

// defaultMaxSleep is Curator's cap on an exponential sleep when none is
// given: Integer.MAX_VALUE milliseconds.
const defaultMaxSleep = math.MaxInt32 * time.Millisecond

// ExponentialBackoffRetryMaxSleep is ExponentialBackoffRetry with each sleep
// capped at maxSleep (if maxSleep <= 0, at Curator's default of
// Integer.MAX_VALUE milliseconds): Curator's three-argument constructor.
func ExponentialBackoffRetryMaxSleep(base time.Duration, maxRetries int, maxSleep time.Duration) Policy {
	base = max(base, 0)
	maxRetries = min(max(maxRetries, 0), maxExponentialRetries)
	if maxSleep <= 0 {
		maxSleep = defaultMaxSleep
	}
	return PolicyFunc(func(retries int, _ time.Duration) (time.Duration, bool) {
		if retries >= maxRetries {
			return 0, false
		}
		n := min(max(retries, 0), maxExponentialRetries)
		factor := time.Duration(max(1, rand.Int64N(int64(1)<<(n+1))))
		if base > 0 && factor > maxSleep/base { // base × factor would pass the cap, or overflow
			return maxSleep, true
		}
		return min(base*factor, maxSleep), true
	})
}

// BoundedExponentialBackoffRetry is Curator's
// BoundedExponentialBackoffRetry(base, maxSleep, maxRetries).
func BoundedExponentialBackoffRetry(base, maxSleep time.Duration, maxRetries int) Policy {
	return ExponentialBackoffRetryMaxSleep(base, maxRetries, maxSleep)
}

// RetryNTimes is Curator's RetryNTimes(n, sleep): up to n retries, sleeping
// sleep before each.
func RetryNTimes(n int, sleep time.Duration) Policy {
	sleep = max(sleep, 0)
	return PolicyFunc(func(retries int, _ time.Duration) (time.Duration, bool) {
		return sleep, retries < n
	})
}

// RetryOneTime is Curator's RetryOneTime(sleep): RetryNTimes(1, sleep).
func RetryOneTime(sleep time.Duration) Policy { return RetryNTimes(1, sleep) }

// RetryUntilElapsed is Curator's RetryUntilElapsed(maxElapsed, sleep): retry
// while less than maxElapsed has passed since the first attempt began.
func RetryUntilElapsed(maxElapsed, sleep time.Duration) Policy {
	sleep = max(sleep, 0)
	return PolicyFunc(func(_ int, elapsed time.Duration) (time.Duration, bool) {
		return sleep, elapsed < maxElapsed
	})
}

// RetryForever is Curator's RetryForever(sleep).
func RetryForever(sleep time.Duration) Policy {
	sleep = max(sleep, 0)
	return PolicyFunc(func(int, time.Duration) (time.Duration, bool) { return sleep, true })
}

// SessionFailedRetryPolicy is Curator's SessionFailedRetryPolicy: p, except
// that an expired session is never retried.
func SessionFailedRetryPolicy(p Policy) Policy { return sessionFailed{p} }

type sessionFailed struct{ Policy }

// AllowRetryOn refuses an expired session (framework.ErrSessionExpired).
func (sessionFailed) AllowRetryOn(err error) bool { return !errors.Is(err, zkerr.SessionExpired) }
