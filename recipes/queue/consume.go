package queue

import (
	"bytes"
	"context"
	crand "crypto/rand"
	"errors"
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"time"

	"github.com/gocurator/curator/framework"
	"github.com/gocurator/curator/internal/goroutine"
)

// run is the consumer's goroutine: it lists the queue with a watch,
// delivers the items of the listing in the queue's order, and lists again
// when the queue has changed, or an item another consumer held may have
// come free, until ctx ends.
func (q *core[T]) run(ctx context.Context) {
	defer close(q.done)
	q.mu.Lock()
	q.runner = goroutine.ID() // for a Close from the Consumer
	q.mu.Unlock()
	st := &consuming{foreign: make(map[string]bool)}
	if q.cfg.lockPath != "" {
		freed := make(chan struct{}, 1)
		remove, err := q.cfg.client.AddWatchListener(q.cfg.lockPath, func(ev framework.WatchEvent) {
			if ev.Type == framework.EventNodeDeleted {
				select {
				case freed <- struct{}{}:
				default:
				}
			}
		})
		if err != nil { // the lock path was validated: not expected
			q.log.Error("queue: cannot watch the lock path; the consumer stops", "err", err)
			return
		}
		defer remove()
		st.freed, st.watching = freed, make(map[string]framework.Watch)
	}
	var failures int
	var lastErr string
	for ctx.Err() == nil {
		err := q.pass(ctx, st)
		if err == nil || ctx.Err() != nil {
			failures, lastErr = 0, ""
			continue
		}
		if errors.Is(err, framework.ErrClosed) {
			q.log.Warn("queue: the client is closed; the consumer stops")
			return
		}
		if msg := err.Error(); msg != lastErr { // once per kind of failure
			lastErr = msg
			q.log.Warn("queue: consuming failed; trying again", "err", err)
		}
		failures++
		sleep(ctx, min(50*time.Millisecond<<min(failures, 6), 2*time.Second))
	}
}

// consuming is what the consumer's goroutine keeps from one pass to the
// next.
type consuming struct {
	foreign map[string]bool // foreign nodes in the queue's path, logged once
	// In a lock-safe queue: a signal that a node under the lock path was
	// deleted (from the client's watch listener), and the lock nodes of
	// items other consumers held, watched for their deletion.
	freed    chan struct{}
	watching map[string]framework.Watch
}

// pass lists the queue and delivers the items of the listing that are due,
// then waits until the queue changes, the next item is due, an item
// another consumer held may have come free, or ctx ends.
func (q *core[T]) pass(ctx context.Context, st *consuming) error {
	c := q.cfg.client
	names, _, w, err := c.ChildrenW(ctx, q.cfg.path)
	if errors.Is(err, framework.ErrNoNode) {
		// The queue's node is gone: wait for it to be made again.
		ok, _, ew, err := c.ExistsW(ctx, q.cfg.path)
		if err != nil || ok {
			return err
		}
		q.log.Warn("queue: the queue's node does not exist; waiting for it")
		_, err = ew.Wait(ctx)
		return err
	}
	if err != nil {
		return err
	}
	items := names[:0]
	for _, n := range names {
		if strings.HasPrefix(n, itemPrefix) {
			items = append(items, n)
		} else if !st.foreign[n] && len(st.foreign) < 1000 {
			st.foreign[n] = true
			q.log.Warn("queue: foreign node in the queue's path", "node", n)
		}
	}
	q.cfg.kind.sort(items)
	var next time.Duration = -1 // until the first item not yet due
	walk := newWalk(len(items), q.cfg.kind.spread)
	misses := 0       // in a row
	var held []string // items another consumer had locked
	for done := 0; done < len(items); done++ {
		if ctx.Err() != nil {
			return nil
		}
		if q.cfg.minBeforeReload >= 0 && done > 0 && done >= q.cfg.minBeforeReload && fired(w) {
			return nil // a new item may come first; at least one item per listing, so that a busy queue makes progress
		}
		if misses >= 2 && fired(w) {
			return nil // the listing is going stale: other consumers are taking its items
		}
		name := items[walk.at]
		if d := untilDue(q.cfg.kind.due(name), time.Now().UnixMilli()); d > 0 {
			if next < 0 || d < next {
				next = d
			}
			walk.step(false)
			continue
		}
		got, err := q.take(ctx, name)
		if err != nil {
			return err
		}
		if got == locked {
			held = append(held, name)
		}
		if misses++; got == taken {
			misses = 0
		}
		walk.step(got != taken)
	}
	if freed, err := q.watchHeld(ctx, st, held); freed || err != nil {
		return err // one came free already: list again
	}
	var due <-chan time.Time
	if next >= 0 {
		t := time.NewTimer(next)
		defer t.Stop()
		due = t.C
	}
	select {
	case <-w.Done():
	case <-due:
	case <-st.freed:
	case <-ctx.Done():
	}
	return nil
}

