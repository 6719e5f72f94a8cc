package retry

import (
	"context"
	"errors"
	"io"
	"net"
	"syscall"

	"github.com/go-zookeeper/zk"

	"github.com/gocurator/curator/internal/zkconn"
)

// ErrOperationTimeout is the server's operation timeout (code -7), which
// go-zookeeper reports only as "unknown error: -7".
var ErrOperationTimeout = errors.New("zk: operation timeout")

// IsRetryable reports whether a retry loop may retry err: the connection was
// lost or closed under the call (zk.ErrConnectionClosed, zk.ErrNoServer, or
// a network error of the connection itself, see IsNetworkError), the
// operation timed out, the session moved, or the session expired. A closing
// client (zk.ErrClosing) and context errors are final.
func IsRetryable(err error) bool {
	switch {
	case err == nil:
		return false
	case errors.Is(err, zk.ErrConnectionClosed), errors.Is(err, zk.ErrNoServer),
		errors.Is(err, zk.ErrSessionMoved), errors.Is(err, zk.ErrSessionExpired),
		errors.Is(err, ErrOperationTimeout), IsNetworkError(err):
		return true
	}
	return zkconn.Is(err, zkconn.OperationTimeout) // go-zookeeper has no sentinel for it

}

// IsNetworkError reports whether err is an error of the connection itself
// rather than a ZooKeeper answer: go-zookeeper hands a request whose write
// to the socket failed the raw error of the write ("write: broken pipe",
// "connection reset by peer", a write deadline), which is a connection loss
// like any other. Context errors are not network errors, although
// context.DeadlineExceeded has net.Error's methods.
func IsNetworkError(err error) bool {
	if err == nil || errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) {
		return false
	}
	var ne net.Error
	return errors.As(err, &ne) || errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) ||
		errors.Is(err, net.ErrClosed) || errors.Is(err, syscall.EPIPE) || errors.Is(err, syscall.ECONNRESET) ||
		errors.Is(err, syscall.ECONNABORTED)
}
