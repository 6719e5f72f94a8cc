package cache

import (
	"context"
	"errors"
	"slices"
	"time"

	"github.com/gocurator/curator/framework"
)

// The persistent mode (WithPersistentWatch): one recursive watch on the
// cache's path tells of every create, data change and delete below it (a
// cache of the node alone, WithMaxDepth(0), watches it without its
// subtree), and the reads set no watch. Each notification queues the read
// of the node's data, a create's and a delete's too (a recursive watch
// sends no children change): the read adds a new node to its parent's
// children (joinLocked) or takes a deleted one out of the cache
// (goneLocked), and the convergence rules of applyData and applyChildren
// settle the replies as in the one-shot mode. A node's children are
// listed when it is first cached, and by any read of it that finds its
// Pzxid moved since its last listing.

// disarmLimit bounds Close's removal of the watch.
const disarmLimit = 5 * time.Second

// armLocked sets the persistent watch on a goroutine of the cache's and
// then runs then; a server that refuses it turns the cache to one-shot
// watches first. c.mu is held, and the cache is started.
func (c *Cache) armLocked(then func()) {
	c.wg.Add(1)
	go func() {
		defer c.wg.Done()
		for c.ctx.Err() == nil {
			err := c.setWatch()
			switch {
			case err == nil:
				then()
				return
			case c.ctx.Err() != nil:
				return
			case retryable(err):
				c.client.Logger().Debug("cache: setting the persistent watch failed on the connection; it is set again once connected", "path", c.root, "err", err)
			case !errors.Is(err, framework.ErrOperationTimeout):
				c.client.Logger().Warn("cache: the server refused the persistent watch; the cache keeps in sync with a watch per node", "path", c.root, "err", err)
				c.persistent.Store(false)
				then()
				return
			}
			c.awaitConnection(c.ctx)
		}
	}()
}

// setWatch sets the persistent watch: the first time it takes the cache's
// hold on it, later it sets it again on the connection in use. One arm at a
// time does it (a reconnect may come while the first add is retried), so
// the cache never takes two holds.
func (c *Cache) setWatch() error {
	c.armMu.Lock()
	defer c.armMu.Unlock()
	if w := c.pwatch.Load(); w != nil {
		return w.Set(c.ctx)
	}
	mode := framework.WatchPersistentRecursive
	if c.opts.maxDepth == 0 { // the node alone: not the events of a subtree it may have
		mode = framework.WatchPersistent
	}
	w, err := c.client.AddWatch(c.ctx, c.root, mode)
	if err == nil {
		c.pwatch.Store(w)
	}
	return err
}

// disarm gives up the cache's hold on the persistent watch, once the cache
// has stopped: the last hold on the client takes the watch off.
func (c *Cache) disarm() {
	w := c.pwatch.Load()
	if w == nil {
		return
	}
	ctx, cancel := context.WithTimeout(context.Background(), disarmLimit)
	defer cancel()
	if err := w.Remove(ctx); err != nil {
		c.client.Logger().Debug("cache: removing the persistent watch failed; it goes with the connection", "path", c.root, "err", err)
	}
}

// notifiedPersistent queues the reads a persistent watch's notification
// calls for, within the cache's depth.
func (c *Cache) notifiedPersistent(ev framework.WatchEvent) {
	d := c.depthOf(ev.Path)
	if d < 0 || d > c.opts.maxDepth {
		return
	}
	switch ev.Type {
	case framework.EventNodeDataChanged, framework.EventNodeCreated, framework.EventNodeDeleted:
		// The node's own read says whether it is there: it adds the
		// node to its parent's children (joinLocked) or takes it out
		// of the cache (goneLocked). A listing of the parent would
		// cost the directory's size for each child made or deleted.
		// (This runs on the connection's goroutine: the filter is
		// called by the worker that takes the read, see wanted.)
		c.q.add(key{ev.Path, dataRead}, 0)
	}
}

// filtered reports whether the filter refuses path or a node above it
// (below the cache's own): nothing there is cached.
func (c *Cache) filtered(path string) bool {
	if c.opts.filter == nil {
		return false
	}
	for p := path; p != c.root && len(p) > len(c.root); p, _ = framework.SplitPath(p) {
		if !c.opts.filter(p) {
			return true
		}
	}
	return false
}