// watchHeld watches the lock nodes of the items that other consumers held
// in this pass: a consumer that fails, closes or dies mid-item deletes its
// lock node (or its session does) and leaves the item in the queue, which
// no change to the queue's children announces. A deletion under the lock
// path wakes the pass (st.freed). It reports true if a lock node is gone
// already. A node still watched from an earlier pass is not watched again.
func (q *core[T]) watchHeld(ctx context.Context, st *consuming, held []string) (bool, error) {
	for name, w := range st.watching {
		if fired(w) || !slices.Contains(held, name) {
			delete(st.watching, name)
		}
	}
	for _, name := range held {
		if _, ok := st.watching[name]; ok {
			continue
		}
		// A data watch, not an exists watch: on a lock node gone already
		// an exists would leave a watch for its creation, which never
		// comes (an item's name is never used again), on the server and in
		// the client until the session ends.
		_, _, w, err := q.cfg.client.GetW(ctx, framework.JoinPath(q.cfg.lockPath, name))
		if errors.Is(err, framework.ErrNoNode) {
			return true, nil
		}
		if err != nil {
			return false, err
		}
		st.watching[name] = w
	}
	return false, nil
}

// walk is the order a pass tries the items of its listing in: each once,
// in order, except that with spread an item found taken by another
// consumer sends the walk on at a random item not yet tried.
type walk struct {
	at     int
	tried  []bool
	left   int
	spread bool
}

func newWalk(n int, spread bool) *walk { return &walk{tried: make([]bool, n), left: n, spread: spread} }

// step marks the current item tried and moves on; missed says another
// consumer had it.
func (w *walk) step(missed bool) {
	w.tried[w.at] = true
	if w.left--; w.left == 0 {
		return
	}
	if missed && w.spread {
		k := rand.IntN(w.left) // the k-th untried item
		for i := range w.tried {
			if !w.tried[i] {
				if k == 0 {
					w.at = i
					return
				}
				k--
			}
		}
	}
	for w.tried[w.at] {
		w.at = (w.at + 1) % len(w.tried)
	}
}

// fired reports whether w has fired.
func fired(w framework.Watch) bool {
	select {
	case <-w.Done():
		return true
	default:
		return false
	}
}

// outcome is what a take made of an item.
type outcome int

const (
	missed outcome = iota // gone: another consumer took it, or it is not to be delivered
	taken                 // delivered, or removed as corrupt
	locked                // another consumer holds its lock (lock-safe): it may come free
)

// take takes one item node: with the lock if the queue is lock-safe. The
// error is one that ends the pass (the connection's, say).
func (q *core[T]) take(ctx context.Context, name string) (outcome, error) {
	if q.cfg.lockPath != "" {
		return q.takeLocked(ctx, name)
	}
	return q.takePlain(ctx, name)
}

// takePlain is Curator's processNormally: read the item, remove it at the
// version read (only one consumer succeeds), and then deliver it. An item
// whose removal cannot be told (its reply was lost, and another consumer
// may have removed it) is not delivered, and logged: at most once.
func (q *core[T]) takePlain(ctx context.Context, name string) (outcome, error) {
	c, item := q.cfg.client, framework.JoinPath(q.cfg.path, name)
	data, stat, err := c.Get(ctx, item)
	switch {
	case errors.Is(err, framework.ErrNoNode):
		return missed, nil
	case unreadable(err):
		q.skip(name, err)
		return missed, nil
	case err != nil:
		return missed, err
	}
	if got, err := q.claim(ctx, name, stat.Version); got != taken || err != nil {
		return got, err
	}
	values, err := q.decode(data)
	if err != nil {
		q.log.Error("queue: corrupt item node removed", "node", name, "err", err)
		return taken, nil
	}
	q.deliver(ctx, name, values, false)
	return taken, nil
}

