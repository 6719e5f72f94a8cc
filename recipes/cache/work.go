package cache

import (
	"cmp"
	"context"
	"errors"
	"math"
	"slices"
	"time"

	"github.com/gocurator/curator/framework"
)

// work makes the queued reads until ctx ends. Each read sets its watch in
// the same request, so no change falls between a read and its watch; the
// watch's notification (see notified) queues the next read.
func (c *Cache) work(ctx context.Context) {
	defer c.wg.Done()
	var batch []key
	for {
		persistent := c.persistent.Load()
		var watch, ok bool
		batch, watch, ok = c.q.nextBatch(ctx, batch, readBatch, persistent)
		if !ok {
			return
		}
		switch {
		case len(batch) == 1:
			c.finish(ctx, batch, c.read(ctx, batch[0], watch))
		case !persistent || c.persistent.Load():
			// Reads that set no watch: the persistent mode's, or a
			// resync's checks of nodes whose one-shot watches survived.
			c.readMany(ctx, c.keepWanted(ctx, batch))
		default:
			// The server refused the persistent watch while this worker
			// waited: read one by one, each with its watch.
			for i := range batch {
				c.finish(ctx, batch[i:i+1], c.read(ctx, batch[i], true))
			}
		}
	}
}

// finish marks the reads keys done, once applied; err is the error of the
// request that made them. Failed on the connection, they are made again
// once the connection is back (a load must not count a read it could not
// make).
func (c *Cache) finish(ctx context.Context, keys []key, err error) {
	if err != nil && ctx.Err() == nil && retryable(err) {
		c.client.Logger().Debug("cache: a read failed on the connection; it is made again once connected", "path", keys[0].path, "reads", len(keys), "err", err)
		c.awaitConnection(ctx)
		for _, k := range keys {
			c.q.check(k, c.q.genOf(k)) // again, as it was
		}
	}
	for _, k := range keys {
		if g := c.q.done(k); g != 0 {
			c.generationDone(g)
		}
	}
}

// wanted reports whether the read k is worth making: of a node the cache
// holds or, in the persistent mode, of a node the filter does not refuse,
// nor a node above it (a notification's read, which may add the node).
// The filter is called here, under c.mu, and not on the connection's
// goroutine that delivers the notifications.
func (c *Cache) wanted(k key) bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.wantedLocked(k)
}

func (c *Cache) wantedLocked(k key) bool {
	return c.trackedLocked(k.path) || k.kind == dataRead && c.state == started && c.persistent.Load() && !c.filtered(k.path)
}

// keepWanted returns the reads of keys worth making (wanted), in keys'
// storage, and finishes the others.
func (c *Cache) keepWanted(ctx context.Context, keys []key) []key {
	kept := keys[:0]
	var skip []key
	c.mu.Lock()
	for _, k := range keys {
		if c.wantedLocked(k) {
			kept = append(kept, k)
		} else {
			skip = append(skip, k)
		}
	}
	c.mu.Unlock()
	if len(skip) > 0 {
		c.finish(ctx, skip, nil)
	}
	return kept
}

// readBatch is the most data reads that set no watch (the persistent
// mode's, and a resync's checks) one request carries: a multiRead of them
// costs the server about what one read does, and a load of many nodes is
// bound by the server's cost per request.
const readBatch = 64

// readMany makes the data reads keys in one request (a multiRead),
// applies their replies and finishes each read as soon as its reply is
// applied (a listing applied meanwhile then finds it done, and does not
// ask for it again). A reply longer than the client accepts is asked for
// again in two halves, down to single reads, and a server that will not
// take the request is asked read by read.
func (c *Cache) readMany(ctx context.Context, keys []key) {
	switch len(keys) {
	case 0:
		return
	case 1:
		c.finish(ctx, keys, c.read(ctx, keys[0], false))
		return
	}
	ops := make([]framework.ReadOp, len(keys))
	for i, k := range keys {
		ops[i] = framework.GetOp(k.path)
	}
	res, err := c.client.MultiRead(ctx, ops...)
	switch {
	case errors.Is(err, framework.ErrReplyTooLarge):
		h := len(keys) / 2
		c.readMany(ctx, keys[:h])
		c.readMany(ctx, keys[h:])
		return
	case err != nil && (retryable(err) || ctx.Err() != nil):
		c.finish(ctx, keys, err)
		return
	case err != nil:
		c.client.Logger().Warn("cache: a multiRead failed; the reads are made one by one", "path", keys[0].path, "reads", len(keys), "err", err)
		for i := range keys {
			c.finish(ctx, keys[i:i+1], c.read(ctx, keys[i], false))
		}
		return
	}
	for i, r := range res {
		path := keys[i].path
		switch {
		case r.Err == nil:
			c.applyData(path, r.Data, r.Stat)
		case errors.Is(r.Err, framework.ErrNoNode):
			c.applyData(path, nil, nil)
		default:
			c.client.Logger().Warn("cache: a read failed; the next resync makes it again", "path", path, "err", r.Err)
		}
		c.finish(ctx, keys[i:i+1], nil)
	}
}

