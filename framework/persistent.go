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
	key  holdKey
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
// Curator's PersistentWatcher and CuratorCache do. A server before 3.9
// holds one watch per path and connection: a one-shot watch set later on
// path itself replaces the persistent one there.
func (c *Client) AddWatch(ctx context.Context, path string, mode AddWatchMode) (*PersistentWatch, error) {
	if mode != WatchPersistent && mode != WatchPersistentRecursive {
		return nil, opErr("addWatch", path, fmt.Errorf("%w: watch mode %v", ErrInvalidArg, mode))
	}
	if err := ValidatePath(path, false); err != nil {
		return nil, opErr("addWatch", path, err)
	}
	w := &PersistentWatch{c: c, path: path, key: holdKey{c.cfg.namespace.toServer(path), mode}}
	var err error
	c.holds.with(w.key, func(h *hold) {
		switch err = c.addWatch(ctx, path, mode); {
		case err == nil:
			h.n++
		case h.n == 0 && ctx.Err() != nil && !errors.Is(err, zkconn.ErrNotSent):
			c.unwatchAbandoned(ctx, path, mode)
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
	w.c.holds.with(w.key, func(*hold) {
		if !w.gone {
			err = w.c.addWatch(ctx, w.path, w.key.mode)
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
		w.c.holds.with(w.key, func(h *hold) {
			w.gone = true
			if h.n--; h.n > 0 || !w.c.State().IsConnected() {
				return // others hold it; or the connection, and the watch with it, is gone
			}
			err = w.c.removeWatch(ctx, w.path, w.key.mode)
		})
	})
	return err
}

// unwatchAbandoned takes off a watch whose addWatch went out and whose
// caller stopped waiting (ctx ended): the server may hold it, and no hold
// counts it. It runs under the watch's hold, whatever ctx says, for at most
// abandonLimit; a watch it fails to take off goes with the connection.
func (c *Client) unwatchAbandoned(ctx context.Context, path string, mode AddWatchMode) {
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), abandonLimit)
	defer cancel()
	if err := c.removeWatch(ctx, path, mode); err != nil {
		c.log.Debug("taking off a persistent watch whose AddWatch was abandoned failed; it goes with the connection", "path", path, "err", err)
	}
}

// abandonLimit bounds unwatchAbandoned.
const abandonLimit = 5 * time.Second

// removeWatch sends removeWatches for path's persistent watch of mode; a
// connection that holds none (the one it was set on ended) is no error.
func (c *Client) removeWatch(ctx context.Context, path string, mode AddWatchMode) error {
	_, err := singleRequest(ctx, c, "removeWatches", path, func(ctx context.Context, conn conn, full string) (struct{}, error) {
		return struct{}{}, conn.RemoveWatch(ctx, full, mode == WatchPersistentRecursive)
	})
	if errors.Is(err, zkerr.NoWatcher) {
		return nil
	}
	return err
}

// addWatch sends addWatch for path.
func (c *Client) addWatch(ctx context.Context, path string, mode AddWatchMode) error {
	_, err := singleRequest(ctx, c, "addWatch", path, func(ctx context.Context, conn conn, full string) (struct{}, error) {
		return struct{}{}, conn.AddWatch(ctx, full, mode == WatchPersistentRecursive)
	})
	return err
}

// watchHolds counts the holds on each persistent watch. A hold's mutex
// orders the requests for its watch: an addWatch and the last hold's
// removeWatches never cross.
type watchHolds struct {
	mu   sync.Mutex
	m    map[holdKey]*hold
	live atomic.Int32 // len(m), read without mu: a one-shot watch's check that no persistent one is held
}

type holdKey struct {
	path string // the server's
	mode AddWatchMode
}

type hold struct {
	mu    sync.Mutex // held across the watch's requests
	n     int        // PersistentWatch values not removed; guarded by mu
	users int        // callers inside with; guarded by watchHolds.mu
}

// with runs fn holding k's hold's mutex, the hold made if need be, and
// forgets the hold afterwards once nothing holds or uses it.
func (hs *watchHolds) with(k holdKey, fn func(*hold)) { hs.use(k, true, fn) }

// ifHeld is with for a hold that exists: it does nothing if none does.
func (hs *watchHolds) ifHeld(k holdKey, fn func(*hold)) { hs.use(k, false, fn) }

func (hs *watchHolds) use(k holdKey, create bool, fn func(*hold)) {
	hs.mu.Lock()
	h := hs.m[k]
	if h == nil {
		if !create {
			hs.mu.Unlock()
			return
		}
		if hs.m == nil {
			hs.m = make(map[holdKey]*hold)
		}
		h = &hold{}
		hs.m[k] = h
		hs.live.Add(1)
	}
	h.users++
	hs.mu.Unlock()

	h.mu.Lock()
	defer h.mu.Unlock()
	fn(h)
	hs.mu.Lock()
	defer hs.mu.Unlock()
	if h.users--; h.users == 0 && h.n == 0 {
		delete(hs.m, k)
		hs.live.Add(-1)
	}
}

// resetAfterOneShot runs after a read set a one-shot watch on path (a
// children watch if children): a server before 3.9, which holds one watch
// per path and connection, has let it replace the persistent watches held
// on path that share its kind (a data watch both modes, a children watch
// the non-recursive one). Each is set again, and the watch listeners told
// (EventWatchReset), for changes in between went untold. The watch is set
// again whatever ctx says, within the retry policy's bounds: a watch left
// off would tell nothing until the next reconnect.
func (c *Client) resetAfterOneShot(ctx context.Context, path string, children bool) {
	if c.holds.live.Load() == 0 {
		return
	}
	full := c.cfg.namespace.toServer(path)
	modes := []AddWatchMode{WatchPersistent, WatchPersistentRecursive}
	if children {
		modes = modes[:1]
	}
	reset := false
	for _, m := range modes {
		c.holds.ifHeld(holdKey{full, m}, func(h *hold) {
			if h.n == 0 {
				return
			}
			reset = true
			if err := c.addWatch(context.WithoutCancel(ctx), path, m); err != nil {
				c.log.Debug("setting a persistent watch again after a one-shot watch on its path failed; its holders set it again after a reconnect", "path", path, "mode", m, "err", err)
			}
		})
	}
	if reset {
		c.watches.deliver(c.cfg.namespace, zkconn.Event{Type: zkconn.EventType(EventWatchReset), Path: full})
	}
}
