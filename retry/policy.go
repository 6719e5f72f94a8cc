package retry

import "time"

// Policy decides whether an operation that failed with a retryable error is
// tried again.
type Policy interface {
	// AllowRetry is called after the retries-th retry failed (0 after the
	// first attempt) with the time elapsed since the first attempt began. It
	// returns how long to sleep before the next attempt and whether to make
	// it at all.
	AllowRetry(retries int, elapsed time.Duration) (sleep time.Duration, ok bool)
}

// ErrorFilter is an optional interface a Policy may implement to refuse some
// retryable errors (SessionFailedRetryPolicy refuses session expiry).
type ErrorFilter interface {
	// AllowRetryOn reports whether err, already retryable (IsRetryable), may
	// be retried; false makes it final. It is asked once per failed attempt,
	// before AllowRetry.
	AllowRetryOn(err error) bool
}

// PolicyFunc adapts a function to Policy.
type PolicyFunc func(retries int, elapsed time.Duration) (time.Duration, bool)

// AllowRetry calls f.
func (f PolicyFunc) AllowRetry(retries int, elapsed time.Duration) (time.Duration, bool) {
	return f(retries, elapsed)
}