// retryable reports whether a read failed on the connection, and will
// succeed once it is back.
func retryable(err error) bool {
	return errors.Is(err, framework.ErrConnectionLoss) || errors.Is(err, framework.ErrSessionExpired) || errors.Is(err, framework.ErrNotStarted)
}

// awaitConnection waits until the client is connected or ctx ends.
func (c *Cache) awaitConnection(ctx context.Context) {
	if c.client.BlockUntilConnected(ctx) != nil {
		t := time.NewTimer(100 * time.Millisecond) // not started yet, or closed
		defer t.Stop()
		select {
		case <-t.C:
		case <-ctx.Done():
		}
	}
}

// read makes the read k, with a watch if asked, and applies its reply; it
// returns the error of a read that failed.
func (c *Cache) read(ctx context.Context, k key, watch bool) error {
	if !c.wanted(k) {
		return nil
	}
	watch = watch && !c.persistent.Load()
	var err error
	switch k.kind {
	case dataRead:
		var data []byte
		var stat *framework.Stat
		data, stat, err = c.readData(ctx, k.path, watch)
		if err == nil {
			c.applyData(k.path, data, stat)
		}
	case childrenRead:
		var names []string
		var stat *framework.Stat
		var cerr error
		if watch {
			names, stat, cerr = c.client.ChildrenWatched(ctx, k.path)
		} else {
			names, stat, cerr = c.client.Children(ctx, k.path)
		}
		if errors.Is(cerr, framework.ErrNoNode) {
			cerr, stat = nil, nil
		}
		if err = cerr; err == nil {
			c.applyChildren(k.path, names, stat)
		}
	}
	if err != nil && ctx.Err() == nil && !retryable(err) {
		c.client.Logger().Warn("cache: a read failed; the next resync makes it again", "path", k.path, "err", err)
	}
	return err
}

// readData reads a node's data and stat, with a data watch if asked; a
// missing node has a nil stat. For the cache's own node, which may not
// exist yet, it sets an existence watch instead, so its creation is seen.
func (c *Cache) readData(ctx context.Context, path string, watch bool) ([]byte, *framework.Stat, error) {
	if !watch {
		data, stat, err := c.client.Get(ctx, path)
		if errors.Is(err, framework.ErrNoNode) {
			return nil, nil, nil
		}
		return data, stat, err
	}
	for {
		data, stat, err := c.client.GetWatched(ctx, path)
		if !errors.Is(err, framework.ErrNoNode) {
			return data, stat, err
		}
		if path != c.root {
			return nil, nil, nil
		}
		ok, _, err := c.client.ExistsWatched(ctx, path)
		if err != nil || !ok {
			return nil, nil, err
		}
		// Created between the two reads: read it again.
	}
}

// trackedLocked reports whether path is one the cache keeps: its own
// node, or one its parent's children name (a listing's names, and in the
// persistent mode those its children's reads added, and those of deleted
// children not listed since), within the maximum depth. c.mu is held.
func (c *Cache) trackedLocked(path string) bool {
	if c.state != started {
		return false
	}
	if path == c.root {
		return true
	}
	d := c.depthOf(path)
	if d < 1 || d > c.opts.maxDepth {
		return false
	}
	parent, name := framework.SplitPath(path)
	pe := c.nodes[parent]
	return pe != nil && pe.listed(name)
}

