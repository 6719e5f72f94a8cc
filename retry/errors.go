package retry

import (
	"errors"
	"strings"

	"github.com/go-zookeeper/zk"
)

// ErrOperationTimeout is the server's operation timeout (code -7), which
// go-zookeeper reports only as "unknown error: -7".
var ErrOperationTimeout = errors.New("zk: operation timeout")

// IsRetryable reports whether a retry loop may retry err: the connection was
// lost or closed under the call (zk.ErrConnectionClosed, zk.ErrNoServer), the
// operation timed out, the session moved, or the session expired. A closing
// client (zk.ErrClosing) and context errors are final.
func IsRetryable(err error) bool {
	switch {
	case err == nil:
		return false
	case errors.Is(err, zk.ErrConnectionClosed), errors.Is(err, zk.ErrNoServer),
		errors.Is(err, zk.ErrSessionMoved), errors.Is(err, zk.ErrSessionExpired),
		errors.Is(err, ErrOperationTimeout):
		return true
	}
	// go-zookeeper's error for code -7 has no sentinel; match its text.
	return strings.HasSuffix(err.Error(), "unknown error: -7")
}
