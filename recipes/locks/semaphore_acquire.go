package locks

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"time"

	"github.com/gocurator/curator/driver"
	"github.com/gocurator/curator/framework"
	"github.com/gocurator/curator/listener"
)

// A lease is taken in one of two ways; both keep Curator's rule that a
// lease node is created only by the holder of the P/locks lock, and that a
// lease is held only if a listing made after its node was created shows at
// most maxLeases nodes. docs/recipes/locks.md explains the choice.
//
//   - tryInTxn (while leases were free last time): take the lock, then
//     create the lease node and delete the lock node in one transaction, and
//     count the leases. If they are all out, give the lease back and take the
//     other way.
//   - tryHoldingLock (Curator's order): take the lock, create the lease
//     node, wait holding the lock until the leases fit, release the lock.
//
// With try set, neither waits: an acquirer that finds the lock taken, or
// the leases all out, gives back what it made and returns ErrBusy, as
// Curator's acquire with a zero wait does.
func (s *Semaphore) acquireOne(ctx context.Context, try bool) (*Hold, error) {
	if s.countPath == "" && !s.full.Load() {
		h, _, err := retryVanished(ctx, func(ctx context.Context) (*Hold, bool, bool, error) { return s.tryInTxn(ctx, try) })
		if h != nil || err != nil {
			return h, err
		}
		s.full.Store(true)
		if try {
			return nil, ErrBusy
		}
	}
	h, waited, err := retryVanished(ctx, func(ctx context.Context) (*Hold, bool, bool, error) { return s.tryHoldingLock(ctx, try) })
	if err == nil && !waited {
		s.full.Store(false)
	}
	return h, err
}

// attempt is one try at a lease. waited reports that the leases were full
// at first; vanished, that our lock or lease node went with its session and
// the try must be made anew, the lock taken again first.
type attempt func(ctx context.Context) (h *Hold, waited, vanished bool, err error)

// retryVanished makes the attempt until its nodes stay, at most
// maxRecreates times again.
func retryVanished(ctx context.Context, try attempt) (h *Hold, waited bool, err error) {
	for recreates := 0; ; recreates++ {
		h, w, vanished, err := try(ctx)
		waited = waited || w
		switch {
		case !vanished:
			return h, waited, err
		case recreates >= maxRecreates || ctx.Err() != nil:
			return nil, waited, gaveUp(ctx, err)
		}
	}
}

// newLease returns the hold of the lease node at path; sess is the client's
// error epoch from before the listing that found it within the limit.
func (s *Semaphore) newLease(path string, sess *framework.Session) *Hold {
	return newHold(s.client, path, nil, nil, sess, s.report)
}

// leaseTxn returns, for pipelined, a create of a protected lease node (and
// of the leases directory if missing) in one transaction with guard, an
// operation on our lock node.
func (s *Semaphore) leaseTxn(guard framework.Op) func(context.Context) (string, error) {
	return func(ctx context.Context) (string, error) {
		res, err := s.client.Txn(ctx, framework.CreateOp(framework.JoinPath(s.leases, LeaseName), s.data,
			framework.EphemeralSequential, framework.WithProtection(), framework.WithContainerParents()), guard)
		if err != nil {
			return "", err
		}
		return res[0].Path, nil
	}
}

