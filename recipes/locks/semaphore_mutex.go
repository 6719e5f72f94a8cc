package locks

import (
	"context"

	"github.com/gocurator/curator/framework"
)

// SemaphoreMutex is Curator's InterProcessSemaphoreMutex: a lock that is not
// reentrant, made of a one-lease Semaphore (so it has the semaphore's node
// layout). An owner that acquires it twice waits on itself; use Mutex for
// re-entry.
type SemaphoreMutex struct {
	sem *Semaphore
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
	return m.sem.Acquire(ctx)
}

// TryAcquire takes the lock only if it is free now, else ErrBusy (see
// Semaphore.TryAcquire).
func (m *SemaphoreMutex) TryAcquire(ctx context.Context) (*Hold, error) {
	return m.sem.TryAcquire(ctx)
}

// Participants returns the full paths of the lease nodes.
func (m *SemaphoreMutex) Participants(ctx context.Context) ([]string, error) {
	return m.sem.Participants(ctx)
}

// Path returns the lock's path.
func (m *SemaphoreMutex) Path() string { return m.sem.Path() }
