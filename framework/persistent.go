package framework

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
	"time"

	"github.com/gocurator/curator/internal/zkconn"
	"github.com/gocurator/curator/internal/zkerr"
)

// AddWatchMode is the kind of a persistent watch, as ZooKeeper's
// AddWatchMode.
type AddWatchMode uint8

// The persistent watch modes.
const (
	// WatchPersistent watches one node: its create, data changes and delete,
	// and changes to its list of children.
	WatchPersistent AddWatchMode = iota + 1
	// WatchPersistentRecursive watches a node and every node under it: their
	// creates, data changes and deletes (no children changes).
	WatchPersistentRecursive
)

// String returns the mode's name: "persistent" or "persistent recursive".
func (m AddWatchMode) String() string {
	switch m {
	case WatchPersistent:
		return "persistent"
	case WatchPersistentRecursive:
		return "persistent recursive"
	}
	return fmt.Sprintf("AddWatchMode(%d)", uint8(m))
}

// ErrWatchRemoved is the error of PersistentWatch.Set after Remove.
var ErrWatchRemoved = errors.New("persistent watch removed")

// PersistentWatch is one hold on a persistent watch that AddWatch set.
type PersistentWatch struct {
	c    *Client
	path string // as the caller named it
	full string // the server's
	mode AddWatchMode
	once sync.Once
	gone bool // Remove was called; guarded by the hold's mutex
}

// AddWatch sets a persistent watch on path, as ZooKeeper's addWatch (3.6
// and later) and Curator's watchers().add() do: unlike a one-shot watch it
// stays after it fires. Its notifications go to the watch listeners
// (AddWatchListener) that cover the node that changed: EventNodeCreated,
// EventNodeDeleted and EventNodeDataChanged for that node, and, with
// WatchPersistent only, EventNodeChildrenChanged for path. The node need
// not exist.
//
// The server holds one such watch per path, mode and connection; the
// client counts the PersistentWatch values that hold it, and takes it off
// when the last is removed (Remove), as ZooKeeper's Java client does with
// its watchers.
//
// The watch lasts as long as the connection it was set on. go-zookeeper
// does not set persistent watches again when it reconnects, and the server
// does not replay what changed meanwhile: after a reconnect (Reconnected,
// or a new session) call Set, then read afresh whatever it watches, as
// Curator's PersistentWatcher and CuratorCache do.
//
// A server before 3.9 holds one watch per path and connection among its
// data watches, and one among its children watches, and sets both to the
// mode of each addWatch. There the two modes on one path cannot both be
// whole: the client sets the recursive one last, so that it tells all it
// tells alone, and the other's children changes go untold while both are
// held. The client guards persistent watches against a one-shot watch set
// later on path through it, which would replace them (see
// EventWatchReset), and one-shot watches on path against the persistent
// ones' addWatch and removeWatches.
func (c *Client) AddWatch(ctx context.Context, path string, mode AddWatchMode) (*PersistentWatch, error) {
	if mode != WatchPersistent && mode != WatchPersistentRecursive {
		return nil, opErr("addWatch", path, fmt.Errorf("%w: watch mode %v", ErrInvalidArg, mode))
	}
	if err := ValidatePath(path, false); err != nil {
		return nil, opErr("addWatch", path, err)
	}
	w := &PersistentWatch{c: c, path: path, full: c.cfg.namespace.toServer(path), mode: mode}
	var err error
	c.holds.with(w.full, func(h *hold) {
		switch err = c.setWatch(ctx, path, h, mode); {
		case err == nil:
			h.n[mode]++
		case ctx.Err() != nil && !errors.Is(err, zkconn.ErrNotSent):
			c.unwatchAbandoned(ctx, path, h, mode)
		}
	})
	if err != nil {
		return nil, err
	}
	return w, nil
}

