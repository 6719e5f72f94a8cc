package locks

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"slices"

	"github.com/go-zookeeper/zk"

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
	lock   *Mutex
	data   []byte

	countPath string // a Curator SharedCount node giving maxLeases; "" for a fixed count
	limit     *leaseLimit
}

// NewSemaphore returns a semaphore at path allowing maxLeases leases at once.
func NewSemaphore(client *framework.Client, path string, maxLeases int) (*Semaphore, error) {
	limit, err := newLeaseLimit(maxLeases)
	if err != nil {
		return nil, err
	}
	lock, err := NewMutex(client, framework.JoinPath(path, SemaphoreLockDir))
	if err != nil {
		return nil, err
	}
	return &Semaphore{
		client: client, path: path, leases: framework.JoinPath(path, SemaphoreLeaseDir), lock: lock, limit: limit,
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

// SetMaxLeases changes the number of leases allowed at once, as following a
// Curator SharedCount does; waiting acquirers look again.
func (s *Semaphore) SetMaxLeases(n int) error { return s.limit.set(n) }

// Acquire waits for one lease.
func (s *Semaphore) Acquire(ctx context.Context) (*Hold, error) {
	leases, err := s.AcquireN(ctx, 1)
	if err != nil {
		return nil, err
	}
	return leases[0], nil
}

// AcquireN waits for n leases, taken one after another as Curator does. If
// it fails or ctx ends, the leases it took are returned: none is left out.
func (s *Semaphore) AcquireN(ctx context.Context, n int) ([]*Hold, error) {
	if n < 1 {
		return nil, fmt.Errorf("%w: %d leases, must be at least 1", ErrInvalidArg, n)
	}
	var got []*Hold
	for range n {
		h, err := s.acquireOne(ctx)
		if err != nil {
			return nil, errors.Join(err, ReleaseAll(context.WithoutCancel(ctx), got))
		}
		got = append(got, h)
	}
	return got, nil
}

// acquireOne takes the semaphore's mutex, adds a lease node and waits until
// the leases directory holds at most maxLeases nodes.
func (s *Semaphore) acquireOne(ctx context.Context) (*Hold, error) {
	lock, err := s.lock.Acquire(ctx)
	if err != nil {
		return nil, err
	}
	defer lock.Release(context.WithoutCancel(ctx))
	for recreates := 0; ; recreates++ {
		path, first, ok, err := pipelined(ctx, func(ctx context.Context) (string, error) {
			return s.client.Create(ctx, framework.JoinPath(s.leases, LeaseName), s.data,
				framework.WithMode(framework.EphemeralSequential), framework.WithProtection(), framework.WithContainerParents())
		}, s.listLeases)
		if err != nil {
			return nil, err
		}
		var pre *leaseListing
		if ok {
			pre = &first
		}
		room, err := s.waitForRoom(ctx, path, pre)
		if room {
			return newHold(s.client, path, func(ctx context.Context, p string) error { return releaseNode(ctx, s.client, p) }, nil, nil), nil
		}
		deleteNode(ctx, s.client, path)
		if err != nil || recreates >= maxRecreates {
			return nil, err
		}
	}
}

// leaseListing is the leases directory with a watch on it.
type leaseListing struct {
	children []string
	watch    framework.Watch
}

func (s *Semaphore) listLeases(ctx context.Context) (leaseListing, error) {
	children, _, w, err := s.client.ChildrenW(ctx, s.leases)
	return leaseListing{children, w}, err
}

// waitForRoom waits until the lease at path is among at most maxLeases;
// first, if given and showing our lease, is the first listing. false with a
// nil error means the node vanished and must be made again.
func (s *Semaphore) waitForRoom(ctx context.Context, path string, first *leaseListing) (bool, error) {
	_, name := framework.SplitPath(path)
	for {
		max, changed := s.limit.get()
		var countChanged <-chan zk.Event
		if s.countPath != "" {
			n, w, err := s.readCount(ctx)
			if err != nil {
				return false, err
			}
			max, countChanged = n, w.C()
		}
		var l leaseListing
		if first != nil && slices.Contains(first.children, name) {
			l = *first
		} else {
			var err error
			if l, err = s.listLeases(ctx); err != nil {
				return false, err
			}
			if !slices.Contains(l.children, name) {
				return false, nil
			}
		}
		first = nil
		if len(l.children) <= max {
			return true, nil
		}
		select {
		case <-l.watch.C():
		case <-changed:
		case <-countChanged:
		case <-ctx.Done():
			return false, ctx.Err()
		}
	}
}

// readCount reads the SharedCount node and watches it.
func (s *Semaphore) readCount(ctx context.Context) (int, framework.Watch, error) {
	data, _, w, err := s.client.GetW(ctx, s.countPath)
	if err != nil {
		return 0, w, err
	}
	if len(data) != 4 {
		return 0, w, fmt.Errorf("%w: shared count %s holds %d bytes, want 4", ErrInvalidArg, s.countPath, len(data))
	}
	n := int(int32(binary.BigEndian.Uint32(data)))
	if n < 1 {
		return 0, w, fmt.Errorf("%w: shared count %s is %d, must be at least 1", ErrInvalidArg, s.countPath, n)
	}
	return n, w, nil
}

// Participants returns the full paths of the lease nodes.
func (s *Semaphore) Participants(ctx context.Context) ([]string, error) {
	children, _, err := s.client.Children(ctx, s.leases)
	if isNoNode(err) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	for i, c := range children {
		children[i] = framework.JoinPath(s.leases, c)
	}
	return children, nil
}

// ReleaseAll releases every hold, last first, and joins their errors.
func ReleaseAll(ctx context.Context, holds []*Hold) error {
	var errs []error
	for i := len(holds) - 1; i >= 0; i-- {
		if err := holds[i].Release(ctx); err != nil {
			errs = append(errs, err)
		}
	}
	return errors.Join(errs...)
}
