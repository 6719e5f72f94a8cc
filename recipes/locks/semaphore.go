package locks

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
	"time"

	"github.com/gocurator/curator/driver"
	"github.com/gocurator/curator/framework"
)

// The layout of a Semaphore under its path P, as Curator's
// InterProcessSemaphoreV2 has it: P/locks holds a Mutex that serialises
// acquirers, and P/leases/_c_<uuid>-lease-NNNNNNNNNN one node per lease.
const (
	SemaphoreLockDir  = "locks"
	SemaphoreLeaseDir = "leases"
	LeaseName         = "lease-"
)

// Semaphore is Curator's InterProcessSemaphoreV2: at most maxLeases leases
// are out at once, across processes. A lease is a *Hold: release it with
// Hold.Release. Leases are not reentrant.
type Semaphore struct {
	client *framework.Client
	path   string
	leases string
	lock   *LockInternals // P/locks, which serialises acquirers
	data   []byte

	countPath string // a Curator SharedCount node giving maxLeases; "" for a fixed count
	limit     *leaseLimit
	report    report // what its leases tell the client's hooks

	// full is set when an acquire last found every lease out: the next
	// takes Curator's slower path, holding the lock while it waits.
	full atomic.Bool

	// The shared count as last read, and its read's watch, for every
	// acquire until the watch fires: go-zookeeper keeps every watch set on
	// a path until the node changes, so a read per acquire of a count that
	// never changes would pile them up.
	countMu      sync.Mutex
	countValue   int
	countChanged <-chan struct{} // nil before the first read
}

// NewSemaphore returns a semaphore at path allowing maxLeases leases at once.
func NewSemaphore(client *framework.Client, path string, maxLeases int) (*Semaphore, error) {
	if err := framework.ValidatePath(path, false); err != nil {
		return nil, fmt.Errorf("%w: semaphore path %q: %w", ErrInvalidArg, path, err)
	}
	limit, err := newLeaseLimit(maxLeases)
	if err != nil {
		return nil, err
	}
	lock, err := NewLockInternals(client, framework.JoinPath(path, SemaphoreLockDir), MutexLockName, 1, driver.Standard{}, nil)
	if err != nil {
		return nil, err
	}
	return &Semaphore{
		client: client, path: path, leases: framework.JoinPath(path, SemaphoreLeaseDir), lock: lock, limit: limit,
		report: newReport(client, "semaphore", "", path),
	}, nil
}

// NewSemaphoreWithCount returns a semaphore at path whose maxLeases is the
// value of the Curator SharedCount node at countPath (a 4-byte big-endian
// integer), read afresh whenever an acquirer waits, so that waiters follow
// changes to it. The node must exist; Curator's SharedCount creates it.
func NewSemaphoreWithCount(client *framework.Client, path, countPath string) (*Semaphore, error) {
	if err := framework.ValidatePath(countPath, false); err != nil {
		return nil, fmt.Errorf("%w: count path: %w", ErrInvalidArg, err)
	}
	s, err := NewSemaphore(client, path, 1)
	if err != nil {
		return nil, err
	}
	s.countPath = countPath
	return s, nil
}

// CountReader is a started shared count a semaphore follows: Curator's
// SharedCountReader. shared.Count is one.
type CountReader interface {
	// Path returns the count node's path.
	Path() string
	// Started reports whether the count has started, and so whether its
	// node exists with a count in it.
	Started() bool
}

// NewSemaphoreWithSharedCount returns a semaphore at path whose maxLeases
// follows count, a started shared.Count on the same client (its path is
// read in the client's namespace) (Curator's
// InterProcessSemaphoreV2(client, path, SharedCountReader)). A nil or
// unstarted count is ErrInvalidArg here, not at the first acquire. A count
// of 0 lets nobody in: acquirers wait, as Curator's do.
func NewSemaphoreWithSharedCount(client *framework.Client, path string, count CountReader) (*Semaphore, error) {
	if count == nil || !count.Started() {
		return nil, fmt.Errorf("%w: the semaphore's count must be a started shared count", ErrInvalidArg)
	}
	return NewSemaphoreWithCount(client, path, count.Path())
}

// Path returns the semaphore's path.
func (s *Semaphore) Path() string { return s.path }

// SetMaxLeases changes the number of leases allowed at once, as following a
// Curator SharedCount does; waiting acquirers look again. A semaphore made
// with NewSemaphoreWithCount follows its count node alone: SetMaxLeases
// then returns ErrInvalidArg.
func (s *Semaphore) SetMaxLeases(n int) error {
	if s.countPath != "" {
		return fmt.Errorf("%w: the count node %s sets this semaphore's limit", ErrInvalidArg, s.countPath)
	}
	return s.limit.set(n)
}

