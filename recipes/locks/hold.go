package locks

import (
	"bytes"
	"cmp"
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/gocurator/curator/framework"
)

// RevokeMessage is the data Curator writes into a holder's node to ask it to
// release (Revoker.attemptRevoke).
var RevokeMessage = []byte("__REVOKE__")

// Hold is one participant's hold of a lock: what Acquire returns. Release it
// exactly once per successful Acquire.
//
// A hold can be lost without being released: its node deleted, its session
// lost, or (under the client's Standard error policy) its connection
// suspended. Lost returns a channel closed at that moment; Err then says why.
type Hold struct {
	client    *framework.Client
	path      string
	session   int64  // the session the hold was decided on, which owns the node
	onRelease func() // tells the lock the hold is gone; may be nil
	revoke    func() // called when someone asks the holder to release; may be nil

	sess    *framework.Session // the client's Session before the listing that decided the hold: the hold ends with it
	closing <-chan struct{}    // the client's Done: closed once its Close begins
	report  report             // tells the client's hooks of its release or loss
	took    time.Time          // when it was decided
	own     *nodeWatch         // the node's watch from its creation (AcquireHold), or nil; the monitor's first
	woke    time.Time          // when the acquire's wait last woke to its watch firing

	mu       sync.Mutex
	count    int           // acquisitions not yet released (re-entries)
	lost     chan struct{} // made lazily, by Lost or by a revocable lock
	lostErr  error
	stop     context.CancelFunc // stops the monitor
	stopped  chan struct{}      // closed when the monitor has returned
	revoking bool               // the monitor is in the revocation callback
	released bool
}

// newHold returns the hold of the node at path; sess is the client's
// Session from just before the listing that found the node holding. An
// error state since then, however short, has ended sess, and loses the hold
// (no request, no callback). The ZooKeeper session is read after that
// listing: had it changed since, a Lost ended sess, and the hold starts
// lost.
func newHold(client *framework.Client, path string, onRelease, revoke func(), sess *framework.Session, rep report) *Hold {
	h := &Hold{client: client, path: path, session: client.SessionID(), onRelease: onRelease, revoke: revoke, count: 1,
		sess: sess, closing: client.Done(), report: rep, took: time.Now()}
	if revoke != nil {
		h.Lost() // the monitor also watches for revocation requests
	}
	return h
}

// Path returns the hold's node.
func (h *Hold) Path() string { return h.path }

// Woken returns when the acquire that made the hold last woke because the
// node it waited on went (or changed), or the zero time if the acquire
// found the lock free without waiting: the moment the participant saw the
// holder before it let go.
func (h *Hold) Woken() time.Time { return h.woke }

// Lost returns a channel that is closed if the hold is lost before it is
// released. The connection is watched from the start; the first call to Lost
// also watches the hold's node, which costs one request and one goroutine
// (Release stops it); a hold from LockInternals.AcquireHold, whose node is
// watched from its creation, sends no request for it.
func (h *Hold) Lost() <-chan struct{} {
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.lost == nil {
		err := h.lossLocked() // before the channel exists: nothing to close yet
		h.lost = make(chan struct{})
		if err != nil {
			close(h.lost)
			return h.lost
		}
		if h.released {
			return h.lost // never closed: a released hold is not lost
		}
		var ctx context.Context
		ctx, h.stop = context.WithCancel(context.Background())
		h.stopped = make(chan struct{})
		go h.monitor(ctx, h.stopped)
	}
	return h.lost
}

// Err returns nil while the hold is held or after a clean release, and an
// error wrapping ErrLockLost once it was lost (before Release, or found by
// it).
func (h *Hold) Err() error {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.lossLocked()
}

// lossLocked returns why the hold was lost, or nil. The connection's error
// states and the client's Close are asked for here, so that they are seen at
// once whether or not anything watches for them (the node's watch exists only
// once Lost was called). A hold whose client has begun to close is lost: its
// session, and so its node, is ending. Callers hold h.mu.
func (h *Hold) lossLocked() error {
	if h.lostErr == nil && !h.released {
		select {
		case <-h.closing:
			h.setLostLocked(fmt.Errorf("%w: %w", ErrLockLost, framework.ErrClosed))
			return h.lostErr
		default:
		}
		if err := h.sess.Err(); err != nil {
			h.setLostLocked(sessionLoss(err, ""))
		}
	}
	return h.lostErr
}

// Fence returns a transaction op that fails unless this hold's node still
// exists: add it to a framework.Client.Txn so that a write commits only while
// the hold is current.
func (h *Hold) Fence() framework.Op { return framework.CheckOp(h.path, -1) }

