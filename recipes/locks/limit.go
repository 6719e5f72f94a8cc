package locks

import (
	"fmt"
	"sync"
)

// leaseLimit is how many participants may hold at once. Waiters read it with
// a channel that set closes, so that they look again when it changes.
type leaseLimit struct {
	mu      sync.Mutex
	n       int
	changed chan struct{}
}

func newLeaseLimit(n int) (*leaseLimit, error) {
	if n < 1 {
		return nil, fmt.Errorf("%w: maxLeases %d, must be at least 1", ErrInvalidArg, n)
	}
	return &leaseLimit{n: n, changed: make(chan struct{})}, nil
}

func (l *leaseLimit) set(n int) error {
	if n < 1 {
		return fmt.Errorf("%w: maxLeases %d, must be at least 1", ErrInvalidArg, n)
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	if n != l.n {
		l.n = n
		close(l.changed)
		l.changed = make(chan struct{})
	}
	return nil
}

// get returns the limit and a channel closed when it next changes.
func (l *leaseLimit) get() (int, <-chan struct{}) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.n, l.changed
}