// Acquire waits for one lease.
func (s *Semaphore) Acquire(ctx context.Context) (*Hold, error) {
	leases, err := s.acquireN(ctx, 1, false)
	if err != nil {
		return nil, err
	}
	return leases[0], nil
}

// TryAcquire takes one lease only if it can without waiting: Curator's
// acquire with a zero wait. If the leases are all out, or another acquirer
// is taking one at this moment, it returns ErrBusy, leaving no node behind.
func (s *Semaphore) TryAcquire(ctx context.Context) (*Hold, error) {
	leases, err := s.acquireN(ctx, 1, true)
	if err != nil {
		return nil, err
	}
	return leases[0], nil
}

// AcquireN waits for n leases, taken one after another as Curator does. If
// it fails or ctx ends, the leases it took are returned: none is left out.
func (s *Semaphore) AcquireN(ctx context.Context, n int) ([]*Hold, error) {
	return s.acquireN(ctx, n, false)
}

// acquireN is AcquireN; with try, no lease is waited for (see acquireOne).
func (s *Semaphore) acquireN(ctx context.Context, n int, try bool) ([]*Hold, error) {
	if n < 1 {
		return nil, fmt.Errorf("%w: %d leases, must be at least 1", ErrInvalidArg, n)
	}
	var got []*Hold
	for range n {
		start := time.Now()
		h, err := s.acquireOne(ctx, try)
		s.report.acquire(start, err)
		if err != nil {
			return nil, errors.Join(err, giveBack(ctx, got))
		}
		got = append(got, h)
	}
	return got, nil
}

// readCount returns the SharedCount node's count and a channel closed once
// it changes: the count an earlier read left, while its watch has not
// fired, else the node read again with a watch.
func (s *Semaphore) readCount(ctx context.Context) (int, <-chan struct{}, error) {
	s.countMu.Lock()
	n, changed := s.countValue, s.countChanged
	s.countMu.Unlock()
	if changed != nil {
		select {
		case <-changed:
		default:
			return n, changed, nil
		}
	}
	data, _, w, err := s.client.GetW(ctx, s.countPath)
	if err != nil {
		return 0, nil, err
	}
	if len(data) != 4 {
		return 0, nil, fmt.Errorf("%w: shared count %s holds %d bytes, want 4", ErrInvalidArg, s.countPath, len(data))
	}
	// A count of 0 or below lets nobody in: acquirers wait for it to rise,
	// as Curator's do.
	n, changed = max(int(int32(binary.BigEndian.Uint32(data))), 0), w.Done()
	s.countMu.Lock()
	s.countValue, s.countChanged = n, changed
	s.countMu.Unlock()
	return n, changed, nil
}

// Participants returns the names of the lease nodes (not their full
// paths: Curator's InterProcessSemaphoreV2.getParticipantNodes lists the
// leases directory's children), in no particular order.
func (s *Semaphore) Participants(ctx context.Context) ([]string, error) {
	children, _, err := s.client.Children(ctx, s.leases)
	if isNoNode(err) {
		return nil, nil
	}
	return children, err
}

// ReleaseAll releases every hold, last first, and joins their errors.
func ReleaseAll(ctx context.Context, holds []*Hold) error {
	return lastFirst(holds, func(h *Hold) error { return h.Release(ctx) })
}

// giveBack releases the holds a failed acquire took, last first, all
// within one cleanupTimeout and each only while its client stays connected
// (cleanupContext). A release that the context's end handed to the client's
// background deletes is not an error, and neither is a hold lost meanwhile:
// the caller never had it.
func giveBack(ctx context.Context, holds []*Hold) error {
	deadline := time.Now().Add(cleanupTimeout)
	return lastFirst(holds, func(h *Hold) error {
		ctx, cancel := cleanupContextUntil(ctx, h.client, deadline)
		defer cancel()
		err := h.Release(ctx)
		if ctx.Err() != nil || errors.Is(err, ErrLockLost) {
			return nil
		}
		return err
	})
}

// lastFirst calls release on every hold, last first, and joins the errors.
func lastFirst(holds []*Hold, release func(*Hold) error) error {
	var errs []error
	for i := len(holds) - 1; i >= 0; i-- {
		if err := release(holds[i]); err != nil {
			errs = append(errs, err)
		}
	}
	return errors.Join(errs...)
}
