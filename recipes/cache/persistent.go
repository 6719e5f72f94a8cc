package cache

import (
	"context"
	"errors"
	"time"

	"github.com/gocurator/curator/framework"
)

// The persistent mode (WithPersistentWatch): one recursive watch on the
// cache's path tells of every create, data change and delete below it, and
// the reads set no watch. Each notification queues the reads the one-shot
// mode's watches would have queued: a data change the node's data; a
// create or a delete (for which a recursive watch sends no children
// change) the parent's listing too, which the convergence rules of
// applyChildren and applyData then settle as before.

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
			var err error
			if w := c.pwatch.Load(); w != nil {
				err = w.Set(c.ctx)
			} else {
				var w *framework.PersistentWatch
				if w, err = c.client.AddWatch(c.ctx, c.root, framework.WatchPersistentRecursive); err == nil {
					c.pwatch.Store(w)
				}
			}
			switch {
			case err == nil:
				then()
				return
			case c.ctx.Err() != nil:
				return
			case !retryable(err) && !errors.Is(err, framework.ErrOperationTimeout):
				c.client.Logger().Error("cache: the server refused the persistent watch; the cache keeps in sync with a watch per node", "path", c.root, "err", err)
				c.persistent.Store(false)
				then()
				return
			}
			c.awaitConnection(c.ctx)
		}
	}()
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
	case framework.EventNodeDataChanged:
		c.q.add(key{ev.Path, dataRead}, 0)
	case framework.EventNodeCreated, framework.EventNodeDeleted:
		if ev.Path == c.root {
			c.q.add(key{ev.Path, dataRead}, 0)
			return
		}
		if ev.Type == framework.EventNodeDeleted {
			c.q.add(key{ev.Path, dataRead}, 0)
		}
		parent, _ := framework.SplitPath(ev.Path)
		c.q.add(key{parent, childrenRead}, 0)
	}
}
