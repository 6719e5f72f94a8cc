// Package zkerr holds ZooKeeper's errors as Go values: the words that the
// connection (internal/zkconn), the retry loop (retry) and the client
// (framework, which exports them) share, so that none of them but the
// connection needs to know how go-zookeeper reports an error.
package zkerr

import (
	"context"
	"errors"
	"io"
	"net"
	"strconv"
	"syscall"
)

// Code is an error code of ZooKeeper's protocol, as its KeeperException.Code
// numbers them. A Code is an error: errors.Is(err, zkerr.NoNode) matches any
// error that wraps the server's NONODE.
type Code int32

// The codes a server sends, and ConnectionLoss and OperationTimeout, which
// clients use for a call cut off with its connection or not answered in time.
const (
	SystemError             Code = -1
	RuntimeInconsistency    Code = -2 // the operations of a failed multi that did not fail themselves
	DataInconsistency       Code = -3
	ConnectionLoss          Code = -4
	MarshallingError        Code = -5
	Unimplemented           Code = -6
	OperationTimeout        Code = -7
	BadArguments            Code = -8
	NewConfigNoQuorum       Code = -13
	ReconfigInProgress      Code = -14
	APIError                Code = -100
	NoNode                  Code = -101
	NoAuth                  Code = -102
	BadVersion              Code = -103
	NoChildrenForEphemerals Code = -108
	NodeExists              Code = -110
	NotEmpty                Code = -111
	SessionExpired          Code = -112
	InvalidCallback         Code = -113
	InvalidACL              Code = -114
	AuthFailed              Code = -115
	SessionMoved            Code = -118
	NotReadOnly             Code = -119
	EphemeralOnLocalSession Code = -120
	NoWatcher               Code = -121
	RequestTimeout          Code = -122
	ReconfigDisabled        Code = -123
	SessionClosedNeedsSASL  Code = -124
	QuotaExceeded           Code = -125
	Throttled               Code = -127

	// ReplyTooLarge is no server's: the client refused a reply longer than it
	// accepts (internal/zkconn puts it in the place of that reply).
	ReplyTooLarge Code = -1 << 20
)

var texts = map[Code]string{
	SystemError:             "server error",
	RuntimeInconsistency:    "rolled back with the transaction",
	DataInconsistency:       "data inconsistency",
	ConnectionLoss:          "connection loss",
	MarshallingError:        "request could not be encoded",
	Unimplemented:           "operation not implemented by the server",
	OperationTimeout:        "operation timed out",
	BadArguments:            "bad arguments",
	NewConfigNoQuorum:       "new configuration has no quorum",
	ReconfigInProgress:      "reconfiguration in progress",
	APIError:                "API error",
	NoNode:                  "node does not exist",
	NoAuth:                  "not authorised",
	BadVersion:              "version conflict",
	NoChildrenForEphemerals: "ephemeral nodes cannot have children",
	NodeExists:              "node already exists",
	NotEmpty:                "node has children",
	SessionExpired:          "session expired",
	InvalidCallback:         "invalid callback",
	InvalidACL:              "invalid ACL",
	AuthFailed:              "authentication failed",
	SessionMoved:            "session moved to another server",
	NotReadOnly:             "server is not read-only",
	EphemeralOnLocalSession: "ephemeral node on a local session",
	NoWatcher:               "no such watch",
	RequestTimeout:          "request timed out",
	ReconfigDisabled:        "reconfiguration is disabled",
	SessionClosedNeedsSASL:  "session closed: SASL authentication required",
	QuotaExceeded:           "quota exceeded",
	Throttled:               "request throttled",
	ReplyTooLarge:           "reply larger than the client accepts",
}

// Error returns the code's meaning in a few words.
func (c Code) Error() string {
	if t, ok := texts[c]; ok {
		return t
	}
	return "ZooKeeper error " + strconv.Itoa(int(c))
}

// Is makes an authentication the server refused a lack of authorisation
// too (ZooKeeper's Java client reports it as AUTH_FAILED, and every later
// call as NOAUTH).
func (c Code) Is(target error) bool { return c == AuthFailed && target == NoAuth }

// ErrClosed is the error of a call made on, or cut off by, a closed client.
var ErrClosed = errors.New("client is closed")

// IsNetworkError reports whether err is an error of the connection itself
// rather than an answer: a read or write on the socket that failed ("write:
// broken pipe", "connection reset by peer", a deadline), which is a
// connection loss like any other. Context errors are not network errors,
// although context.DeadlineExceeded has net.Error's methods.
func IsNetworkError(err error) bool {
	if err == nil || errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) {
		return false
	}
	var ne net.Error
	return errors.As(err, &ne) || errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) ||
		errors.Is(err, net.ErrClosed) || errors.Is(err, syscall.EPIPE) || errors.Is(err, syscall.ECONNRESET) ||
		errors.Is(err, syscall.ECONNABORTED)
}
