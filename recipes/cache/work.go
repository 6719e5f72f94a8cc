package cache

import (
	"context"
	"errors"
	"time"

	"github.com/gocurator/curator/framework"
)

// work makes the queued reads until ctx ends. Each read sets its watch in
// the same request, so no change falls between a read and its watch; the
// watch's notification (see notified) queues the next read.
func (c *Cache) work(ctx context.Context) {
	defer c.wg.Done()
	for {
		k, watch, ok := c.q.next(ctx)
		if !ok {
			return
		}
		if err := c.read(ctx, k, watch); err != nil && ctx.Err() == nil && retryable(err) {
			// Failed on the connection: make it again once the connection
			// is back (a load must not count a read it could not make).
			c.client.Logger().Debug("cache: a read failed on the connection; it is made again once connected", "path", k.path, "err", err)
			c.awaitConnection(ctx)
			c.q.check(k, c.q.genOf(k)) // again, as it was
		}
		if g := c.q.done(k); g != 0 {
			c.generationDone(g)
		}
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
	if !c.tracked(k.path) {
		return nil
	}
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
			names, stat, _, cerr = c.client.ChildrenW(ctx, k.path)
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
		data, stat, _, err := c.client.GetW(ctx, path)
		if !errors.Is(err, framework.ErrNoNode) {
			return data, stat, err
		}
		if path != c.root {
			return nil, nil, nil
		}
		ok, _, _, err := c.client.ExistsW(ctx, path)
		if err != nil || !ok {
			return nil, nil, err
		}
		// Created between the two reads: read it again.
	}
}

// tracked reports whether path is one the cache keeps: its own node, or a
// child its listing of the parent holds, within the maximum depth.
func (c *Cache) tracked(path string) bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.trackedLocked(path)
}

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
	if pe == nil {
		return false
	}
	_, ok := pe.children[name]
	return ok
}

// applyData applies a read of path's data: stat nil if the node is gone.
// The reads it asks for belong to the read's generation, as it is now (a
// resync may have begun since the read was sent; it runs under c.mu).
func (c *Cache) applyData(path string, data []byte, stat *framework.Stat) {
	c.mu.Lock()
	defer c.mu.Unlock()
	gen := c.q.genOf(key{path, dataRead})
	if !c.trackedLocked(path) {
		return
	}
	old := c.nodes[path]
	if stat == nil {
		if old != nil {
			c.removeLocked(old)
		}
		return
	}
	if path != c.root {
		parent, name := framework.SplitPath(path)
		pe := c.nodes[parent]
		if pz, ok := pe.gone[name]; ok {
			delete(pe.gone, name)
			if stat.Czxid <= pz {
				return // read before a listing that found the node deleted
			}
		}
	}
	if c.opts.withoutData {
		data = nil
	}
	n := Node{Path: path, Data: data, Stat: *stat}
	switch {
	case old == nil:
		c.addLocked(n, gen)
	case old.node.Stat.Czxid != stat.Czxid:
		if stat.Czxid < old.node.Stat.Czxid {
			return // an older node of that name: a reply overtaken by a later one
		}
		c.removeLocked(old) // deleted and created again between two reads
		c.addLocked(n, gen)
	case stat.Mzxid > old.node.Stat.Mzxid:
		prev := old.node
		old.node = n
		c.postNode(Event{Type: Changed, Path: path, Node: n, Old: prev})
	case stat.Mzxid == old.node.Stat.Mzxid && stat.Pzxid > old.node.Stat.Pzxid:
		old.node.Stat = *stat // the children changed, not the data
	}
}

// addLocked caches a node that came into being and asks for its children.
func (c *Cache) addLocked(n Node, gen uint64) {
	e := &entry{node: n, depth: c.depthOf(n.Path)}
	c.nodes[n.Path] = e
	c.postNode(Event{Type: Created, Path: n.Path, Node: n})
	if e.depth < c.opts.maxDepth {
		c.q.add(key{n.Path, childrenRead}, gen)
	}
}

// postNode tells the listeners of a node's event, unless the node is the
// cache's own in a cache made WithChildrenOnly. Callers hold c.mu.
func (c *Cache) postNode(ev Event) {
	if c.opts.childrenOnly && ev.Path == c.root {
		return
	}
	c.post(ev)
}

// removeLocked drops e and every cached node below it, the deepest first,
// each with a Deleted event.
func (c *Cache) removeLocked(e *entry) {
	for name := range e.children {
		if ce := c.nodes[framework.JoinPath(e.node.Path, name)]; ce != nil {
			c.removeLocked(ce)
		}
	}
	delete(c.nodes, e.node.Path)
	c.postNode(Event{Type: Deleted, Path: e.node.Path, Old: e.node})
}

// applyChildren applies a listing of path's children: stat nil if the node
// is gone.
func (c *Cache) applyChildren(path string, names []string, stat *framework.Stat) {
	c.mu.Lock()
	defer c.mu.Unlock()
	gen := c.q.genOf(key{path, childrenRead})
	e := c.nodes[path]
	if c.state != started || e == nil || e.depth >= c.opts.maxDepth {
		return
	}
	if stat == nil || stat.Czxid != e.node.Stat.Czxid {
		// The node is gone, or is another node of that name: its data
		// read says which, and lists its children again.
		c.q.add(key{path, dataRead}, gen)
		return
	}
	if e.children != nil && stat.Pzxid < e.pzxid {
		return // overtaken by a later listing
	}
	e.pzxid = stat.Pzxid
	if stat.Mzxid == e.node.Stat.Mzxid && stat.Pzxid > e.node.Stat.Pzxid {
		e.node.Stat = *stat // the same data; the children's fields are newer
	}
	next := make(map[string]struct{}, len(names))
	for _, name := range names {
		child := framework.JoinPath(path, name)
		if c.opts.filter != nil && !c.opts.filter(child) {
			continue
		}
		next[name] = struct{}{}
		// A new name, or one whose node the cache lacks: a read found it
		// gone, and it is back (a missing node sets no watch, so only this
		// listing can tell).
		if _, had := e.children[name]; !had || c.nodes[child] == nil && !c.q.pending(key{child, dataRead}) {
			c.q.add(key{child, dataRead}, gen)
		}
	}
	for name := range e.children {
		if _, ok := next[name]; ok {
			continue
		}
		child := framework.JoinPath(path, name)
		if ce := c.nodes[child]; ce != nil {
			c.removeLocked(ce)
		}
		if c.q.pending(key{child, dataRead}) {
			if e.gone == nil {
				e.gone = make(map[string]int64)
			}
			e.gone[name] = stat.Pzxid
		}
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
		}
	default:
		// The first load: Initialized, stale or not (a flap during the
		// load ends in Initialized, with no Resynced).
		if current {
			c.stale = false
		}
		c.post(Event{Type: Initialized}) // before the close: the fold keeps the load up to it
		close(c.initialized)
	}
}