// applyData applies a read of path's data: stat nil if the node is gone.
// The reads it asks for belong to the read's generation, as it is now (a
// resync may have begun since the read was sent; it runs under c.mu).
func (c *Cache) applyData(path string, data []byte, stat *framework.Stat) {
	c.mu.Lock()
	defer c.mu.Unlock()
	gen := c.q.genOf(key{path, dataRead})
	if c.state != started {
		return
	}
	if path != c.root {
		// A listing that dropped the node while this read was under way
		// left a mark; the reads after this one are newer than it.
		parent, name := framework.SplitPath(path)
		if pe := c.nodes[parent]; pe != nil {
			if pz, ok := pe.gone[name]; ok {
				delete(pe.gone, name)
				if stat != nil && stat.Czxid <= pz {
					return // read before a listing that found the node deleted
				}
			}
		}
	}
	switch {
	case !c.trackedLocked(path):
		if !c.joinLocked(path, stat, gen) {
			return
		}
	case stat == nil || path == c.root:
	case c.nodes[path] == nil || c.nodes[path].stat.Czxid != stat.Czxid:
		// A node new to the cache, under a name its parent's children
		// hold (a deleted child's, see goneLocked).
		if c.awaitParentLocked(path, stat, gen) {
			return
		}
	}
	old := c.nodes[path]
	if stat == nil {
		if old != nil {
			c.removeLocked(old)
			c.goneLocked(path, gen)
		}
		return
	}
	if c.opts.withoutData {
		data = nil
	}
	switch {
	case old == nil:
		c.addLocked(path, data, stat, gen)
	case old.stat.Czxid != stat.Czxid:
		if stat.Czxid < old.stat.Czxid {
			return // an older node of that name: a reply overtaken by a later one
		}
		c.removeLocked(old) // deleted and created again between two reads
		c.addLocked(path, data, stat, gen)
	case stat.Mzxid > old.stat.Mzxid:
		prev := old.node()
		old.data, old.stat = data, *stat
		c.postNode(Event{Type: Changed, Path: path, Node: old.node(), Old: prev})
	case stat.Mzxid == old.stat.Mzxid && stat.Pzxid > old.stat.Pzxid:
		old.stat = *stat // the children changed, not the data
	}
	switch {
	case old != c.nodes[path] || !c.listable(old):
	case c.persistent.Load():
		// A read of a node cached before it: its children may have
		// changed since its last listing (a resync's read, or a listing
		// dropped while the node was replaced).
		c.settleChildrenLocked(old, stat, gen)
	case gen != 0 && old.children != nil && stat.Pzxid > old.pzxid:
		// A resync's check found the children changed since the last
		// listing (its child watch, which survived, fired too): check
		// the listing as well.
		c.q.check(key{path, childrenRead}, gen)
	}
}

// addLocked caches a node that came into being and asks for its children.
func (c *Cache) addLocked(path string, data []byte, stat *framework.Stat, gen uint64) {
	e := &entry{path: path, data: data, stat: *stat}
	c.nodes[path] = e
	c.postNode(Event{Type: Created, Path: path, Node: e.node()})
	switch {
	case ephemeral(stat.EphemeralOwner):
		e.children = []string{} // it can have none: listed, with no watch to set
	case c.depthOf(path) < c.opts.maxDepth:
		c.settleChildrenLocked(e, stat, gen)
	}
}

// listable reports whether the cache lists e's children: e is above the
// cache's depth and not ephemeral.
func (c *Cache) listable(e *entry) bool {
	return c.depthOf(e.path) < c.opts.maxDepth && !ephemeral(e.stat.EphemeralOwner)
}

// settleChildrenLocked asks for the listing of e's children that a read
// of its data, with stat, calls for. With one-shot watches every node is
// listed, for the listing sets the child watch. A persistent watch,
// set before any read, tells of every child created or deleted since, so
// the stat can stand in for a listing: no children is an empty listing
// as of its Pzxid, and a Pzxid no newer than the latest listing's says
// that listing still holds. Only a node whose children changed is
// listed: a load lists its inner nodes, not its leaves, and a resync only
// the nodes whose children changed while it was away. Any read does,
// not only a load's: a read asked for again (joinLocked, applyChildren)
// must find the children that an older read of it could not show. So a
// directory whose children its reads changed (joinLocked, goneLocked) is
// listed at its next data read.
func (c *Cache) settleChildrenLocked(e *entry, stat *framework.Stat, gen uint64) {
	switch {
	case !c.persistent.Load():
		c.q.add(key{e.path, childrenRead}, gen)
	case stat.NumChildren == 0:
		c.listLocked(e, nil, stat, gen)
	case e.children == nil || stat.Pzxid > e.pzxid:
		c.q.add(key{e.path, childrenRead}, gen)
	}
}

// ephemeral reports whether a node with this ephemeralOwner is an
// ephemeral node, which ZooKeeper lets have no children: so the cache
// neither lists it nor sets a child watch on it, half the requests and
// watches of a directory of members (a group, a service). A container
// (Long.MIN_VALUE in some servers' stats, 0 in others) and a TTL node
// (0xFF in the high byte) are not ephemeral.
func ephemeral(owner int64) bool {
	return owner != 0 && owner != math.MinInt64 && uint64(owner)>>56 != 0xFF
}

// postNode tells the listeners of a node's event, unless the node is the
// cache's own in a cache made WithChildrenOnly. Callers hold c.mu.
func (c *Cache) postNode(ev Event) {
	if c.opts.childrenOnly && ev.Path == c.root {
		return
	}
	c.post(ev)
	if c.report.hooks != nil {
		c.report.change(ev.Type, ev.Path, c.lenLocked())
	}
	if c.stale {
		c.resyncChanges++
	}
}

