package locks

import (
	"context"
	"sync"

	"github.com/gocurator/curator/framework"
)

// SemaphoreMutex is Curator's InterProcessSemaphoreMutex: a lock that is not
// reentrant, made of a one-lease Semaphore (so it has the semaphore's node
// layout). An owner that acquires it twice waits on itself; use Mutex for
// re-entry.
type SemaphoreMutex struct {
	sem *Semaphore

	mu   sync.Mutex
	last *Hold // the latest hold taken through it
}

// NewSemaphoreMutex returns a non-reentrant lock at path.
func NewSemaphoreMutex(client *framework.Client, path string) (*SemaphoreMutex, error) {
	sem, err := NewSemaphore(client, path, 1)
	if err != nil {
		return nil, err
	}
	return &SemaphoreMutex{sem: sem}, nil
}

// Acquire waits until the lock is held; ctx's deadline is the timeout.
func (m *SemaphoreMutex) Acquire(ctx context.Context) (*Hold, error) {
	return m.took(m.sem.Acquire(ctx))
}

// took records a hold taken through m.
func (m *SemaphoreMutex) took(h *Hold, err error) (*Hold, error) {
	if h != nil {
		m.mu.Lock()
		m.last = h
		m.mu.Unlock()
	}
	return h, err
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
	return m.took(m.sem.TryAcquire(ctx))
}

// Participants returns the names of the lease nodes (see
// Semaphore.Participants).
func (m *SemaphoreMutex) Participants(ctx context.Context) ([]string, error) {
	return m.sem.Participants(ctx)
}

// Path returns the lock's path.
func (m *SemaphoreMutex) Path() string { return m.sem.Path() }