// Set sets the watch again on the connection in use: after a reconnect,
// before reading afresh what it watches. It fails with ErrWatchRemoved
// after Remove.
func (w *PersistentWatch) Set(ctx context.Context) error {
	err := opErr("addWatch", w.path, ErrWatchRemoved)
	w.c.holds.with(w.full, func(h *hold) {
		if !w.gone {
			err = w.c.setWatch(ctx, w.path, h, w.mode)
		}
	})
	return err
}

// Remove gives up this hold on the watch; the last hold's Remove takes the
// watch off the connection, as ZooKeeper's removeWatches does (while the
// client is not connected it sends nothing: the watch went with the
// connection, and a watch the connection no longer holds, after a
// reconnect, is already off). If that request fails, the watch stays on
// the connection until the connection ends. A second call does nothing.
//
// A server before 3.9 keeps a one-shot watch set on path through this
// client in the same entry as the persistent one. Where one may wait
// there, Remove leaves the entry as a one-shot watch, which fires once at
// the next change, for that watch's caller, and is gone.
func (w *PersistentWatch) Remove(ctx context.Context) error {
	var err error
	w.once.Do(func() {
		w.c.holds.with(w.full, func(h *hold) {
			w.gone = true
			if h.n[w.mode]--; h.n[w.mode] > 0 || !w.c.State().IsConnected() {
				return // others hold it; or the connection, and the watch with it, is gone
			}
			err = w.c.removeWatch(ctx, w.path, h, w.mode)
		})
	})
	return err
}

// unwatchAbandoned takes off a watch whose addWatch went out and whose
// caller stopped waiting (ctx ended): the server may hold it, and no hold
// counts it. It runs under the watch's hold, whatever ctx says, for at most
// abandonLimit; a watch it fails to take off goes with the connection.
func (c *Client) unwatchAbandoned(ctx context.Context, path string, h *hold, mode AddWatchMode) {
	if h.n[mode] > 0 {
		return // held by others: it stays
	}
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), abandonLimit)
	defer cancel()
	if err := c.removeWatch(ctx, path, h, mode); err != nil {
		c.log.Debug("taking off a persistent watch whose AddWatch was abandoned failed; it goes with the connection", "path", path, "err", err)
	}
}

// abandonLimit bounds the requests made for a caller that may have left:
// unwatchAbandoned's, and a reset's (resetAfterOneShot).
const abandonLimit = 5 * time.Second

// removeWatch sends removeWatches for path's persistent watch of mode, the
// hold h of path's watches held; a connection that holds none (the one it
// was set on ended) is no error.
func (c *Client) removeWatch(ctx context.Context, path string, h *hold, mode AddWatchMode) error {
	keep := h.n[other(mode)] > 0
	_, err := singleRequest(ctx, c, "removeWatches", path, func(ctx context.Context, conn conn, full string) (struct{}, error) {
		return struct{}{}, conn.RemoveWatch(ctx, full, mode == WatchPersistentRecursive, keep)
	})
	if errors.Is(err, zkerr.NoWatcher) {
		return nil
	}
	return err
}

// other is the other mode.
func other(mode AddWatchMode) AddWatchMode {
	if mode == WatchPersistent {
		return WatchPersistentRecursive
	}
	return WatchPersistent
}

// setWatch sends addWatch of mode for path, the hold h of path's watches
// held; beside a recursive watch held on path, a watch that is not
// recursive is followed by the recursive one's addWatch again. A server
// before 3.9 keeps one mode per path among its data watches, the last set:
// set last, the recursive one tells there all that either tells (the
// other's children changes are among the children watches).
func (c *Client) setWatch(ctx context.Context, path string, h *hold, mode AddWatchMode) error {
	if err := c.addWatch(ctx, path, mode); err != nil {
		return err
	}
	if mode == WatchPersistent && h.n[WatchPersistentRecursive] > 0 {
		return c.addWatch(ctx, path, WatchPersistentRecursive)
	}
	return nil
}