// tryInTxn takes a lease the quick way: the lease node's create and the
// lock's release are one transaction, with the count of leases right behind
// it. It returns no hold and no error if the leases were all out (its lease
// is then given back).
func (s *Semaphore) tryInTxn(ctx context.Context, try bool) (h *Hold, waited, vanished bool, err error) {
	lockPath, err := s.lock.Acquire(ctx, try)
	if err != nil {
		return nil, false, false, err
	}
	var sess *framework.Session
	path, first, ok, err := pipelined(ctx, s.leaseTxn(framework.DeleteOp(lockPath, -1)), func(ctx context.Context) ([]string, error) {
		sess = s.client.Session()
		return s.leaseChildren(ctx)
	})
	if err != nil {
		// Committed or not, our lock node must go; the client deletes a
		// lease node the transaction may have made.
		deleteNode(ctx, s.client, lockPath)
		return nil, false, fenceGone(err), err
	}
	_, name := framework.SplitPath(path)
	// A listing that may have gone ahead of the create, that misses our
	// lease, or during which an error state came (see LockInternals.wait)
	// decides nothing: list again.
	for !ok || !slices.Contains(first, name) || sess.Err() != nil {
		sess = s.client.Session()
		if first, err = s.leaseChildren(ctx); err != nil {
			deleteNode(ctx, s.client, path)
			return nil, false, false, err
		}
		if !slices.Contains(first, name) {
			return nil, false, true, nil
		}
		ok = true
	}
	if max, _ := s.limit.get(); leaseCount(first) <= max {
		return s.newLease(path, sess), false, false, nil
	}
	// No room, and we no longer hold the lock: a lease must not wait
	// without it, or two waiters could each keep the other out.
	deleteNode(ctx, s.client, path)
	return nil, true, false, ctx.Err()
}

// fenceGone reports a transaction that failed because the node its second
// op guards on (our lock node, or the write node being downgraded) was gone:
// its session expired, or a peer deleted it.
func fenceGone(err error) bool {
	var te *framework.TxnError
	return errors.As(err, &te) && te.Index == 1 && errors.Is(err, framework.ErrNoNode)
}

// gaveUp is the error of an acquire whose lease or lock node vanished each
// time it was made (err, if any, is the last attempt's).
func gaveUp(ctx context.Context, err error) error {
	if cerr := ctx.Err(); cerr != nil {
		return cerr
	}
	if err != nil {
		return fmt.Errorf("%w: %d attempts: %w", driver.ErrNodeMissing, maxRecreates+1, err)
	}
	return fmt.Errorf("%w: the lease or lock node vanished %d times", driver.ErrNodeMissing, maxRecreates+1)
}

// leaseChildren lists the leases; a missing directory has none.
func (s *Semaphore) leaseChildren(ctx context.Context) ([]string, error) {
	children, _, err := s.client.Children(ctx, s.leases)
	if isNoNode(err) {
		return nil, nil
	}
	return children, err
}

// tryHoldingLock is Curator's InterProcessSemaphoreV2 order: take the lock,
// add a lease node, wait until the leases directory holds at most maxLeases
// nodes, release the lock. If our lease or lock node vanishes with its
// session, it gives up the lock and reports it: the lease is made again only
// after the lock is taken again (Curator's RETRY_DUE_TO_MISSING_NODE), never
// while another may hold it.
func (s *Semaphore) tryHoldingLock(ctx context.Context, try bool) (h *Hold, waited, vanished bool, err error) {
	lockPath, err := s.lock.Acquire(ctx, try)
	if err != nil {
		return nil, false, false, err
	}
	// The lease's delete and the lock's release share one cleanupTimeout.
	var cleanupBy time.Time
	cleanup := func() (context.Context, context.CancelFunc) {
		if cleanupBy.IsZero() {
			cleanupBy = time.Now().Add(cleanupTimeout)
		}
		return cleanupContextUntil(ctx, s.client, cleanupBy)
	}
	defer func() {
		ctx, cancel := cleanup()
		defer cancel()
		s.lock.Release(ctx, lockPath)
	}()
	// The check makes the lease only while our lock node exists.
	var sess *framework.Session
	path, first, ok, err := pipelined(ctx, s.leaseTxn(framework.CheckOp(lockPath, -1)), func(ctx context.Context) (leaseListing, error) {
		sess = s.client.Session()
		return s.listLeases(ctx)
	})
	if err != nil {
		return nil, false, fenceGone(err), err
	}
	var pre *leaseListing
	if ok {
		pre = &first
	}
	h, waited, err = s.waitForRoom(ctx, path, pre, sess, try)
	if h != nil {
		return h, waited, false, nil
	}
	cctx, cancel := cleanup()
	defer cancel()
	deleteWithin(cctx, s.client, path)
	return nil, waited, err == nil, err // no hold and no error: the lease vanished
}

