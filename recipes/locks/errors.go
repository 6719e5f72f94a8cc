package locks

import (
	"errors"

	"github.com/gocurator/curator/framework"
)

// Errors of the lock recipes; each can be tested with errors.Is.
var (
	// ErrNotOwner is returned when releasing a hold that is not held (never
	// acquired, or already released): Curator's IllegalMonitorStateException.
	ErrNotOwner = errors.New("not held by this owner")
	// ErrBusy is returned by a try-acquire when another participant holds the
	// lock.
	ErrBusy = errors.New("held by another participant")
	// ErrLockLost means a hold ended without a release: its node was deleted,
	// the session was lost, or (under the Standard error policy) the
	// connection was suspended.
	ErrLockLost = errors.New("lock lost")
	// ErrUpgrade is returned when a read-lock holder (even of a hold lost and
	// not yet released) asks for the write lock, which would wait on itself
	// for ever: the holder is the Owner in ctx, or, without one, the calling
	// goroutine if it took the read lock without an Owner.
	ErrUpgrade = errors.New("cannot upgrade a read lock to a write lock")
	// ErrSelfDeadlock is returned when an Acquire whose context carries no
	// Owner would wait on a hold of the same lock (a Mutex, SemaphoreMutex
	// or ReadWriteLock) that the calling goroutine took, also without an
	// Owner, and has not released: a wait only its own caller could end,
	// unless it handed the hold to another goroutine to release. Re-entry
	// needs an Owner (WithOwner); a write holder takes the read lock with
	// ReadWriteLock.Downgrade.
	ErrSelfDeadlock = errors.New("would wait on a hold of the calling goroutine")
	// ErrInvalidArg reports bad input: an empty or relative path, maxLeases
	// or a lease count below 1. It is framework.ErrInvalidArg, so that one
	// errors.Is test covers the client's bad input and the recipes'.
	ErrInvalidArg = framework.ErrInvalidArg
)
