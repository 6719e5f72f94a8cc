package leader

import (
	"errors"

	"github.com/gocurator/curator/framework"
)

var (
	// ErrInvalidArg is returned for bad input (a bad path or id, a nil
	// function); no request is sent. It is framework.ErrInvalidArg.
	ErrInvalidArg = framework.ErrInvalidArg

	// ErrNotStarted is returned by a Latch or Selector used before Start.
	ErrNotStarted = errors.New("leader: not started")

	// ErrAlreadyStarted is returned by a second Start.
	ErrAlreadyStarted = errors.New("leader: already started")

	// ErrClosed is returned by a Latch or Selector used after Close (or
	// after the context given to Start ended), by Start after Close, and is
	// the Err of a term that Close ended. errors.Is also matches it with
	// framework.ErrClosed, the library's one sign of "closed".
	ErrClosed error = closedError("leader: closed")

	// ErrLost is the Err of a term that ended on its own: the connection
	// entered an error state of the client's policy (the error also wraps
	// framework.ErrConnectionLoss or framework.ErrSessionExpired), its node
	// was deleted, or the client closed.
	ErrLost = errors.New("leadership lost")

	// ErrInterrupted is the Err of a term that Selector.InterruptLeadership
	// ended.
	ErrInterrupted = errors.New("leadership interrupted")

	// ErrResigned is the Err of a Selector's term whose function returned.
	ErrResigned = errors.New("leadership function returned")

	// ErrNoLeader is returned by Leader when the election has no
	// participant.
	ErrNoLeader = errors.New("leader: no leader")
)

// closedError is ErrClosed's type: its own text, and errors.Is matches
// framework.ErrClosed too.
type closedError string

func (e closedError) Error() string { return string(e) }

func (e closedError) Is(target error) bool { return target == framework.ErrClosed }