// addWatch sends addWatch for path.
func (c *Client) addWatch(ctx context.Context, path string, mode AddWatchMode) error {
	_, err := singleRequest(ctx, c, "addWatch", path, func(ctx context.Context, conn conn, full string) (struct{}, error) {
		return struct{}{}, conn.AddWatch(ctx, full, mode == WatchPersistentRecursive)
	})
	return err
}

// watchHolds counts the holds on the persistent watches of each path. A
// hold's mutex orders the requests for its path's watches: an addWatch and
// the last hold's removeWatches never cross.
type watchHolds struct {
	mu   sync.Mutex
	m    map[string]*hold // by server path
	live atomic.Int32     // len(m), read without mu: a one-shot watch's check that no persistent one is held
}

type hold struct {
	mu    sync.Mutex                        // held across the watches' requests
	n     [WatchPersistentRecursive + 1]int // PersistentWatch values not removed, by mode; guarded by mu
	users int                               // callers inside with; guarded by watchHolds.mu
}

// with runs fn holding path's hold's mutex, the hold made if need be, and
// forgets the hold afterwards once nothing holds or uses it.
func (hs *watchHolds) with(path string, fn func(*hold)) { hs.use(path, true, fn) }

// ifHeld is with for a hold that exists: it does nothing if none does.
func (hs *watchHolds) ifHeld(path string, fn func(*hold)) { hs.use(path, false, fn) }

func (hs *watchHolds) use(path string, create bool, fn func(*hold)) {
	hs.mu.Lock()
	h := hs.m[path]
	if h == nil {
		if !create {
			hs.mu.Unlock()
			return
		}
		if hs.m == nil {
			hs.m = make(map[string]*hold)
		}
		h = &hold{}
		hs.m[path] = h
		hs.live.Add(1)
	}
	h.users++
	hs.mu.Unlock()

	h.mu.Lock()
	defer h.mu.Unlock()
	fn(h)
	hs.mu.Lock()
	defer hs.mu.Unlock()
	if h.users--; h.users == 0 && h.n == [len(h.n)]int{} {
		delete(hs.m, path)
		hs.live.Add(-1)
	}
}

// oneShotSet runs after a read set a one-shot watch on path (a children
// watch if children): see resetAfterOneShot.
func (c *Client) oneShotSet(path string, children bool) {
	if c.holds.live.Load() > 0 {
		c.resetAfterOneShot(c.cfg.namespace.toServer(path), children)
	}
}

// resetAfterOneShot runs after a read set a one-shot watch on the server
// path full (a children watch if children), even one whose caller left
// before its reply: a server before 3.9, which holds one watch per path
// and connection among its data watches and one among its children
// watches, has let it replace the persistent watches held on full that
// share its kind (a data watch both modes, a children watch the one that
// is not recursive). Each held is set again, the one that is not recursive
// first (see setWatch), and the watch listeners told (EventWatchReset), for
// changes in between went untold; the event's Err says if the watches
// could not be set again. The requests are bounded by abandonLimit, not by
// the read's context: a watch left off would tell nothing until the next
// reconnect.
func (c *Client) resetAfterOneShot(full string, children bool) {
	if c.holds.live.Load() == 0 {
		return
	}
	path := c.cfg.namespace.fromServer(full)
	reset := false
	var err error
	c.holds.ifHeld(full, func(h *hold) {
		if h.n[WatchPersistent] == 0 && (children || h.n[WatchPersistentRecursive] == 0) {
			return
		}
		reset = true
		ctx, cancel := context.WithTimeout(context.Background(), abandonLimit)
		defer cancel()
		for _, m := range [...]AddWatchMode{WatchPersistent, WatchPersistentRecursive} {
			if h.n[m] > 0 && err == nil {
				err = c.addWatch(ctx, path, m)
			}
		}
	})
	if !reset {
		return
	}
	if err != nil {
		c.log.Warn("setting a persistent watch again after a one-shot watch on its path failed; its holders set it again", "path", path, "err", err)
	}
	c.watches.deliverEvent(full, WatchEvent{Type: EventWatchReset, Path: path, Err: err})
}
