package locks

import (
	"context"
	"fmt"
	"sync"
	"time"

	"github.com/gocurator/curator/framework"
)

// SemaphoreMutex is Curator's InterProcessSemaphoreMutex: a lock that is not
// reentrant, made of a one-lease Semaphore (so it has the semaphore's node
// layout). An owner that acquires it twice waits on itself; use Mutex for
// re-entry. Without an Owner, a goroutine that acquires it while it holds a
// hold it took through it gets ErrSelfDeadlock at once.
type SemaphoreMutex struct {
	sem *Semaphore

	mu     sync.Mutex
	last   *Hold            // the latest hold taken through it
	takers map[*Hold]uint64 // holds taken without an Owner, not yet seen released: their goroutines
}

// NewSemaphoreMutex returns a non-reentrant lock at path.
func NewSemaphoreMutex(client *framework.Client, path string) (*SemaphoreMutex, error) {
	sem, err := NewSemaphore(client, path, 1)
	if err != nil {
		return nil, err
	}
	sem.report.recipe = "semaphore_mutex"
	return &SemaphoreMutex{sem: sem, takers: make(map[*Hold]uint64)}, nil
}

// Acquire waits until the lock is held; ctx's deadline is the timeout.
func (m *SemaphoreMutex) Acquire(ctx context.Context) (*Hold, error) {
	ctx, taker := actingFor(ctx)
	if h := m.takenBy(taker); h != nil {
		err := fmt.Errorf("%w: %s: this goroutine holds it (node %s%s), and it is not reentrant",
			ErrSelfDeadlock, m.Path(), h.Path(), lostNote(h))
		m.sem.report.acquire(time.Now(), err)
		return nil, err
	}
	return m.took(taker)(m.sem.Acquire(ctx))
}

// takenBy returns a hold taken through m without an Owner on goroutine g
// (never 0), and not released.
func (m *SemaphoreMutex) takenBy(g uint64) *Hold {
	if g == 0 {
		return nil
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	m.forgetReleasedLocked()
	for h, taker := range m.takers {
		if taker == g {
			return h
		}
	}
	return nil
}

// forgetReleasedLocked drops the released holds from m.takers. Callers hold m.mu.
func (m *SemaphoreMutex) forgetReleasedLocked() {
	for h := range m.takers {
		if h.isReleased() {
			delete(m.takers, h)
		}
	}
}

// took records a hold taken through m, by goroutine taker without an Owner
// (0: with one).
func (m *SemaphoreMutex) took(taker uint64) func(*Hold, error) (*Hold, error) {
	return func(h *Hold, err error) (*Hold, error) {
		if h != nil {
			m.mu.Lock()
			m.last = h
			m.forgetReleasedLocked() // the map holds only holds not yet released
			if taker != 0 {
				m.takers[h] = taker
			}
			m.mu.Unlock()
		}
		return h, err
	}
}

// IsAcquiredInThisProcess reports whether a hold taken through this
// SemaphoreMutex is held (neither released nor lost), as Curator's.
func (m *SemaphoreMutex) IsAcquiredInThisProcess() bool {
	m.mu.Lock()
	h := m.last
	m.mu.Unlock()
	return h != nil && h.isCurrent()
}

// TryAcquire takes the lock only if it is free now, else ErrBusy (see
// Semaphore.TryAcquire).
func (m *SemaphoreMutex) TryAcquire(ctx context.Context) (*Hold, error) {
	ctx, taker := actingFor(ctx)
	return m.took(taker)(m.sem.TryAcquire(ctx))
}

// Participants returns the names of the lease nodes (see
// Semaphore.Participants).
func (m *SemaphoreMutex) Participants(ctx context.Context) ([]string, error) {
	return m.sem.Participants(ctx)
}

// Path returns the lock's path.
func (m *SemaphoreMutex) Path() string { return m.sem.Path() }
