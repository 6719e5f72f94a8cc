package locks

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/gocurator/curator/driver"
	"github.com/gocurator/curator/framework"
	"github.com/gocurator/curator/listener"
)

// maxRecreates bounds how often one acquire recreates a node that vanished
// under it before giving up (Curator retries per its retry policy).
const maxRecreates = 10

// cleanupTimeout bounds the foreground attempt to delete a node after a
// cancel or an error (see cleanupContext).
const cleanupTimeout = 10 * time.Second

// LockInternals is the engine under every lock, as Curator's LockInternals:
// it creates the participant's node through a driver, lists and sorts the
// lock's children, asks the driver whether the node holds the lock, and
// otherwise waits on the node the driver names, on the connection state and
// on the context together. On cancel, timeout or error it deletes the node.
type LockInternals struct {
	client   *framework.Client
	driver   driver.LockDriver
	dir      string
	lockName string
	data     []byte
	limit    *leaseLimit
	report   report // what its holds tell the client's hooks
}

// NewLockInternals returns an engine for the lock at dir, whose nodes are
// named with lockName, held by at most maxLeases participants at once. data
// is each node's data (nil: the client's default).
func NewLockInternals(client *framework.Client, dir, lockName string, maxLeases int, drv driver.LockDriver, data []byte) (*LockInternals, error) {
	switch {
	case client == nil:
		return nil, fmt.Errorf("%w: nil client", ErrInvalidArg)
	case drv == nil:
		return nil, fmt.Errorf("%w: nil driver", ErrInvalidArg)
	case lockName == "" || strings.Contains(lockName, "/"):
		return nil, fmt.Errorf("%w: lock name %q", ErrInvalidArg, lockName)
	}
	limit, err := newLeaseLimit(maxLeases)
	if err != nil {
		return nil, err
	}
	if err := framework.ValidatePath(dir, false); err != nil || dir == "/" {
		return nil, fmt.Errorf("%w: lock path %q: %w", ErrInvalidArg, dir, err)
	}
	return &LockInternals{client: client, driver: drv, dir: dir, lockName: lockName, data: data, limit: limit,
		report: newReport(client, "lock", "", dir)}, nil
}

// Dir returns the lock's directory.
func (li *LockInternals) Dir() string { return li.dir }

// SetMaxLeases changes how many participants may hold at once and wakes the
// waiters to look again.
func (li *LockInternals) SetMaxLeases(n int) error { return li.limit.set(n) }

// Acquire creates a node and waits until it holds the lock; it returns the
// node's path. With try set it looks once and, if the lock is held by others,
// deletes its node and returns ErrBusy. On any error, or when ctx ends, the
// node is deleted (guaranteed) before Acquire returns.
func (li *LockInternals) Acquire(ctx context.Context, try bool) (string, error) {
	tk, err := li.acquire(ctx, try, false)
	return tk.path, err
}

// AcquireHold is Acquire returning the node's Hold, with the powers the
// locks' holds have: Lost, Err, Fence and Token, and a Release that reports
// a loss. It is not reentrant (that is Mutex's): each call makes a node.
// A recipe built on a custom driver uses it to keep the loss signal and
// fencing.
//
// Its node is watched from its creation: an exists watch is sent as soon
// as the create is answered, beside the listing, so the hold's Lost sends
// nothing when the lock is taken, and the loss of a node deleted by
// someone else is seen from the watch. That costs one request per node,
// in the create's round trip, whether or not the node comes to hold.
func (li *LockInternals) AcquireHold(ctx context.Context, try bool) (*Hold, error) {
	start := time.Now()
	tk, err := li.acquire(ctx, try, true)
	li.report.acquire(start, err)
	if err != nil {
		return nil, err
	}
	h := newHold(li.client, tk.path, nil, nil, tk.sess, li.report)
	h.own, h.woke = tk.own, tk.woke
	return h, nil
}

// nodeWatch is the data watch a node is given as soon as its create is
// answered (AcquireHold): its answer and the watch it set. A data watch,
// not an exists: on a node gone already (its session ended first) an
// exists would leave a watch for its creation, which never comes.
type nodeWatch struct {
	cancel context.CancelFunc // abandons the read
	done   chan struct{}      // closed once the fields below are set
	exists bool
	stat   *framework.Stat
	watch  framework.Watch
	err    error
}

// watchNode sends a data watch on path from a goroutine of its own,
// which ends once it is answered or abandoned (abandon).
func watchNode(ctx context.Context, client *framework.Client, path string) *nodeWatch {
	ctx, cancel := context.WithCancel(ctx)
	w := &nodeWatch{cancel: cancel, done: make(chan struct{})}
	go func() {
		defer close(w.done)
		_, w.stat, w.watch, w.err = client.GetW(ctx, path)
		w.exists = w.err == nil
		if errors.Is(w.err, framework.ErrNoNode) {
			w.err = nil // an answer: the node is gone
		}
	}()
	return w
}