// removeLocked drops e and every cached node below it, the deepest first,
// each with a Deleted event.
func (c *Cache) removeLocked(e *entry) {
	for _, name := range e.children {
		if ce := c.nodes[framework.JoinPath(e.path, name)]; ce != nil {
			c.removeLocked(ce)
		}
	}
	delete(c.nodes, e.path)
	c.postNode(Event{Type: Deleted, Path: e.path, Old: e.node()})
}

// applyChildren applies a listing of path's children: stat nil if the node
// is gone.
func (c *Cache) applyChildren(path string, names []string, stat *framework.Stat) {
	c.mu.Lock()
	defer c.mu.Unlock()
	gen := c.q.genOf(key{path, childrenRead})
	e := c.nodes[path]
	if c.state != started || c.depthOf(path) >= c.opts.maxDepth {
		return
	}
	if e == nil {
		if c.persistent.Load() && c.trackedLocked(path) {
			// Its data read is under way: one sent before this listing
			// could show no children, stand in for a listing, and hide
			// the ones found here. Read it again after.
			c.q.add(key{path, dataRead}, gen)
		}
		return
	}
	if stat == nil || stat.Czxid != e.stat.Czxid {
		// The node is gone, or is another node of that name: its data
		// read says which, and lists its children again.
		c.q.add(key{path, dataRead}, gen)
		return
	}
	c.listLocked(e, names, stat, gen)
}

// listLocked applies a listing of e's children, names, as of stat (a
// listing's, or a data read's that stands in for an empty one). The
// reads it asks for belong to generation gen; c.mu is held.
func (c *Cache) listLocked(e *entry, names []string, stat *framework.Stat, gen uint64) {
	path := e.path
	if e.children != nil && stat.Pzxid < e.pzxid {
		return // overtaken by a later listing
	}
	e.pzxid, e.deleted = stat.Pzxid, 0
	if stat.Mzxid == e.stat.Mzxid && stat.Pzxid > e.stat.Pzxid {
		e.stat = *stat // the same data; the children's fields are newer
	}
	next := names[:0] // the reply's slice, sorted and filtered in place
	for _, name := range names {
		if c.opts.filter == nil || c.opts.filter(framework.JoinPath(path, name)) {
			next = append(next, name)
		}
	}
	slices.Sort(next)
	next = slices.Clip(next)
	// Read each new name, and each whose node the cache lacks (a read
	// found it gone, and it is back: a missing node sets no watch, so only
	// this listing can tell); read again each with a read under way, which
	// may have been answered before this listing (the node deleted then,
	// and made again since: a late "no node" must not be the last word).
	var reads, again []key
	for _, name := range next {
		k := key{framework.JoinPath(path, name), dataRead}
		if !e.listed(name) || c.nodes[k.path] == nil {
			reads = append(reads, k)
		} else {
			again = append(again, k)
		}
	}
	c.q.addAll(reads, again, gen)
	var kept []string
	for _, name := range e.children {
		if _, ok := slices.BinarySearch(next, name); ok {
			continue
		}
		child := framework.JoinPath(path, name)
		if ce := c.nodes[child]; ce != nil {
			if ce.stat.Czxid > stat.Pzxid {
				// Made after this listing was taken: its own read
				// added it (joinLocked).
				kept = append(kept, name)
				continue
			}
			c.removeLocked(ce)
		}
		if c.q.pending(key{child, dataRead}) {
			if e.gone == nil {
				e.gone = make(map[string]int64)
			}
			e.gone[name] = stat.Pzxid
		}
	}
	if len(kept) > 0 {
		next = append(next, kept...)
		slices.Sort(next)
	}
	if next == nil {
		next = []string{} // listed, with no children
	}
	e.children = next
}

// generationDone tells the listeners that a load is complete: the first
// is Initialized, the later ones Resynced.
func (c *Cache) generationDone(gen uint64) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.state != started || gen != c.q.current() {
		return
	}
	// A generation begun before the latest Stale does not end it: the
	// resync after that reconnect will.
	current := gen > c.staleGen
	select {
	case <-c.initialized:
		if current && c.stale {
			c.stale = false
			c.post(Event{Type: Resynced})
			c.report.resync(false, c.lenLocked(), c.resyncChanges, cmp.Or(c.resyncStart, c.staleSince))
			c.report.stale(c.staleSince)
			c.resyncStart = time.Time{}
		}
	default:
		// The first load: Initialized, stale or not (a flap during the
		// load ends in Initialized, with no Resynced).
		if current {
			if c.stale {
				c.report.stale(c.staleSince)
			}
			c.stale, c.resyncStart = false, time.Time{}
		}
		c.post(Event{Type: Initialized}) // before the close: the fold keeps the load up to it
		c.report.resync(true, c.lenLocked(), 0, c.loadStart)
		close(c.initialized)
	}
}
