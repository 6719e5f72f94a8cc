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

	// ErrNotStarted is returned by a Cache used before Start.
	ErrNotStarted = errors.New("cache: not started")

	// ErrAlreadyStarted is returned by a second Start.
	ErrAlreadyStarted = errors.New("cache: already started")

	// ErrClosed is returned by a Cache used after Close, and by a second
	// Close.
	ErrClosed = errors.New("cache: closed")
)
