package discovery

import (
	"errors"

	"github.com/gocurator/curator/framework"
)

var (
	// ErrInvalidArg is returned for bad input (a bad base path, an empty
	// or bad name or id, an unknown service type, a payload that does not
	// marshal); no request is sent. It is framework.ErrInvalidArg.
	ErrInvalidArg = framework.ErrInvalidArg

	// ErrAlreadyStarted is returned by a second Start.
	ErrAlreadyStarted = errors.New("already started")

	// ErrNotStarted is returned by calls that need a started Discovery,
	// Cache or Provider.
	ErrNotStarted = errors.New("not started")

	// ErrClosed is returned by a Discovery, Cache or Provider used after
	// Close, and by Start after Close. errors.Is also matches it with
	// framework.ErrClosed.
	ErrClosed error = closedError{}

	// ErrNotRegistered is returned by Update and Unregister for an
	// instance this Discovery did not register.
	ErrNotRegistered = errors.New("instance not registered here")
)

// closedError is ErrClosed: its own text, and framework.ErrClosed's
// identity too.
type closedError struct{}

func (closedError) Error() string { return "closed" }

func (closedError) Is(target error) bool { return target == framework.ErrClosed }
