package locks

import (
	"context"
	"fmt"
	"math"
	"strings"

	"github.com/gocurator/curator/driver"
	"github.com/gocurator/curator/framework"
	"github.com/gocurator/curator/internal/goroutine"
)

// The names of a ReadWriteLock's nodes, as Curator writes them. Both share
// one directory and one sequence.
const (
	ReadLockName  = "__READ__"
	WriteLockName = "__WRIT__"
)

// ReadWriteLock is Curator's InterProcessReadWriteLock: many readers or one
// writer, in the order they asked (a reader waits on the first writer ahead
// of it, so writers do not starve). Both locks are reentrant per Owner. The
// write holder may take the read lock and then release the write lock
// (downgrade, in Curator 5.5's form: the read node reuses the write node's
// sequence, so a writer queued behind keeps waiting). A read holder asking
// for the write lock gets ErrUpgrade instead of waiting on itself for ever.
//
// Without an Owner in the context, a goroutine is refused at once where it
// would wait on a hold it took itself without one: ErrUpgrade for the write
// lock while it reads, ErrSelfDeadlock for the read lock while it writes
// (use Downgrade) or reads (readers re-enter only by Owner: a writer queued
// between its two read nodes would wait on the first, and the second on it).
type ReadWriteLock struct {
	read, write *Mutex
}

// NewReadWriteLock returns a read-write lock at path.
func NewReadWriteLock(client *framework.Client, path string, opts ...Option) (*ReadWriteLock, error) {
	write, err := newMutex(client, path, WriteLockName, 1, writeDriver{}, opts)
	if err != nil {
		return nil, err
	}
	read, err := newMutex(client, path, ReadLockName, math.MaxInt32, readDriver{write: write}, opts)
	if err != nil {
		return nil, err
	}
	read.li.report.recipe, write.li.report.recipe = "read", "write"
	// Each side lists only its own nodes, as Curator's
	// InternalInterProcessMutex does; Participants lists both.
	read.only, write.only = ReadLockName, WriteLockName
	write.guard = func(o *Owner) error {
		// A read hold lost but not released counts: its node may still
		// be there, ahead of the write node.
		if read.holdOf(o) != nil && !write.IsOwnedBy(o) {
			return ErrUpgrade
		}
		return nil
	}
	write.selfWaits = []selfWait{selfWaitOn(write, "write lock of"), {on: read, refuse: func(h *Hold) error {
		return fmt.Errorf("%w: %s: this goroutine holds the read lock (node %s%s), taken without an Owner",
			ErrUpgrade, write.Path(), h.Path(), lostNote(h))
	}}}
	read.selfWaits = []selfWait{{on: write, refuse: func(h *Hold) error {
		return fmt.Errorf("%w: read lock of %s: this goroutine holds the write lock (node %s%s), taken without an Owner; "+
			"to downgrade, call Downgrade(ctx, writeHold) or give both Acquires one Owner (WithOwner)",
			ErrSelfDeadlock, read.Path(), h.Path(), lostNote(h))
	}}, selfWaitOn(read, "read lock of")}
	return &ReadWriteLock{read: read, write: write}, nil
}

// Downgrade takes the read lock for the owner of w, a write hold of this
// lock, whatever ctx's owner is (Curator's downgrade: acquire the read lock
// while holding the write lock, then release the write lock). It returns at
// once: the read node takes w's place in the queue. Release w once you have
// the read hold. A hold that is not this lock's current write hold is
// ErrNotOwner.
//
// Without it, a downgrade needs ctx to carry w's owner (WithOwner): a read
// Acquire by another owner waits for w like any reader, and one without an
// Owner on the goroutine that took w without one is ErrSelfDeadlock.
func (rw *ReadWriteLock) Downgrade(ctx context.Context, w *Hold) (*Hold, error) {
	o := rw.write.ownerOf(w)
	if o == nil {
		if w != nil && w.Err() != nil {
			return nil, fmt.Errorf("downgrade: %w", w.Err())
		}
		return nil, fmt.Errorf("%w: not a write hold of %s", ErrNotOwner, rw.write.Path())
	}
	// A write hold taken without an Owner gives a read hold without one,
	// the calling goroutine's (ErrUpgrade if it asks for the write lock).
	var taker uint64
	if rw.write.takerOf(o) != 0 {
		taker = goroutine.ID()
	}
	return rw.read.acquireFor(WithOwner(ctx, o), false, taker)
}