// joinLocked adds path to its parent's children, in the persistent mode,
// when a read of it finds a node they do not name, and reports whether it
// did. The parent's children are its latest listing's names, as of that
// listing's Pzxid, with the nodes its children's reads added since. A
// node made after that listing (a Czxid above its Pzxid) is a new child,
// told of by the watch, or read again by the resync that follows a gap in
// it. One made before it, and not named, was deleted before the listing
// was taken: the read is older than the listing, and changes nothing.
// If the parent is not cached or not listed yet, or its own read is
// pending (it may have been deleted and made again: the entry held is
// then the old node's), the parent's read or listing is asked for again;
// made after this read, it finds the node. c.mu is held.
func (c *Cache) joinLocked(path string, stat *framework.Stat, gen uint64) bool {
	if !c.persistent.Load() || stat == nil || c.state != started || path == c.root {
		return false
	}
	if d := c.depthOf(path); d < 1 || d > c.opts.maxDepth {
		return false // the filter passed the read before it was sent (wanted)
	}
	parent, name := framework.SplitPath(path)
	pe := c.nodes[parent]
	switch {
	case pe == nil:
		c.q.add(key{parent, dataRead}, gen)
		return false
	case pe.children == nil:
		c.q.add(key{parent, childrenRead}, gen)
		return false
	case stat.Czxid <= pe.pzxid, c.awaitParentLocked(path, stat, gen):
		return false
	}
	i, _ := slices.BinarySearch(pe.children, name)
	pe.children = slices.Insert(pe.children, i, name)
	return true
}

// awaitParentLocked reports whether path, read with stat, is a node made
// after its parent's last listing, new to the cache (or made again), while
// the parent's own read is pending, in the persistent mode. The parent may
// have been deleted and made again, and the entry the cache holds be the
// old node's: the node is not added under it (it would be reported
// Created, then Deleted with the old parent, then Created again). The
// parent's read is asked for again, and the node's if the cache holds an
// older one: the parent's read replaces the parent or, its Pzxid moved,
// lists its children, and finds the node. c.mu is held.
func (c *Cache) awaitParentLocked(path string, stat *framework.Stat, gen uint64) bool {
	if !c.persistent.Load() || path == c.root {
		return false
	}
	parent, _ := framework.SplitPath(path)
	pe := c.nodes[parent]
	if pe == nil || stat.Czxid <= pe.pzxid || !c.q.pending(key{parent, dataRead}) {
		return false
	}
	c.q.add(key{parent, dataRead}, gen)
	if c.nodes[path] != nil {
		c.q.add(key{path, dataRead}, gen)
	}
	return true
}

// forgetAfter is the fewest deletions a directory's children name before
// it is listed again (see goneLocked).
const forgetAfter = 32

// goneLocked notes, in the persistent mode, that a read found the cached
// child path gone, and took it out of the cache. Its name stays among its
// parent's children (a later listing drops it): the read may have been
// answered before a listing that named a node made again since, and be
// applied after it, and only a name kept lets that node's next read add
// it. A directory's deletions are read, not listed (a listing costs the
// directory's size), so the names gather: once the deletions since its
// last listing are half its names, and forgetAfter at least, the
// directory is listed again. Each deletion costs its read and, spread
// over them, one listing per half the directory. c.mu is held.
func (c *Cache) goneLocked(path string, gen uint64) {
	if !c.persistent.Load() || path == c.root {
		return
	}
	parent, _ := framework.SplitPath(path)
	pe := c.nodes[parent]
	if pe == nil || pe.children == nil {
		return
	}
	pe.deleted++
	if int(pe.deleted) >= max(forgetAfter, len(pe.children)/2) {
		c.q.add(key{parent, childrenRead}, gen)
	}
}

// watchReset reads everything again after the client set the persistent
// watch again (framework.EventWatchReset): a one-shot watch set on the
// cache's path through the same client had replaced it, and changes in
// between went untold. The cache is Stale until that read is done. The
// cache sets the watch again itself first, on a goroutine of its own, as
// after a reconnect, so a watch the client failed to set again is set
// before the read. It runs on the goroutine of the read that set the
// one-shot watch (the read's own, if its caller left before the reply),
// never on the connection's receive loop.
func (c *Cache) watchReset() {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.state != started {
		return
	}
	c.staleLocked()
	if c.resyncStart.IsZero() {
		c.resyncStart = time.Now()
	}
	c.rearmLocked()
}

// rearmLocked sets the persistent watch again, on a goroutine of the
// cache's, and then reads everything again (the server replays nothing
// the watch missed); c.mu is held, and the cache is started.
func (c *Cache) rearmLocked() {
	c.armSeq++
	seq := c.armSeq
	c.armLocked(func() { c.resyncIfCurrent(seq) })
}

// resyncIfCurrent reads everything again, once the watch is set again, if
// the cache has not gone stale or been rearmed since the rearm seq: the
// connection the watch was set on may have dropped before the read
// began, and the reads would go out on the next before its watch is set;
// the next rearm's resync then reads, and only its completion may say
// Resynced.
func (c *Cache) resyncIfCurrent(seq uint64) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.state == started && seq == c.armSeq {
		c.resyncLocked(true)
	}
}