// Token returns the hold's fencing token: the zxid that created its node.
// It increases with every new hold of the lock, so a protected resource can
// refuse a token lower than one it has seen. It costs one request.
func (h *Hold) Token(ctx context.Context) (int64, error) {
	ok, stat, err := h.client.Exists(ctx, h.path)
	if err != nil {
		return 0, err
	}
	if !ok {
		return 0, fmt.Errorf("%w: node %s is gone", ErrLockLost, h.path)
	}
	return stat.Czxid, nil
}

// Release gives up one acquisition; the last one deletes the node. Releasing
// more often than acquiring returns ErrNotOwner.
//
// The last Release returns nil only if the hold was held until its node was
// deleted. Otherwise it returns an error wrapping ErrLockLost, and Err and
// Lost say so from then on: if the hold was lost before (see Lost), if the
// node was already gone (deleted by someone else, or with a session that
// ended before the release), or if the connection entered an error state
// (see framework.Client.ErrorPolicy) before the delete was answered.
//
// Release does not wait for a connection that is down: the client's
// guaranteed delete removes the node once it is back (or the node goes with
// its session), and Release returns at once: ErrLockLost if the hold was
// lost, else (under the Session error policy, during a flap) an error
// wrapping framework.ErrConnectionLoss. So `defer h.Release(ctx)` with any
// ctx returns promptly. A delete that fails otherwise (ctx ended, say)
// returns its error, and the node is deleted in the background too.
func (h *Hold) Release(ctx context.Context) error {
	h.mu.Lock()
	if h.released {
		h.mu.Unlock()
		return ErrNotOwner
	}
	h.count--
	if h.count > 0 {
		h.mu.Unlock()
		return nil
	}
	lost := h.lossLocked()
	h.released = true // from here on only Release itself marks the hold lost
	stop, stopped := h.stop, h.stopped
	if h.revoking {
		// Called from the revocation callback (or beside it), which runs on
		// the monitor: waiting for the monitor would wait for ourselves. It
		// returns once the callback does.
		stopped = nil
	}
	h.mu.Unlock()
	if stop != nil {
		stop()
		if stopped != nil {
			<-stopped
		}
	}
	h.own.abandon() // if the monitor did not take it
	if h.onRelease != nil {
		h.onRelease()
	}
	// The delete runs while the connection is sound: it ends at the first
	// error state (the hold may then have ended unseen), and is not tried
	// while the connection is down. The guaranteed delete does the rest.
	sess := h.sess // not lost: the hold's own Session lasts, and its end from now on counts
	if lost != nil {
		sess = h.client.Session()
	}
	rctx, cancel := sess.Context(ctx)
	if !h.client.State().IsConnected() {
		cancel()
	}
	err := releaseNode(rctx, h.client, h.path, h.session)
	cancel()
	lost, err = releaseOutcome(lost, err, sess.Err(), rctx.Err() != nil && ctx.Err() == nil, h.path)
	if lost == nil {
		h.report.release(h.took, err)
		return err
	}
	h.mu.Lock()
	if h.lostErr == nil {
		h.setLostLocked(lost)
	}
	h.mu.Unlock()
	if err == nil {
		return lost
	}
	return errors.Join(lost, err)
}

// releaseOutcome says how a release ended: from lost (the hold's loss known
// before it, or nil), err (what the delete returned), ended (why the
// release's Session ended, or nil) and cut (the delete was cut short by the
// connection, not by the caller's context), it returns the loss to report
// and the delete's error still worth reporting. A delete cut short is no
// failure of the caller's: the guaranteed delete goes on in the background.
func releaseOutcome(lost, err, ended error, cut bool, path string) (error, error) {
	switch {
	case errors.Is(err, ErrLockLost): // the node was gone
		return cmp.Or(lost, err), nil
	case err == nil:
		return lost, nil
	case lost == nil && ended != nil:
		lost = sessionLoss(ended, " during the release")
	case lost == nil && cut:
		return nil, fmt.Errorf("%w: the connection is down: the client deletes %s once it is back", framework.ErrConnectionLoss, path)
	}
	if cut {
		err = nil
	}
	return lost, err
}

// isReleased reports whether the last Release has begun.
func (h *Hold) isReleased() bool {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.released
}

// reenter counts one more acquisition. It reports false if the last
// Release has begun (the owner must acquire afresh), and the loss if the hold
// was lost: a lost hold is never handed out again.
func (h *Hold) reenter() (bool, error) {
	h.mu.Lock()
	defer h.mu.Unlock()
	switch {
	case h.released:
		return false, nil
	case h.lossLocked() != nil:
		return true, h.lostErr
	}
	h.count++
	return true, nil
}

