// Package errclass names the kind of an error from a small fixed set: the
// values the adapter modules (otel, prometheus) give the error and cause
// attributes of their metrics, whose values must stay few.
package errclass

import (
	"context"
	"errors"

	"github.com/gocurator/curator/framework"
	"github.com/gocurator/curator/recipes/leader"
	"github.com/gocurator/curator/recipes/locks"
)

// Of names the kind of err: "" for nil, else one of
// outcome_unknown, no_node, node_exists, bad_version, not_empty, no_auth,
// session_expired, connection_loss, operation_timeout, closed, resigned,
// interrupted, deadline_exceeded, canceled, node_gone, invalid_argument,
// reply_too_large and other. The first that errors.Is matches wins, in that
// order: a write whose outcome is unknown says so before the connection
// loss that caused it, and a lock or a leadership lost to a session says
// how the session ended.
func Of(err error) string {
	switch {
	case err == nil:
		return ""
	case errors.Is(err, framework.ErrOutcomeUnknown):
		return "outcome_unknown"
	case errors.Is(err, framework.ErrNoNode):
		return "no_node"
	case errors.Is(err, framework.ErrNodeExists):
		return "node_exists"
	case errors.Is(err, framework.ErrBadVersion):
		return "bad_version"
	case errors.Is(err, framework.ErrNotEmpty):
		return "not_empty"
	case errors.Is(err, framework.ErrNoAuth):
		return "no_auth"
	case errors.Is(err, framework.ErrSessionExpired):
		return "session_expired"
	case errors.Is(err, framework.ErrConnectionLoss):
		return "connection_loss"
	case errors.Is(err, framework.ErrOperationTimeout):
		return "operation_timeout"
	case errors.Is(err, framework.ErrClosed), errors.Is(err, leader.ErrClosed):
		return "closed"
	case errors.Is(err, leader.ErrResigned):
		return "resigned"
	case errors.Is(err, leader.ErrInterrupted):
		return "interrupted"
	case errors.Is(err, context.DeadlineExceeded):
		return "deadline_exceeded"
	case errors.Is(err, context.Canceled):
		return "canceled"
	case errors.Is(err, locks.ErrLockLost), errors.Is(err, leader.ErrLost):
		// Lost with no session or connection cause: the node was deleted,
		// or belongs to another session now.
		return "node_gone"
	case errors.Is(err, framework.ErrInvalidArg), errors.Is(err, framework.ErrInvalidPath), errors.Is(err, framework.ErrNotStarted):
		return "invalid_argument"
	case errors.Is(err, framework.ErrReplyTooLarge):
		return "reply_too_large"
	}
	return "other"
}

// Cause is Of for why a hold or a term ended: a node found missing is a
// node gone.
func Cause(err error) string {
	if c := Of(err); c != "no_node" {
		return c
	}
	return "node_gone"
}