// Participants returns the full paths of every node of the lock, readers'
// and writers', in queue order. ReadLock().Participants lists only the
// readers', and WriteLock().Participants only the writers', as Curator's.
func (rw *ReadWriteLock) Participants(ctx context.Context) ([]string, error) {
	return rw.write.li.Participants(ctx)
}

// ReadLock returns the lock readers share.
func (rw *ReadWriteLock) ReadLock() *Mutex { return rw.read }

// WriteLock returns the writers' lock.
func (rw *ReadWriteLock) WriteLock() *Mutex { return rw.write }

// rwFixForSorting sorts read and write nodes on their common sequence.
func rwFixForSorting(name, _ string) string {
	name = driver.StandardFixForSorting(name, ReadLockName)
	return driver.StandardFixForSorting(name, WriteLockName)
}

// writeDriver is the standard driver sorting on the shared sequence.
type writeDriver struct{ driver.Standard }

func (writeDriver) FixForSorting(name, lockName string) string {
	return rwFixForSorting(name, lockName)
}

// readDriver lets a reader hold while no writer is ahead of it.
type readDriver struct {
	driver.Standard
	write *Mutex
}

func (readDriver) FixForSorting(name, lockName string) string { return rwFixForSorting(name, lockName) }

// CreatesTheLock makes a standard node, except for the write holder
// downgrading: its read node is ephemeral, not sequential, and carries the
// write node's sequence (Curator 5.5, CURATOR-621). It is made in one
// transaction with a check that the write node still exists: a read node on
// the sequence of a write hold lost meanwhile would sort ahead of a writer
// that holds now, and let both in (Curator does not check). Without the
// write node the downgrade fails with ErrLockLost, and the write hold is
// lost.
func (d readDriver) CreatesTheLock(ctx context.Context, client *framework.Client, path string, data []byte) (string, error) {
	if o := OwnerFrom(ctx); o != nil {
		if h := d.write.holdOf(o); h != nil {
			_, name := framework.SplitPath(h.Path())
			res, err := client.Txn(ctx,
				framework.CreateOp(path+rwFixForSorting(name, ""), data, framework.Ephemeral,
					framework.WithProtection(), framework.WithContainerParents()),
				framework.CheckOp(h.Path(), -1))
			if fenceGone(err) {
				err := fmt.Errorf("%w: downgrade: write node %s is gone", ErrLockLost, h.Path())
				h.markLost(err)
				return "", err
			}
			if err != nil {
				return "", err
			}
			return res[0].Path, nil
		}
	}
	return d.Standard.CreatesTheLock(ctx, client, path, data)
}

// GetsTheLock holds iff no write node is ahead of ours, not counting the
// write node that shares our sequence: that is our own, being downgraded.
func (readDriver) GetsTheLock(children []string, ourNode string, _ int) (driver.Result, error) {
	ourKey := rwFixForSorting(ourNode, "")
	firstWrite := -1
	for i, node := range children {
		if node == ourNode {
			if firstWrite < 0 {
				return driver.Result{Held: true}, nil
			}
			return driver.Result{Watch: children[firstWrite]}, nil
		}
		if firstWrite < 0 && strings.Contains(node, WriteLockName) && rwFixForSorting(node, "") != ourKey {
			firstWrite = i
		}
	}
	return driver.Result{}, fmt.Errorf("%w: %s", driver.ErrNodeMissing, ourNode)
}