// unreadable reports whether err is a read's refusal of one item alone:
// the client may not read it (its ACL), or its data is more than the client
// takes. A pass goes on past such an item, as Curator's logs it and goes on;
// ending the pass would hold up every item after it.
func unreadable(err error) bool {
	return errors.Is(err, framework.ErrNoAuth) || errors.Is(err, framework.ErrReplyTooLarge)
}

// skip logs, once per item, an item a pass goes past because it cannot be
// read. The item stays in the queue.
func (q *core[T]) skip(name string, err error) {
	q.mu.Lock()
	first := !q.skipped[name] && len(q.skipped) < maxSkippedLogged
	if first {
		if q.skipped == nil {
			q.skipped = make(map[string]bool)
		}
		q.skipped[name] = true
	}
	q.mu.Unlock()
	if first {
		q.log.Warn("queue: an item this client cannot read is left in the queue", "node", name, "err", err)
	}
}

// maxSkippedLogged bounds the names of unreadable items a queue remembers
// having logged.
const maxSkippedLogged = 1000

// claim removes the item node name, read at version, for a plain take to
// deliver it: taken if it did, missed if another consumer removed it first
// or the removal's outcome is unknown. If ctx has ended (the queue is
// closing, and would hand the item to a Consumer whose context has ended)
// it removes nothing, and the item stays for the next consumer. Once sent,
// the removal is not abandoned with ctx: its answer says whether the item
// is this consumer's to deliver.
func (q *core[T]) claim(ctx context.Context, name string, version int32) (outcome, error) {
	if ctx.Err() != nil {
		return missed, nil
	}
	item := framework.JoinPath(q.cfg.path, name)
	sctx, cancel := q.settleContext(ctx)
	defer cancel()
	// A transaction, so that a removal whose reply was lost reports an
	// unknown outcome rather than another consumer's NoNode.
	_, err := q.cfg.client.Txn(sctx, framework.DeleteOp(item, version))
	var te *framework.TxnError
	switch {
	case errors.As(err, &te):
		return missed, nil // another consumer removed it
	case errors.Is(err, framework.ErrOutcomeUnknown):
		q.log.Error("queue: an item's removal may or may not have been applied; it is not delivered, and may be lost", "node", name, "err", err)
		return missed, nil
	case err != nil:
		return missed, err
	}
	return taken, nil
}

// takeLocked is Curator's processWithLockSafety: create the item's lock
// node (an ephemeral node named after it under the lock path; one that
// exists means another consumer has the item), read the item, deliver it,
// and only then remove it (or requeue it, or leave it), and delete the lock
// node. Two transactions save Curator's separate requests: the lock is
// created only if the item is still there, and the item and its lock are
// deleted together.
func (q *core[T]) takeLocked(ctx context.Context, name string) (outcome, error) {
	c := q.cfg.client
	lock, item := framework.JoinPath(q.cfg.lockPath, name), framework.JoinPath(q.cfg.path, name)
	_, changed := c.StateChanged()
	session, got, err := q.lock(ctx, item, lock, c.SessionID())
	if got != taken || err != nil {
		return got, err
	}
	data, _, err := c.Get(ctx, item)
	if err != nil || ctx.Err() != nil {
		q.unlock(ctx, lock, session)
		switch {
		case errors.Is(err, framework.ErrNoNode):
			return missed, nil // removed under our lock: Remove, or a plain consumer
		case unreadable(err):
			q.skip(name, err)
			return missed, nil
		}
		return missed, err
	}
	values, err := q.decode(data)
	if err != nil {
		q.log.Error("queue: corrupt item node removed", "node", name, "err", err)
		q.settle(ctx, item, lock, session)
		return taken, nil
	}
	cctx, stop := watchLoss(ctx, c, changed, session)
	failed := q.deliver(cctx, name, values, q.cfg.errorMode == Requeue)
	interrupted := cctx.Err() != nil
	stop()
	switch {
	case failed && interrupted:
		// Closing, or the lock may be gone: the item stays where it is,
		// for the next consumer.
		q.log.Info("queue: a consumer failed as its context ended; the item stays in the queue", "node", name)
		q.unlock(ctx, lock, session)
	case failed && q.cfg.errorMode == Requeue:
		q.settle(ctx, item, lock, session, framework.CreateOp(framework.JoinPath(q.cfg.path, requeuePrefix(name)), data, framework.PersistentSequential))
	default:
		q.settle(ctx, item, lock, session)
	}
	return taken, nil
}

