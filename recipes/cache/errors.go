package cache

import (
	"errors"

	"github.com/gocurator/curator/framework"
)

var (
	// ErrInvalidArg is returned for bad input (a bad path, a negative
	// depth, a nil listener); no request is sent. It is
	// framework.ErrInvalidArg.
	ErrInvalidArg = framework.ErrInvalidArg

	// ErrAlreadyStarted is returned by a second Start.
	ErrAlreadyStarted = errors.New("already started")

	// ErrClosed is returned by Start after Close. errors.Is also matches
	// it with framework.ErrClosed, the library's one sign of "closed".
	ErrClosed error = closedError("closed")
)

// closedError is ErrClosed's type: its own text, and errors.Is matches
// framework.ErrClosed too.
type closedError string

func (e closedError) Error() string { return string(e) }

func (e closedError) Is(target error) bool { return target == framework.ErrClosed }