// leaseListing is the leases directory with a watch on it.
type leaseListing struct {
	children []string
	watch    framework.Watch
}

// listLeases lists the leases and watches them; a missing directory has
// none (and no watch: a caller finds its own lease missing and stops).
func (s *Semaphore) listLeases(ctx context.Context) (leaseListing, error) {
	children, _, w, err := s.client.ChildrenW(ctx, s.leases)
	if isNoNode(err) {
		return leaseListing{}, nil
	}
	return leaseListing{children, w}, err
}

// waitForRoom waits until the lease at path is among at most maxLeases, and
// returns its hold; first, if given and showing our lease, is the first
// listing, made during sess. No hold and no error means the node vanished;
// with try, a lease that does not fit at once is ErrBusy. waited reports
// whether it had to wait. The hold keeps the Session from before the
// listing that showed it. A lost session wakes it too
// (go-zookeeper does not wake watches on a disconnect): the next listing
// shows whether our lease survived.
func (s *Semaphore) waitForRoom(ctx context.Context, path string, first *leaseListing, sess *framework.Session, try bool) (h *Hold, waited bool, err error) {
	_, name := framework.SplitPath(path)
	// The shared count is read again only once its watch has fired
	// (readCount): go-zookeeper keeps every watch set on a path until the
	// node changes.
	var count int
	var countChanged <-chan struct{}
	countStale := s.countPath != ""
	for ; ; waited = true {
		max, changed := s.limit.get()
		if countStale {
			n, c, err := s.readCount(ctx)
			if err != nil {
				return nil, waited, err
			}
			count, countChanged, countStale = n, c, false
		}
		if s.countPath != "" {
			max = count
		}
		var l leaseListing
		if first != nil && slices.Contains(first.children, name) {
			l = *first
		} else {
			sess = s.client.Session()
			var err error
			if l, err = s.listLeases(ctx); err != nil {
				return nil, waited, err
			}
			if !slices.Contains(l.children, name) {
				return nil, waited, nil
			}
		}
		first = nil
		if leaseCount(l.children) <= max {
			if sess.Err() != nil {
				continue // see LockInternals.wait: list again after the error state
			}
			return s.newLease(path, sess), waited, nil
		}
		if try {
			return nil, true, ErrBusy
		}
		var err error
		if countStale, err = s.awaitRoom(ctx, l.watch, changed, countChanged); err != nil {
			return nil, waited, err
		}
	}
}

// awaitRoom waits for the leases to change, the limit or the shared count
// to change, the session to become lost, or ctx. countFired reports that
// the count's watch fired (a lost session ends it too).
func (s *Semaphore) awaitRoom(ctx context.Context, w framework.Watch, limitChanged <-chan struct{}, countChanged <-chan struct{}) (countFired bool, err error) {
	_, stateChanged := s.client.StateChanged()
	for {
		select {
		case <-w.Done():
			return false, nil
		case <-limitChanged:
			return false, nil
		case <-countChanged:
			return true, nil
		case <-stateChanged:
			var state listener.ConnectionState
			if state, stateChanged = s.client.StateChanged(); state == listener.Lost {
				return countChanged != nil, nil
			}
		case <-ctx.Done():
			return false, ctx.Err()
		}
	}
}

// leaseCount counts the leases among a listing of the leases directory:
// the nodes named as leases are (LeaseName and a sequence number). Curator
// counts every child, so that a node anyone made there by hand takes a
// lease for as long as it exists; leaving it out never lets more than
// maxLeases hold, Java's and Go's together, as each counts every real lease
// (see driver.SortChildren).
func leaseCount(children []string) int {
	n := 0
	for _, c := range children {
		if driver.IsSequence(driver.StandardFixForSorting(c, LeaseName)) {
			n++
		}
	}
	return n
}