// lock creates an item's lock node, if the item is still there: taken if
// it did, missed if the item is gone, locked if another consumer has it.
// session is the client's session before the create; owner, once taken, is
// the session that owns the lock node: a create sent while the client
// reconnected after session was lost is made under the next session. A
// create whose outcome lock cannot tell leaves its token to the item's next
// take (lockTokenFor), which finds the node its own if it was made.
func (q *core[T]) lock(ctx context.Context, item, lock string, session int64) (owner int64, got outcome, err error) {
	token, retaking := q.lockTokenFor(lock)
	owner, got, err = q.lockWith(ctx, item, lock, token, retaking, session)
	q.settleToken(lock, token, err == nil)
	return owner, got, err
}

// lockWith is lock with the lock node's token; retaking says a create of
// unknown outcome may have made the node with it.
func (q *core[T]) lockWith(ctx context.Context, item, lock string, token []byte, retaking bool, session int64) (owner int64, got outcome, err error) {
	c := q.cfg.client
	// Not ctx: a create in flight when ctx ended could leave the node.
	sctx, cancel := q.settleContext(ctx)
	defer cancel()
	_, err = c.Txn(sctx, framework.CheckOp(item, -1), framework.CreateOp(lock, token, framework.Ephemeral))
	var te *framework.TxnError
	if errors.As(err, &te) && te.Index == 1 && errors.Is(err, framework.ErrNoNode) {
		// The lock path is gone (deleted by hand?): make it again, as
		// Start did, and try once more.
		q.log.Warn("queue: the lock path does not exist; creating it", "lock path", q.cfg.lockPath)
		if _, err := c.Create(sctx, q.cfg.lockPath, nil, framework.WithContainerParents()); err != nil && !errors.Is(err, framework.ErrNodeExists) {
			return 0, missed, err
		}
		_, err = c.Txn(sctx, framework.CheckOp(item, -1), framework.CreateOp(lock, token, framework.Ephemeral))
	}
	switch {
	case err == nil && c.SessionID() == session:
		return session, taken, nil
	case err == nil:
		// The session changed around the create: ask the node whose it
		// is, or settle and unlock would leave it behind as a lost
		// session's (which went with it) while the next one keeps it.
	case errors.As(err, &te) && te.Index == 1 && errors.Is(err, framework.ErrNodeExists) && !retaking:
		return 0, locked, nil
	case errors.As(err, &te) && te.Index == 1 && errors.Is(err, framework.ErrNodeExists):
		// Perhaps the node of our earlier create: see whose it is.
	case errors.As(err, &te):
		if te.Index == 0 && unreadable(err) {
			_, name := framework.SplitPath(item)
			q.skip(name, err)
		}
		return 0, missed, nil // the item is gone, or not this client's to read
	case !errors.Is(err, framework.ErrOutcomeUnknown):
		return 0, missed, err
	}
	// A lost reply, or a new session: the lock node is ours if it holds our
	// token and the client's current session owns it (a lost one's went
	// with it); another's, or gone (for the pass to see), if not.
	switch owner, err := q.ownsLock(sctx, lock, token); {
	case err != nil:
		return 0, missed, err
	case owner != 0:
		return owner, taken, nil
	}
	return 0, locked, nil
}

// lockToken returns the data of a new lock node: the client's default data
// (what an operator or a tool reads to learn who holds the item, as
// Curator's lock node says), a space, and a random token, new at each take,
// so that a consumer tells the lock node it made from one that another
// consumer made. The session that owns the node cannot tell them apart:
// every queue on one client, and an IDQueue's Remove beside its own
// consumer, share it. (A set of the lock names held, per client, would
// need state shared between a client's queues; the token needs nothing.)
// Curator never reads a lock node's data (DistributedQueue's
// processWithLockSafety and DistributedIdQueue's remove, 5.4): Java
// consumers are not affected.
func lockToken(c *framework.Client) []byte {
	return append(append(c.DefaultData(), ' '), crand.Text()...)
}

