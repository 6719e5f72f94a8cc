package errclass

import (
	"context"
	"errors"
	"fmt"
	"testing"

	"github.com/gocurator/curator/framework"
	"github.com/gocurator/curator/recipes/leader"
	"github.com/gocurator/curator/recipes/locks"
)

// The error classes, as the adapters' attributes and labels carry them.
func TestErrorClass(t *testing.T) {
	for _, c := range []struct {
		err          error
		class, cause string
	}{
		{nil, "", ""},
		{&framework.OpError{Op: "get", Path: "/a", Kind: framework.ErrNoNode, Err: framework.ErrNoNode}, "no_node", "node_gone"},
		{framework.ErrNodeExists, "node_exists", "node_exists"},
		{framework.ErrBadVersion, "bad_version", "bad_version"},
		{framework.ErrNotEmpty, "not_empty", "not_empty"},
		{framework.ErrNoAuth, "no_auth", "no_auth"},
		{fmt.Errorf("%w: %w", framework.ErrOutcomeUnknown, framework.ErrConnectionLoss), "outcome_unknown", "outcome_unknown"},
		{fmt.Errorf("%w: %w", locks.ErrLockLost, framework.ErrSessionExpired), "session_expired", "session_expired"},
		{fmt.Errorf("%w: %w", locks.ErrLockLost, framework.ErrConnectionLoss), "connection_loss", "connection_loss"},
		{framework.ErrOperationTimeout, "operation_timeout", "operation_timeout"},
		{fmt.Errorf("%w: %w", locks.ErrLockLost, framework.ErrClosed), "closed", "closed"},
		{leader.ErrClosed, "closed", "closed"},
		{leader.ErrResigned, "resigned", "resigned"},
		{leader.ErrInterrupted, "interrupted", "interrupted"},
		{fmt.Errorf("acquire: %w", context.DeadlineExceeded), "deadline_exceeded", "deadline_exceeded"},
		{context.Canceled, "canceled", "canceled"},
		{fmt.Errorf("%w: node /l/n was deleted", locks.ErrLockLost), "node_gone", "node_gone"},
		{leader.ErrLost, "node_gone", "node_gone"},
		{fmt.Errorf("%w: %w", leader.ErrLost, framework.ErrSessionExpired), "session_expired", "session_expired"},
		{framework.ErrInvalidArg, "invalid_argument", "invalid_argument"},
		{framework.ErrInvalidPath, "invalid_argument", "invalid_argument"},
		{framework.ErrReplyTooLarge, "reply_too_large", "reply_too_large"},
		{errors.New("something else"), "other", "other"},
	} {
		if got := Of(c.err); got != c.class {
			t.Errorf("Of(%v) = %q, want %q", c.err, got, c.class)
		}
		if got := Cause(c.err); got != c.cause {
			t.Errorf("Cause(%v) = %q, want %q", c.err, got, c.cause)
		}
	}
}
