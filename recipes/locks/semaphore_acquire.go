package locks

import (
	"context"
	"errors"
	"slices"

	"github.com/go-zookeeper/zk"

	"github.com/gocurator/curator/framework"
)

// A lease is taken in one of two ways; both keep Curator's rule that a
// lease node is created only by the holder of the P/locks lock, and that a
// lease is held only if a listing made after its node was created shows at
// most maxLeases nodes. docs/recipes/locks.md explains the choice.
//
//   - acquireInTxn (while leases were free last time): take the lock, then
//     create the lease node and delete the lock node in one transaction, and
//     count the leases. If they are all out, give the lease back and take the
//     other way.
//   - acquireHoldingLock (Curator's order): take the lock, create the lease
//     node, wait holding the lock until the leases fit, release the lock.
func (s *Semaphore) acquireOne(ctx context.Context) (*Hold, error) {
	if s.countPath == "" && !s.full.Load() {
		h, err := s.acquireInTxn(ctx)
		if h != nil || err != nil {
			return h, err
		}
		s.full.Store(true)
	}
	h, waited, err := s.acquireHoldingLock(ctx)
	if err == nil && !waited {
		s.full.Store(false)
	}
	return h, err
}

// newLease returns the hold of the lease node at path.
func (s *Semaphore) newLease(path string) *Hold {
	return newHold(s.client, path, func(ctx context.Context, p string) error { return releaseNode(ctx, s.client, p) }, nil, nil)
}

// leaseOp creates a protected lease node, making the leases directory if
// it is missing.
func (s *Semaphore) leaseOp() framework.Op {
	return framework.CreateOp(framework.JoinPath(s.leases, LeaseName), s.data, framework.EphemeralSequential,
		framework.WithProtection(), framework.WithContainerParents())
}

// acquireInTxn takes a lease the quick way: the lease node's create and the
// lock's release are one transaction, with the count of leases right behind
// it. It returns nil and no error if the leases were all out (its lease is
// then given back).
func (s *Semaphore) acquireInTxn(ctx context.Context) (*Hold, error) {
	for recreates := 0; ; recreates++ {
		lockPath, err := s.lock.Acquire(ctx, false)
		if err != nil {
			return nil, err
		}
		path, first, ok, err := pipelined(ctx, func(ctx context.Context) (string, error) {
			res, err := s.client.Txn(ctx, s.leaseOp(), framework.DeleteOp(lockPath, -1))
			if err != nil {
				return "", err
			}
			return res[0].Path, nil
		}, s.leaseChildren)
		if err != nil {
			// Committed or not, our lock node must go; the client deletes a
			// lease node the transaction may have made.
			deleteNode(ctx, s.client, lockPath)
			var te *framework.TxnError
			if errors.As(err, &te) && te.Index == 1 && errors.Is(err, framework.ErrNoNode) && recreates < maxRecreates && ctx.Err() == nil {
				continue // our lock node vanished with its session: start again
			}
			return nil, err
		}
		_, name := framework.SplitPath(path)
		if !ok || !slices.Contains(first, name) {
			if first, err = s.leaseChildren(ctx); err != nil {
				deleteNode(ctx, s.client, path)
				return nil, err
			}
			if !slices.Contains(first, name) {
				continue // our lease vanished with its session: start again
			}
		}
		if max, _ := s.limit.get(); len(first) <= max {
			return s.newLease(path), nil
		}
		// No room, and we no longer hold the lock: a lease must not wait
		// without it, or two waiters could each keep the other out.
		deleteNode(ctx, s.client, path)
		return nil, ctx.Err()
	}
}

func (s *Semaphore) leaseChildren(ctx context.Context) ([]string, error) {
	children, _, err := s.client.Children(ctx, s.leases)
	return children, err
}

// acquireHoldingLock is Curator's InterProcessSemaphoreV2 order: take the
// lock, add a lease node, wait until the leases directory holds at most
// maxLeases nodes, release the lock. waited reports whether the leases were
// full when it first looked.
func (s *Semaphore) acquireHoldingLock(ctx context.Context) (h *Hold, waited bool, err error) {
	lockPath, err := s.lock.Acquire(ctx, false)
	if err != nil {
		return nil, false, err
	}
	defer s.lock.Release(context.WithoutCancel(ctx), lockPath)
	for recreates := 0; ; recreates++ {
		path, first, ok, err := pipelined(ctx, func(ctx context.Context) (string, error) {
			return s.client.Create(ctx, framework.JoinPath(s.leases, LeaseName), s.data,
				framework.WithMode(framework.EphemeralSequential), framework.WithProtection(), framework.WithContainerParents())
		}, s.listLeases)
		if err != nil {
			return nil, waited, err
		}
		var pre *leaseListing
		if ok {
			pre = &first
		}
		room, w, err := s.waitForRoom(ctx, path, pre)
		waited = waited || w
		if room {
			return s.newLease(path), waited, nil
		}
		deleteNode(ctx, s.client, path)
		if err != nil || recreates >= maxRecreates {
			return nil, waited, err
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
// nil error means the node vanished and must be made again. waited reports
// whether it had to wait.
func (s *Semaphore) waitForRoom(ctx context.Context, path string, first *leaseListing) (room, waited bool, err error) {
	_, name := framework.SplitPath(path)
	for ; ; waited = true {
		max, changed := s.limit.get()
		var countChanged <-chan zk.Event
		if s.countPath != "" {
			n, w, err := s.readCount(ctx)
			if err != nil {
				return false, waited, err
			}
			max, countChanged = n, w.C()
		}
		var l leaseListing
		if first != nil && slices.Contains(first.children, name) {
			l = *first
		} else {
			var err error
			if l, err = s.listLeases(ctx); err != nil {
				return false, waited, err
			}
			if !slices.Contains(l.children, name) {
				return false, waited, nil
			}
		}
		first = nil
		if len(l.children) <= max {
			return true, waited, nil
		}
		select {
		case <-l.watch.C():
		case <-changed:
		case <-countChanged:
		case <-ctx.Done():
			return false, waited, ctx.Err()
		}
	}
}