// ownsLock returns the session that owns the lock node if the node holds
// token as its data and is owned by the client's current session: a node
// this take made (after a lost reply, or under the session that followed a
// lost one), and not another consumer's. It returns 0 otherwise.
func (q *core[T]) ownsLock(ctx context.Context, lock string, token []byte) (int64, error) {
	c := q.cfg.client
	data, stat, err := c.Get(ctx, lock)
	switch {
	case errors.Is(err, framework.ErrNoNode):
		return 0, nil
	case err != nil:
		return 0, err
	}
	if !bytes.Equal(data, token) || stat.EphemeralOwner != c.SessionID() {
		return 0, nil
	}
	return stat.EphemeralOwner, nil
}

// settle removes a taken item and its lock node in one transaction, with
// more ops if given (a requeued copy). If the lock's session is gone, the
// lock with it, it removes the item alone; if the transaction fails, it
// deletes what is left one by one (an item already gone is fine).
func (q *core[T]) settle(ctx context.Context, item, lock string, session int64, more ...framework.Op) {
	c := q.cfg.client
	sctx, cancel := q.settleContext(ctx)
	defer cancel()
	ops := append([]framework.Op{framework.DeleteOp(item, -1)}, more...)
	if c.SessionID() == session {
		ops = append(ops, framework.DeleteOp(lock, -1))
	}
	_, err := c.Txn(sctx, ops...)
	if err == nil {
		return
	}
	var te *framework.TxnError
	if len(more) > 0 && !(errors.As(err, &te) && te.Index == 0) {
		// Requeue as Curator does, without the lock in the transaction.
		_, err = c.Txn(sctx, append([]framework.Op{framework.DeleteOp(item, -1)}, more...)...)
	}
	if err != nil && !(errors.As(err, &te) && te.Index == 0) {
		if len(more) > 0 {
			q.log.Warn("queue: requeueing an item failed; it stays in the queue", "node", item, "err", err)
		} else if err := c.Delete(sctx, item, framework.Quietly()); err != nil {
			q.log.Warn("queue: removing a consumed item failed; it will be delivered again", "node", item, "err", err)
		}
	}
	q.unlock(ctx, lock, session)
}

// unlock deletes an item's lock node, unless the session that made it is
// gone (and the node with it: a node at that path now is another
// consumer's). A delete that fails on the connection is retried in the
// background while the client is open.
func (q *core[T]) unlock(ctx context.Context, lock string, session int64) {
	c := q.cfg.client
	if c.SessionID() != session {
		return
	}
	sctx, cancel := q.settleContext(ctx)
	defer cancel()
	if err := c.Delete(sctx, lock, framework.Quietly(), framework.Guaranteed()); err != nil {
		q.log.Warn("queue: deleting an item's lock node failed; the client keeps trying", "node", lock, "err", err)
	}
}

// decode returns the items a node's data holds.
func (q *core[T]) decode(data []byte) ([]T, error) {
	raw, err := decodeItems(data)
	if err != nil {
		return nil, err
	}
	values := make([]T, len(raw))
	for i, b := range raw {
		v, err := q.cfg.ser.Deserialize(b)
		if err != nil {
			return nil, fmt.Errorf("%w: item %d: %w", errCorrupt, i, err)
		}
		values[i] = v
	}
	return values, nil
}

// deliver hands a node's items to the Consumer in order, and reports
// whether one failed. With stopAtFailure it stops at the first failure
// (the node is requeued whole, as Curator does).
func (q *core[T]) deliver(ctx context.Context, name string, values []T, stopAtFailure bool) (failed bool) {
	for i, v := range values {
		if err := q.cfg.consumer(ctx, v); err != nil {
			failed = true
			q.log.Warn("queue: the consumer failed", "node", name, "item", i, "err", err)
			if stopAtFailure {
				return true
			}
		}
	}
	return failed
}

// sleep waits d or until ctx ends.
func sleep(ctx context.Context, d time.Duration) {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
	case <-ctx.Done():
	}
}