// abandon stops the read and waits for its goroutine; the watch, if it
// was set, is left to fire unheard.
func (w *nodeWatch) abandon() {
	if w != nil {
		w.cancel()
		<-w.done
	}
}

// taken is what acquire took: the node, the client's Session from before
// the listing that found the lock held, with watchOwn the node's own watch
// (see AcquireHold), answered or not (its owner abandons it), and when the
// wait last woke to its watch firing (zero if it did not wait).
type taken struct {
	path string
	sess *framework.Session
	own  *nodeWatch
	woke time.Time
}

// acquire is Acquire for a hold.
func (li *LockInternals) acquire(ctx context.Context, try, watchOwn bool) (taken, error) {
	for recreates := 0; ; recreates++ {
		ourPath, first, sess, own, err := li.createAndList(ctx, watchOwn)
		if err != nil {
			return taken{}, err
		}
		var woke time.Time
		held, sess, err := li.wait(ctx, ourPath, try, first, sess, &woke)
		if err == nil && held {
			return taken{path: ourPath, sess: sess, own: own, woke: woke}, nil
		}
		own.abandon()
		li.deleteNode(ctx, ourPath)
		switch {
		case errors.Is(err, driver.ErrNodeMissing) && recreates < maxRecreates && ctx.Err() == nil:
			continue
		case err == nil:
			return taken{}, ErrBusy
		}
		return taken{}, err
	}
}

// createAndList creates our node through the driver with the lock
// directory's listing pipelined behind it (see pipelined), and returns the
// client's Session from before the listing. The listing is nil if it
// could not be had; it may lack our node, and wait then lists again. With
// watchOwn, an exists watch on the node is sent as soon as the create is
// answered (watchNode); own is nil if the create failed.
func (li *LockInternals) createAndList(ctx context.Context, watchOwn bool) (string, []string, *framework.Session, *nodeWatch, error) {
	var (
		sess *framework.Session
		own  *nodeWatch
	)
	path, children, _, err := pipelined(ctx, func(cctx context.Context) (string, error) {
		path, err := li.driver.CreatesTheLock(cctx, li.client, framework.JoinPath(li.dir, li.lockName), li.data)
		if err == nil && watchOwn {
			own = watchNode(ctx, li.client, path)
		}
		return path, err
	}, func(ctx context.Context) ([]string, error) {
		sess = li.client.Session()
		return li.SortedChildren(ctx)
	})
	if err != nil {
		own.abandon()
		own = nil
	}
	return path, children, sess, own, err
}

// wait loops until ourPath holds the lock (or, with try, after one look).
// first, if it holds our node, is a listing to decide from before listing,
// made during sess. A hold returns the Session from before the listing that
// decided it: the hold lasts no longer than it. woke is set each time the
// node ahead is seen gone: its watch fired, or it was gone when the watch
// was to be set.
func (li *LockInternals) wait(ctx context.Context, ourPath string, try bool, first []string, sess *framework.Session, woke *time.Time) (bool, *framework.Session, error) {
	_, ourName := framework.SplitPath(ourPath)
	for {
		children := first
		first = nil
		if !slices.Contains(children, ourName) {
			sess = li.client.Session()
			var err error
			if children, err = li.SortedChildren(ctx); err != nil {
				return false, nil, err
			}
		}
		maxLeases, changed := li.limit.get()
		res, err := li.driver.GetsTheLock(children, ourName, maxLeases)
		if err != nil {
			return false, nil, err
		}
		if res.Held {
			if sess.Err() != nil {
				// An error state came while the deciding listing was
				// under way (a retried listing can even be sent after
				// it): the hold would start lost. A listing sent after
				// it decides instead; our node in it proves the
				// session survived.
				continue
			}
			return true, sess, nil
		}
		if try {
			return false, nil, nil
		}
		// A data watch, as Curator sets: it fires when the node goes, and
		// sets no watch if the node is already gone.
		_, _, w, err := li.client.GetW(ctx, framework.JoinPath(li.dir, res.Watch))
		if errors.Is(err, framework.ErrNoNode) {
			*woke = time.Now() // the node ahead went before the watch was set
			continue
		}
		if err != nil {
			return false, nil, err
		}
		if err := li.await(ctx, w, changed); err != nil {
			return false, nil, err
		}
		select {
		case <-w.Done():
			*woke = time.Now()
		default:
		}
	}
}

