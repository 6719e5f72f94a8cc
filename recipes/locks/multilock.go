package locks

import (
	"context"
	"fmt"

	"github.com/gocurator/curator/framework"
)

// Locker is a lock a MultiLock can hold: Mutex, SemaphoreMutex and
// Semaphore are Lockers.
type Locker interface {
	// Acquire waits for the lock until ctx ends, and returns its hold.
	Acquire(ctx context.Context) (*Hold, error)
}

// MultiLock is Curator's InterProcessMultiLock: it holds all of its locks or
// none. Acquire takes them in order; if one fails or ctx ends, those already
// taken are released in reverse order.
type MultiLock struct {
	locks []Locker
}

// NewMultiLock returns a lock over locks, taken in the order given.
func NewMultiLock(locks ...Locker) (*MultiLock, error) {
	if len(locks) == 0 {
		return nil, fmt.Errorf("%w: a multi-lock needs at least one lock", ErrInvalidArg)
	}
	for i, l := range locks {
		if isNil(l) {
			return nil, fmt.Errorf("%w: lock %d is nil", ErrInvalidArg, i)
		}
	}
	return &MultiLock{locks: append([]Locker(nil), locks...)}, nil
}

// IsAcquiredInThisProcess reports whether every lock of the multi-lock is
// held in this process (Curator's choice for InterProcessMultiLock); a lock
// that cannot tell (no IsAcquiredInThisProcess) counts as not held.
func (m *MultiLock) IsAcquiredInThisProcess() bool {
	for _, l := range m.locks {
		a, ok := l.(interface{ IsAcquiredInThisProcess() bool })
		if !ok || !a.IsAcquiredInThisProcess() {
			return false
		}
	}
	return true
}

// lockName names the multi-lock's lock i in errors: its index, and its
// path if it has one.
func lockName(i int, l Locker) string {
	if p, ok := l.(interface{ Path() string }); ok {
		return fmt.Sprintf("lock %d (%s)", i, p.Path())
	}
	return fmt.Sprintf("lock %d", i)
}

// isNil reports a nil Locker, or one of this package's lock types that is a
// nil pointer (a user's own Locker type must not be a nil pointer).
func isNil(l Locker) bool {
	switch l := l.(type) {
	case nil:
		return true
	case *Mutex:
		return l == nil
	case *Semaphore:
		return l == nil
	case *SemaphoreMutex:
		return l == nil
	}
	return false
}

// NewMultiMutex returns a multi-lock over a Mutex at each path, as Curator's
// InterProcessMultiLock(client, paths) does.
func NewMultiMutex(client *framework.Client, paths ...string) (*MultiLock, error) {
	locks := make([]Locker, len(paths))
	for i, p := range paths {
		m, err := NewMutex(client, p)
		if err != nil {
			return nil, err
		}
		locks[i] = m
	}
	return NewMultiLock(locks...)
}

// Acquire takes every lock, in order, or none. All are taken for one owner
// (ctx's, or a new one), so a Mutex listed twice is re-entered, as in
// Curator, where one thread takes them all. Without an Owner in ctx, the
// locks see the calling goroutine: one it holds without an Owner is
// refused (ErrSelfDeadlock), as its own Acquire would be.
func (m *MultiLock) Acquire(ctx context.Context) (*MultiHold, error) {
	return m.acquire(ctx, Locker.Acquire)
}

// TryAcquire takes every lock only if each is free now (its TryAcquire),
// else gives back those it took and returns ErrBusy: Curator's acquire
// with a zero wait. Every lock must have a TryAcquire (Mutex, Semaphore and
// SemaphoreMutex do), or it returns ErrInvalidArg and takes none.
func (m *MultiLock) TryAcquire(ctx context.Context) (*MultiHold, error) {
	for i, l := range m.locks {
		if _, ok := l.(tryLocker); !ok {
			return nil, fmt.Errorf("%w: %s has no TryAcquire", ErrInvalidArg, lockName(i, l))
		}
	}
	return m.acquire(ctx, func(l Locker, ctx context.Context) (*Hold, error) { return l.(tryLocker).TryAcquire(ctx) })
}

// tryLocker is a Locker that can take its lock without waiting.
type tryLocker interface {
	TryAcquire(ctx context.Context) (*Hold, error)
}

// acquire takes every lock with take, in order, or none.
func (m *MultiLock) acquire(ctx context.Context, take func(Locker, context.Context) (*Hold, error)) (*MultiHold, error) {
	ctx, _ = actingFor(ctx) // one Owner for all; without one, each lock sees the calling goroutine
	holds := make([]*Hold, 0, len(m.locks))
	for i, l := range m.locks {
		h, err := take(l, ctx)
		if err == nil && h == nil {
			err = fmt.Errorf("%w: lock %d returned no hold", ErrInvalidArg, i)
		}
		if err != nil {
			if rerr := giveBack(ctx, holds); rerr != nil {
				return nil, fmt.Errorf("%s: %w (and rolling back: %w)", lockName(i, l), err, rerr)
			}
			return nil, fmt.Errorf("%s: %w", lockName(i, l), err)
		}
		holds = append(holds, h)
	}
	return &MultiHold{holds: holds}, nil
}
