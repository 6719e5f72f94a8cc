package barrier

import (
	"errors"

	"github.com/gocurator/curator/framework"
)

// Errors of the barrier recipes; each can be tested with errors.Is.
var (
	// ErrMemberLost means the member's node is gone without its Leave: its
	// session ended (or someone deleted it), so the others no longer count or
	// wait for it.
	ErrMemberLost = errors.New("member node lost")
	// ErrInvalidArg reports bad input (a nil client, a bad path, fewer than
	// one member) or a call out of turn (Enter twice, Leave before Enter),
	// returned before any request is sent. It is framework.ErrInvalidArg.
	ErrInvalidArg = framework.ErrInvalidArg
)
