package framework

import (
	"errors"
	"fmt"

	"github.com/go-zookeeper/zk"

	"github.com/gocurator/curator/retry"
)

// Sentinel errors. Operation errors wrap one of these and, where ZooKeeper or
// go-zookeeper produced the error, the original error too.
var (
	ErrNoNode         = errors.New("curator: node does not exist")
	ErrNodeExists     = errors.New("curator: node already exists")
	ErrBadVersion     = errors.New("curator: version conflict")
	ErrNotEmpty       = errors.New("curator: node has children")
	ErrNoAuth         = errors.New("curator: not authorised")
	ErrConnectionLoss = errors.New("curator: connection loss")
	ErrSessionExpired = errors.New("curator: session expired")
	ErrClosed         = errors.New("curator: client is closed")
	ErrNotStarted     = errors.New("curator: client is not started")
	ErrInvalidPath    = errors.New("curator: invalid path")
	ErrInvalidArg     = errors.New("curator: invalid argument")
	// ErrOutcomeUnknown means a write may or may not have been applied: it
	// was sent, and then its reply was lost (the connection dropped, or the
	// caller's context ended first), and what the client could learn
	// afterwards cannot tell which. It comes with the error that ended the
	// call (ErrConnectionLoss, a context error, or a refusal of a retry).
	ErrOutcomeUnknown = errors.New("curator: outcome unknown")
)

// OpError records a failed operation, the path it was for (as the caller gave
// it, without the namespace) and why it failed.
type OpError struct {
	Op   string // "create", "delete", "get", ...
	Path string // as the caller gave it, without the namespace
	Kind error  // one of the package's sentinels, or nil
	Err  error  // the underlying error
}

// Error returns the operation, the path and why it failed.
func (e *OpError) Error() string {
	if e.Kind != nil && (e.Err == nil || e.Err == e.Kind) {
		return fmt.Sprintf("%s %s: %v", e.Op, e.Path, e.Kind)
	}
	return fmt.Sprintf("%s %s: %v", e.Op, e.Path, e.Err)
}

// Unwrap returns the sentinel and the underlying error, so errors.Is matches
// either.
func (e *OpError) Unwrap() []error {
	var errs []error
	if e.Kind != nil {
		errs = append(errs, e.Kind)
	}
	if e.Err != nil && e.Err != e.Kind {
		errs = append(errs, e.Err)
	}
	return errs
}

// kindOf maps a go-zookeeper error to this package's sentinel.
func kindOf(err error) error {
	switch {
	case err == nil:
		return nil
	case errors.Is(err, zk.ErrNoNode):
		return ErrNoNode
	case errors.Is(err, zk.ErrNodeExists):
		return ErrNodeExists
	case errors.Is(err, zk.ErrBadVersion):
		return ErrBadVersion
	case errors.Is(err, zk.ErrNotEmpty):
		return ErrNotEmpty
	case errors.Is(err, zk.ErrNoAuth), errors.Is(err, zk.ErrAuthFailed):
		return ErrNoAuth
	case errors.Is(err, zk.ErrSessionExpired):
		return ErrSessionExpired
	case errors.Is(err, zk.ErrClosing):
		return ErrClosed
	case errors.Is(err, zk.ErrInvalidPath):
		return ErrInvalidPath
	case retry.IsRetryable(err):
		return ErrConnectionLoss
	}
	return nil
}

// opErr wraps err as an *OpError unless it already is one or is nil.
func opErr(op, path string, err error) error {
	if err == nil {
		return nil
	}
	var oe *OpError
	if errors.As(err, &oe) {
		return err
	}
	kind := kindOf(err)
	for _, s := range []error{ErrClosed, ErrNotStarted, ErrInvalidPath, ErrInvalidArg, ErrOutcomeUnknown, ErrConnectionLoss} {
		if errors.Is(err, s) {
			kind = s
			break
		}
	}
	return &OpError{Op: op, Path: path, Kind: kind, Err: err}
}
