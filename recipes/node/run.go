package node

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/gocurator/curator/framework"
	"github.com/gocurator/curator/internal/zkerr"
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
		var fired <-chan framework.Event
		if watch.armed {
			fired = watch.w.C()
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
		case ev := <-fired:
			watch.armed = false
			switch e := watch.w.Event(ev); {
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

// sync puts the node in place with the current data and a watch on it.
func (n *Node) sync(ctx context.Context, watch *watcher) error {
	for range 10 { // each round is a race lost to another client; give up for a pause after a few
		n.mu.Lock()
		inPlace, path := n.inPlace, n.path
		n.mu.Unlock()
		if !inPlace {
			done, err := n.create(ctx, watch)
			if err != nil || !done {
				if err != nil {
					return err
				}
				continue
			}
		}
		if !watch.armed {
			ok, _, w, err := n.client.ExistsW(ctx, path)
			if err != nil {
				return err
			}
			if !ok {
				n.setInPlace(false)
				continue
			}
			watch.w, watch.armed = w, true
		}
		if n.pending() {
			data, gen := n.snapshot()
			if _, err := n.client.Set(ctx, path, data, -1); err != nil {
				if errors.Is(err, framework.ErrNoNode) {
					n.setInPlace(false)
					continue
				}
				return err
			}
			n.setWritten(gen)
		}
		return nil
	}
	return fmt.Errorf("node %s: the node went again each time it was made", n.base)
}

// create makes the node, or takes over the one already there (Curator
// adopts it and writes its data to it). It reports false when the node
// went again before it could be watched.
func (n *Node) create(ctx context.Context, watch *watcher) (bool, error) {
	n.mu.Lock()
	path, data, gen := n.path, n.data, n.gen
	n.mu.Unlock()
	mode, opts := n.opts.mode, []framework.CreateOption{}
	if path == "" { // the first create: the server and the protection name it
		path = n.base
		if n.opts.protected {
			opts = append(opts, framework.WithProtection())
		}
	} else {
		mode = fixed(mode) // the name is already unique: make it again as it is
	}
	opts = append(opts, framework.WithMode(mode))
	if n.opts.ttl > 0 {
		opts = append(opts, framework.WithTTL(n.opts.ttl))
	}
	if !n.opts.noParents {
		opts = append(opts, framework.WithContainerParents())
	}
	if data == nil {
		data = []byte{}
	}
	made, err := n.client.Create(ctx, path, data, opts...)
	switch {
	case err == nil:
		n.setPath(made)
		ok, _, w, err := n.client.ExistsW(ctx, made)
		if err != nil {
			n.setInPlace(true)
			n.setWritten(gen)
			return true, nil // in place; the next round sets the watch
		}
		if !ok {
			return false, nil
		}
		watch.w, watch.armed = w, true
		n.setWritten(gen)
		n.setInPlace(true)
		return true, nil
	case errors.Is(err, framework.ErrNodeExists):
		return n.adopt(ctx, path, data, gen, watch)
	case zkerr.Is(err, zkerr.Unimplemented) && n.opts.ttl > 0:
		return false, fmt.Errorf("%w: %w", ErrTTLUnsupported, err)
	}
	return false, err
}

// adopt takes over the node already at path: it watches it and writes the
// Node's data to it if it holds other data.
func (n *Node) adopt(ctx context.Context, path string, data []byte, gen uint64, watch *watcher) (bool, error) {
	got, stat, w, err := n.client.GetW(ctx, path)
	if errors.Is(err, framework.ErrNoNode) {
		return false, nil
	}
	if err != nil {
		return false, err
	}
	if (stat.EphemeralOwner != 0) != n.opts.mode.IsEphemeral() {
		n.client.Logger().Warn("node: the node found in place is not of the mode asked for; using it", "path", path, "mode", n.opts.mode)
	} else if stat.EphemeralOwner != 0 && stat.EphemeralOwner != n.client.SessionID() {
		n.client.Logger().Warn("node: the node found in place belongs to another session; using it", "path", path,
			"owner", fmt.Sprintf("%#x", stat.EphemeralOwner))
	}
	n.setPath(path)
	watch.w, watch.armed = w, true
	if !bytes.Equal(got, data) {
		if _, err := n.client.Set(ctx, path, data, -1); err != nil {
			if errors.Is(err, framework.ErrNoNode) {
				return false, nil
			}
			return false, err
		}
	}
	n.setWritten(gen)
	n.setInPlace(true)
	return true, nil
}

// fixed returns the mode that makes a sequential node's existing name
// again, as Curator's getCreateMode does for a node whose path is set.
func fixed(m framework.CreateMode) framework.CreateMode {
	switch m {
	case framework.EphemeralSequential:
		return framework.Ephemeral
	case framework.PersistentSequential:
		return framework.Persistent
	case framework.PersistentSequentialWithTTL:
		return framework.PersistentWithTTL
	}
	return m
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
	n.events.stop()
	close(n.done)
}

// pending reports whether the node may not hold the latest data.
func (n *Node) pending() bool {
	n.mu.Lock()
	defer n.mu.Unlock()
	return n.written < n.gen
}

// snapshot returns the data and its generation.
func (n *Node) snapshot() ([]byte, uint64) {
	n.mu.Lock()
	defer n.mu.Unlock()
	return n.data, n.gen
}

func (n *Node) setPath(p string) {
	n.mu.Lock()
	n.path = p
	n.mu.Unlock()
}

func (n *Node) setWritten(gen uint64) {
	n.mu.Lock()
	if gen > n.written {
		n.written = gen
		n.changedLocked()
	}
	n.mu.Unlock()
}

// setInPlace records whether the node is there and tells the listeners
// when that changes.
func (n *Node) setInPlace(in bool) {
	n.mu.Lock()
	defer n.mu.Unlock()
	if n.inPlace == in {
		return
	}
	n.inPlace = in
	if in {
		select {
		case <-n.first:
		default:
			close(n.first)
		}
		n.events.post(Event{Type: Created, Path: n.path})
	} else {
		n.events.post(Event{Type: Lost, Path: n.path})
	}
	n.changedLocked()
}

// refuse records why the latest attempt failed (nil: it succeeded).
func (n *Node) refuse(err error) {
	n.mu.Lock()
	defer n.mu.Unlock()
	if err == nil && n.refusal == nil {
		return
	}
	n.refusal = err
	if err != nil {
		n.refusals++
	}
	n.changedLocked()
}

// nextPause doubles the wait between failed attempts, from 50 ms to
// maxPause.
func nextPause(d time.Duration) time.Duration {
	if d == 0 {
		return 50 * time.Millisecond
	}
	return min(2*d, maxPause)
}
