package node

import (
	"context"
	"errors"
	"time"

	"github.com/gocurator/curator/framework"
	"github.com/gocurator/curator/listener"
)

// closeTimeout bounds Close's delete of the node while connected; past it,
// the client's guaranteed delete goes on in the background.
const closeTimeout = 10 * time.Second

// maxPause caps the wait between attempts after a failure.
const maxPause = 5 * time.Second

// watcher is the run goroutine's watch on the node.
type watcher struct {
	w     framework.Watch
	armed bool
}

// run keeps the node in place until ctx ends, then deletes it.
func (n *Node) run(ctx context.Context) {
	defer n.finish()
	var (
		watch   watcher
		session int64 // the session the node was put in place under
		dirty   = true
		pause   time.Duration
	)
	for {
		st, changed := n.client.StateChanged()
		var retry *time.Timer
		if (dirty || n.pending()) && st.IsConnected() {
			err := n.sync(ctx, &watch)
			switch {
			case err == nil:
				dirty, pause, session = false, 0, n.client.SessionID()
				n.refuse(nil)
			case ctx.Err() != nil:
				return
			case errors.Is(err, ErrTTLUnsupported), errors.Is(err, framework.ErrClosed):
				n.refuse(err)
				<-ctx.Done()
				return
			default:
				if !isConnectionError(err) {
					n.refuse(err)
				}
				n.client.Logger().Warn("node: keeping the node in place failed; trying again", "path", n.base, "err", err)
				pause = nextPause(pause)
				retry = time.NewTimer(pause)
			}
		}
		var retryC <-chan time.Time
		if retry != nil {
			retryC = retry.C
		}
		var fired <-chan struct{}
		if watch.armed {
			fired = watch.w.Done()
		}
		select {
		case <-ctx.Done():
			return
		case <-retryC:
		case <-n.wake:
		case <-changed:
			s := n.client.State()
			switch {
			case s == listener.Lost:
				if n.opts.mode.IsEphemeral() {
					n.setInPlace(false)
				}
				dirty = true
			case s.IsConnected() && n.client.SessionID() != session:
				if n.opts.mode.IsEphemeral() {
					n.setInPlace(false)
				}
				dirty = true
			}
		case <-fired:
			watch.armed = false
			switch e, _ := watch.w.Event(); {
			case e.Type == framework.EventNodeDeleted:
				n.setInPlace(false)
			case e.Type == framework.EventNotWatching && n.opts.mode.IsEphemeral():
				n.setInPlace(false) // the session ended, and the node with it
			}
			dirty = true
		}
		if retry != nil {
			retry.Stop()
		}
	}
}

// isConnectionError reports whether err is the connection's (to be waited
// out) rather than ZooKeeper's refusal.
func isConnectionError(err error) bool {
	return errors.Is(err, framework.ErrConnectionLoss) || errors.Is(err, framework.ErrSessionExpired) ||
		errors.Is(err, framework.ErrOutcomeUnknown)
}

// finish deletes the node (unless the Node keeps it), stops the listeners'
// goroutine and marks the Node closed.
func (n *Node) finish() {
	n.mu.Lock()
	path := n.path
	n.state = closed
	n.changedLocked()
	n.mu.Unlock()
	if path != "" && !n.keep {
		ctx, cancel := context.WithTimeout(context.Background(), closeTimeout)
		if !n.client.State().IsConnected() {
			cancel() // do not wait for the connection: the guaranteed delete does
		}
		err := n.client.Delete(ctx, path, framework.Guaranteed(), framework.Quietly())
		cancel()
		if err != nil && !errors.Is(err, framework.ErrClosed) {
			n.client.Logger().Info("node: the node will be deleted in the background", "path", path, "err", err)
		}
	}
	n.events.Close()
	close(n.done)
}

// nextPause doubles the wait between failed attempts, from 50 ms to
// maxPause.
func nextPause(d time.Duration) time.Duration {
	if d == 0 {
		return 50 * time.Millisecond
	}
	return min(2*d, maxPause)
}
