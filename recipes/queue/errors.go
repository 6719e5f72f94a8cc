package queue

import (
	"errors"

	"github.com/gocurator/curator/framework"
)

// Errors of the queue recipes; each can be tested with errors.Is.
var (
	// ErrEmpty is returned by Simple's Peek and Poll when the queue has no
	// item: Curator's null and NoSuchElementException.
	ErrEmpty = errors.New("queue is empty")
	// ErrNotStarted is returned by a queue's calls before Start. It wraps
	// framework.ErrNotStarted.
	ErrNotStarted error = notStartedError{}
	// ErrClosed is returned by a queue's calls after Close (or after the
	// context given to Start ended), and by Start after Close. It wraps
	// framework.ErrClosed.
	ErrClosed error = closedError{}
	// ErrAlreadyStarted is returned by a second Start.
	ErrAlreadyStarted = errors.New("queue already started")
	// ErrInvalidArg reports bad input (a bad path or id, a nil serializer, a
	// negative count), returned before any request is sent. It is
	// framework.ErrInvalidArg.
	ErrInvalidArg = framework.ErrInvalidArg
)

// closedError is ErrClosed: "queue is closed", which errors.Is also matches
// against framework.ErrClosed.
type closedError struct{}

func (closedError) Error() string        { return "queue is closed" }
func (closedError) Is(target error) bool { return target == framework.ErrClosed }

// notStartedError is ErrNotStarted: "queue not started", which errors.Is
// also matches against framework.ErrNotStarted.
type notStartedError struct{}

func (notStartedError) Error() string        { return "queue not started" }
func (notStartedError) Is(target error) bool { return target == framework.ErrNotStarted }
