package framework

import (
	"errors"
	"fmt"

	"github.com/gocurator/curator/internal/zkerr"
)

// Sentinel errors. An operation's error is an *OpError whose Kind is one of
// these (errors.Is matches it), wrapping the cause.
var (
	ErrNoNode         error = zkerr.NoNode         // the node does not exist
	ErrNodeExists     error = zkerr.NodeExists     // the node already exists
	ErrBadVersion     error = zkerr.BadVersion     // the node's version is not the one given
	ErrNotEmpty       error = zkerr.NotEmpty       // the node has children
	ErrNoAuth         error = zkerr.NoAuth         // the session may not do this (or its auth info was refused)
	ErrConnectionLoss error = zkerr.ConnectionLoss // the connection was lost, or not had in time
	ErrSessionExpired error = zkerr.SessionExpired // the session ended on the server
	// ErrOperationTimeout: the server did not answer in time (retried, as
	// a connection loss is).
	ErrOperationTimeout error = zkerr.OperationTimeout
	ErrClosed           error = zkerr.ErrClosed // the client is closed
	// ErrUnimplemented: the server does not serve the request (a TTL create on
	// a server without zookeeper.extendedTypesEnabled).
	ErrUnimplemented error = zkerr.Unimplemented
	ErrNotStarted          = errors.New("client is not started")
	ErrInvalidPath         = errors.New("invalid path")
	ErrInvalidArg          = errors.New("invalid argument")
	// ErrOutcomeUnknown means a write may or may not have been applied: it
	// was sent, and then its reply was lost (the connection dropped, or the
	// caller's context ended first), and what the client could learn
	// afterwards cannot tell which. It comes with the error that ended the
	// call (ErrConnectionLoss, a context error, or a refusal of a retry).
	ErrOutcomeUnknown = errors.New("outcome unknown")
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

// kindOf returns the sentinel err wraps, the most telling if several.
func kindOf(err error) error {
	for _, k := range [...]error{
		ErrClosed, ErrNotStarted, ErrInvalidPath, ErrInvalidArg, ErrOutcomeUnknown,
		ErrNoNode, ErrNodeExists, ErrBadVersion, ErrNotEmpty, ErrNoAuth,
		ErrSessionExpired, ErrOperationTimeout, ErrConnectionLoss, ErrReplyTooLarge, ErrUnimplemented,
	} {
		if errors.Is(err, k) {
			return k
		}
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
	return &OpError{Op: op, Path: path, Kind: kindOf(err), Err: err}
}