// await waits for the watch to fire, maxLeases to change, the session to be
// lost (our node went with it), or ctx. go-zookeeper does not wake watches on
// a disconnect, so the connection state is watched too.
func (li *LockInternals) await(ctx context.Context, w framework.Watch, leasesChanged <-chan struct{}) error {
	for {
		state, stateChanged := li.client.StateChanged()
		if state == listener.Lost {
			return nil // look again: the listing shows whether our node survived
		}
		select {
		case <-w.Done():
			return nil
		case <-leasesChanged:
			return nil
		case <-stateChanged:
		case <-ctx.Done():
			return ctx.Err()
		}
	}
}

// SortedChildren returns the lock's children sorted as the driver sorts
// them; an absent lock directory has none.
func (li *LockInternals) SortedChildren(ctx context.Context) ([]string, error) {
	children, _, err := li.client.Children(ctx, li.dir)
	if errors.Is(err, framework.ErrNoNode) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	return driver.SortChildren(children, li.lockName, li.driver.FixForSorting), nil
}

// Participants returns the full paths of the lock's nodes, in queue order.
func (li *LockInternals) Participants(ctx context.Context) ([]string, error) {
	children, err := li.SortedChildren(ctx)
	if err != nil {
		return nil, err
	}
	for i, c := range children {
		children[i] = framework.JoinPath(li.dir, c)
	}
	return children, nil
}

// Release deletes a held node (guaranteed: if the delete fails on the
// connection, the client keeps trying in the background). A node already
// gone means the hold was lost: ErrLockLost. Release knows only the session
// current when it starts; a Hold knows the one its node was made under.
func (li *LockInternals) Release(ctx context.Context, ourPath string) error {
	return releaseNode(ctx, li.client, ourPath, 0)
}

// releaseNode is Release of the node at path, made under session (0: the
// current one). A node the delete does not find was lost, unless the
// connection changed during the delete and the session is the same: then
// an earlier attempt whose reply was lost deleted it. A node of a session
// that has ended was lost whatever the delete finds: the session ended
// before the release, and the node with it (Curator's release ignores a
// missing node altogether).
func releaseNode(ctx context.Context, client *framework.Client, path string, session int64) error {
	_, changed := client.StateChanged()
	if session == 0 {
		session = client.SessionID()
	}
	err := client.Delete(ctx, path, framework.Guaranteed())
	if !errors.Is(err, framework.ErrNoNode) {
		return err
	}
	if now := client.SessionID(); now != session {
		return fmt.Errorf("%w: node %s went with its session %#x, which ended before the release: %w", ErrLockLost, path, session, framework.ErrSessionExpired)
	}
	select {
	case <-changed:
		return nil
	default:
	}
	return fmt.Errorf("%w: node %s was already gone: %w", ErrLockLost, path, err)
}

// deleteNode removes a waiter's node after a cancel or error, within a
// cleanupContext, and leaves the rest to the client's guaranteed delete.
func (li *LockInternals) deleteNode(ctx context.Context, ourPath string) {
	deleteNode(ctx, li.client, ourPath)
}

func deleteNode(ctx context.Context, client *framework.Client, path string) {
	ctx, cancel := cleanupContext(ctx, client)
	defer cancel()
	deleteWithin(ctx, client, path)
}

// deleteWithin is deleteNode within a cleanup context the caller made.
func deleteWithin(cctx context.Context, client *framework.Client, path string) {
	_ = client.Delete(cctx, path, framework.Guaranteed(), framework.Quietly())
}

// cleanupContext is the context of the foreground attempt to delete nodes
// after a cancel or an error, and to give back what a failed acquire took:
// it runs even if ctx is done, for at most cleanupTimeout, and only while
// the connection stays up. Once it is down, the client's guaranteed deletes
// finish the work when it is back, and the caller returns at once, however
// long its retry policy would have waited for the server.
func cleanupContext(ctx context.Context, client *framework.Client) (context.Context, context.CancelFunc) {
	return cleanupContextUntil(ctx, client, time.Now().Add(cleanupTimeout))
}

// cleanupContextUntil is cleanupContext ending at deadline, for cleanups of
// several steps that share one cleanupTimeout.
func cleanupContextUntil(ctx context.Context, client *framework.Client, deadline time.Time) (context.Context, context.CancelFunc) {
	ctx, cancel := context.WithDeadline(context.WithoutCancel(ctx), deadline)
	state, changed := client.StateChanged()
	if !state.IsConnected() {
		cancel()
		return ctx, cancel
	}
	go func() { // ends with ctx, which the caller's cancel ends at the latest
		select {
		case <-changed:
			cancel()
		case <-ctx.Done():
		}
	}()
	return ctx, cancel
}
