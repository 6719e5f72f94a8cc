package group

import (
	"errors"

	"github.com/gocurator/curator/framework"
)

var (
	// ErrInvalidArg is returned for bad input (a bad path or id, a nil
	// listener); no request is sent. It is framework.ErrInvalidArg.
	ErrInvalidArg = framework.ErrInvalidArg

	// ErrAlreadyStarted is returned by a second Start.
	ErrAlreadyStarted = errors.New("already started")

	// ErrNotStarted is returned by calls that need a started Member.
	ErrNotStarted = errors.New("not started")

	// ErrClosed is returned by a Member used after Close, and by Start
	// after Close. errors.Is also matches it with framework.ErrClosed.
	ErrClosed error = closedError{}
)

// closedError is ErrClosed: its own text, and framework.ErrClosed's
// identity too.
type closedError struct{}

func (closedError) Error() string { return "closed" }

func (closedError) Is(target error) bool { return target == framework.ErrClosed }