// isCurrent reports whether the hold is neither released nor lost.
func (h *Hold) isCurrent() bool {
	h.mu.Lock()
	defer h.mu.Unlock()
	return !h.released && h.lossLocked() == nil
}

// beginRevoke marks the monitor as running the revocation callback, unless
// the last Release has begun: then the callback must not run, and Release
// may be waiting for the monitor to return.
func (h *Hold) beginRevoke() bool {
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.released {
		return false
	}
	h.revoking = true
	return true
}

// monitor watches the hold's node until the hold is lost or ctx (cancelled
// by Release) ends; revocation requests arrive on the same watch. It runs
// under the hold's Session, which ends at the first error state, during a
// GetW too, and then at Close.
func (h *Hold) monitor(ctx context.Context, stopped chan struct{}) {
	defer close(stopped)
	sound, cancel := h.sess.Context(ctx)
	defer cancel()
	for own := h.own; ; own = nil {
		var (
			data []byte
			stat *framework.Stat
			w    framework.Watch
			err  error
		)
		if own = ownWatch(sound, own); own != nil {
			// The node's watch from its creation: no request. A read that
			// found no node set no watch.
			stat, w = own.stat, own.watch
			if !own.exists {
				err = framework.ErrNoNode
			}
		} else {
			data, stat, w, err = h.client.GetW(sound, h.path)
		}
		switch {
		case ctx.Err() != nil:
			return
		case sound.Err() != nil:
			h.noteLoss()
			return
		case errors.Is(err, framework.ErrNoNode):
			h.markLost(fmt.Errorf("%w: node %s was deleted", ErrLockLost, h.path))
			return
		case errors.Is(err, framework.ErrClosed):
			h.markLost(fmt.Errorf("%w: %w", ErrLockLost, err))
			return
		case err != nil: // the retry policy gave up for now; look again shortly
			select {
			case <-time.After(100 * time.Millisecond):
				continue
			case <-sound.Done():
				continue
			}
		case stat.EphemeralOwner != 0 && stat.EphemeralOwner != h.session:
			// Not the node the hold was decided on: a node of this name
			// made by another session (Curator's CURATOR-696 reused a
			// stale one). The watch stays set until it fires.
			h.markLost(fmt.Errorf("%w: node %s belongs to session %#x, not the hold's %#x", ErrLockLost, h.path, stat.EphemeralOwner, h.session))
			return
		}
		if h.revoke != nil && bytes.Equal(data, RevokeMessage) {
			if !h.beginRevoke() {
				return
			}
			h.revoke()
			h.endRevoke()
		}
		select {
		case <-w.Done():
			if ev, _ := w.Event(); ev.Type == framework.EventNotWatching { // the session expired or the client closed
				h.markLost(fmt.Errorf("%w: %w", ErrLockLost, ev.Err))
				return
			}
		case <-h.closing: // as soon as Close begins, not when the watch ends later in it
			h.noteLoss()
			return
		case <-sound.Done():
			if ctx.Err() == nil {
				h.noteLoss()
			}
			return
		}
	}
}

// ownWatch returns own once its exists has been answered with a watch
// set, or nil (nil own, an exists that failed, or sound ended first).
func ownWatch(sound context.Context, own *nodeWatch) *nodeWatch {
	if own == nil {
		return nil
	}
	select {
	case <-own.done:
	case <-sound.Done():
		return nil
	}
	if own.err != nil {
		return nil
	}
	return own
}

// noteLoss records a loss that lossLocked can see: the client's Close, or
// the end of the hold's Session.
func (h *Hold) noteLoss() {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.lossLocked()
}

func (h *Hold) endRevoke() {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.revoking = false
}

func (h *Hold) markLost(err error) {
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.lostErr == nil && !h.released {
		h.setLostLocked(err)
	}
}

// setLostLocked records the loss and closes Lost's channel. Callers hold
// h.mu and have checked that the hold is neither lost nor released.
func (h *Hold) setLostLocked(err error) {
	h.lostErr = err
	if h.lost != nil {
		close(h.lost)
	}
	h.report.loss(h.took, err)
}

// sessionLoss is the loss of a hold to the end of its Session; err, the
// Session's, says how (errors.Is tells framework.ErrSessionExpired from
// framework.ErrConnectionLoss).
func sessionLoss(err error, when string) error {
	return fmt.Errorf("%w%s: %w", ErrLockLost, when, err)
}
