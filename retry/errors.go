package retry

import (
	"errors"

	"github.com/gocurator/curator/internal/zkerr"
)

// ErrOperationTimeout is the server's operation timeout (ZooKeeper's code -7,
// OPERATIONTIMEOUT): the client's framework.ErrOperationTimeout.
var ErrOperationTimeout error = zkerr.OperationTimeout

// IsRetryable reports whether a retry loop may retry err: the connection was
// lost under the call (framework.ErrConnectionLoss, or a network error of the
// connection itself, see IsNetworkError), the server did not answer in time
// (ErrOperationTimeout), or the session moved or expired (a retry then runs
// on the next session). A closed client, a context's end and the server's
// refusals are final.
//
// It looks at the cause alone, not at what the call did: a write whose
// outcome is unknown (framework.ErrOutcomeUnknown, which wraps its cause) is
// retryable by this test, and repeating it may apply it twice. A loop
// around a write that is not idempotent (an atomic increment, a queue's
// put) must test for framework.ErrOutcomeUnknown first.
func IsRetryable(err error) bool {
	switch {
	case err == nil:
		return false
	case errors.Is(err, zkerr.ConnectionLoss), errors.Is(err, zkerr.OperationTimeout),
		errors.Is(err, zkerr.SessionMoved), errors.Is(err, zkerr.SessionExpired):
		return true
	}
	return IsNetworkError(err)
}

// IsNetworkError reports whether err is an error of the connection itself
// rather than a ZooKeeper answer: a write to the socket that failed
// ("write: broken pipe", "connection reset by peer", a write deadline), which
// is a connection loss like any other. Context errors are not network
// errors, although context.DeadlineExceeded has net.Error's methods.
func IsNetworkError(err error) bool { return zkerr.IsNetworkError(err) }
