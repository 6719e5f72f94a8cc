package node

import (
	"errors"

	"github.com/gocurator/curator/framework"
)

var (
	// ErrInvalidArg is returned for bad input (a bad path, mode or TTL, a
	// nil listener); no request is sent. It is framework.ErrInvalidArg.
	ErrInvalidArg = framework.ErrInvalidArg

	// ErrAlreadyStarted is returned by a second Start.
	ErrAlreadyStarted = errors.New("already started")

	// ErrNotStarted is returned by calls that need a started Node.
	ErrNotStarted = errors.New("not started")

	// ErrClosed is returned by a Node used after Close, and by Start after
	// Close. errors.Is also matches it with framework.ErrClosed.
	ErrClosed error = closedError{}

	// ErrTTLUnsupported is returned when the server refuses TTL nodes:
	// it runs without zookeeper.extendedTypesEnabled=true (ZooKeeper's
	// default).
	ErrTTLUnsupported = errors.New("the server does not allow TTL nodes (it needs zookeeper.extendedTypesEnabled=true)")
)

// closedError is ErrClosed: its own text, and framework.ErrClosed's
// identity too, as the lifecycle rule asks of every long-lived type.
type closedError struct{}

func (closedError) Error() string { return "closed" }

func (closedError) Is(target error) bool { return target == framework.ErrClosed }
