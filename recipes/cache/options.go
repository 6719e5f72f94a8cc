package cache

import (
	"fmt"
	"math"
)

// Option configures a Cache.
type Option func(*options) error

type options struct {
	maxDepth     int
	depthSet     bool // WithMaxDepth was given
	childrenOnly bool
	withoutData  bool
	filter       func(path string) bool
	buffer       int
	workers      int
	label        string
	watches      watches // WithPersistentWatch or WithOneShotWatches; zero: neither
	persistent   bool    // the cache keeps in sync by a persistent watch
}

// watches is the way of watching an option chose.
type watches uint8

const (
	watchesPersistent watches = iota + 1
	watchesOneShot
)

// DefaultBuffer is how many undelivered events a cache holds for its
// listeners, after its first load, before it drops them for one Overflowed
// event.
const DefaultBuffer = 100_000

// defaultWorkers is how many reads one cache has in flight at most.
const defaultWorkers = 64

// WithMaxDepth limits the cache to the nodes at most depth levels below
// its path: 0 caches the node alone (Curator's NodeCache), 1 the node and
// its children (TreeCache with a maximum depth of 1; for Curator's
// PathChildrenCache, which never reports the node itself, see
// WithChildrenOnly). The default has no limit (TreeCache, CuratorCache).
//
// A node at the maximum depth is read but not listed, so the child fields
// of its Stat (NumChildren, Cversion, Pzxid) are those of its latest read:
// they go stale when its children change, until its data changes, as in
// Curator's caches.
func WithMaxDepth(depth int) Option {
	return func(o *options) error {
		if depth < 0 {
			return fmt.Errorf("%w: max depth %d", ErrInvalidArg, depth)
		}
		o.maxDepth, o.depthSet = depth, true
		return nil
	}
}

// WithChildrenOnly caches the children of the cache's path and nothing
// else, as Curator's PathChildrenCache: one level (WithMaxDepth(1)), and
// never the node itself. It has no event of its own (a change of its data,
// its creation or its deletion is not reported; its deletion reports its
// children's), and Get, Snapshot and Len leave it out; Children(path)
// lists the children. The node need not exist. The children's Stat keeps
// stale child fields (see WithMaxDepth). With WithMaxDepth, the depth must
// be 1.
func WithChildrenOnly() Option {
	return func(o *options) error { o.childrenOnly = true; return nil }
}

// WithoutData keeps each node's stat but not its data (Curator's
// cacheData(false)): the data is still read, to set the watch, and then
// dropped.
func WithoutData() Option {
	return func(o *options) error { o.withoutData = true; return nil }
}

// WithFilter caches only the nodes below the cache's path for which keep
// returns true, and nothing below a node it refuses (Curator's
// TreeCacheSelector). keep sees full paths; the cache's own node is always
// kept. The cache's goroutines call keep one call at a time, holding the
// cache's lock: it must not call the cache.
func WithFilter(keep func(path string) bool) Option {
	return func(o *options) error {
		if keep == nil {
			return fmt.Errorf("%w: nil filter", ErrInvalidArg)
		}
		o.filter = keep
		return nil
	}
}

// WithEventBuffer sets how many undelivered events the cache holds for its
// listeners (DefaultBuffer; 2 at least). When a new event finds the buffer
// full, the buffered events are dropped and one Overflowed event stands
// for them. The first load's events, up to Initialized, are never dropped:
// however slow the listeners, they are held until delivered, one event per
// node loaded (each refers to the cached node; its data is not copied).
func WithEventBuffer(n int) Option {
	return func(o *options) error {
		if n < 1 {
			return fmt.Errorf("%w: event buffer %d", ErrInvalidArg, n)
		}
		o.buffer = n
		return nil
	}
}

// WithLabel names the cache, or the watcher, for the client's hooks
// (framework.WithHooks): its changes, loads, resyncs, stale spans and
// overflows carry the label, which metrics may use where a path, whose
// number has no bound, may not. It is the one option WatchData and
// WatchChildren take.
func WithLabel(label string) Option {
	return func(o *options) error { o.label = label; return nil }
}

func applyOptions(opts []Option) (options, error) {
	o := options{maxDepth: math.MaxInt, buffer: DefaultBuffer, workers: defaultWorkers}
	for _, opt := range opts {
		if opt == nil {
			return o, fmt.Errorf("%w: nil option", ErrInvalidArg)
		}
		if err := opt(&o); err != nil {
			return o, err
		}
	}
	if o.childrenOnly {
		if o.depthSet && o.maxDepth != 1 {
			return o, fmt.Errorf("%w: WithChildrenOnly caches one level, not %d", ErrInvalidArg, o.maxDepth)
		}
		o.maxDepth = 1
	}
	switch o.watches {
	case watchesPersistent:
		o.persistent = true
	case 0: // the node alone, or the whole tree: what a persistent watch tells is what the cache holds
		o.persistent = o.maxDepth == 0 || o.maxDepth == math.MaxInt
	}
	return o, nil
}

// WithPersistentWatch keeps the cache in sync through one persistent
// watch on its path (ZooKeeper 3.6 and later), as Curator's CuratorCache
// does, instead of a one-shot watch on every node: the client then holds
// no watch per node, and the reads set none. It is the default for a cache
// of the whole tree (no WithMaxDepth), whose watch is recursive, and for a
// cache of the node alone (WithMaxDepth(0)), whose watch is not; a cache
// of a few levels (WithMaxDepth(n) for n > 0, WithChildrenOnly) keeps a
// one-shot watch on each node unless this option is given, as a recursive
// watch would tell it of every change below its levels too.
//
// The cache sets the watch before its first read, and again after every
// reconnect, before it reads everything again; Close gives up its hold on
// it (the client takes the watch off with the last hold). On a server that
// refuses it (before 3.6), the cache logs why and keeps itself in sync
// with one-shot watches.
//
// A server before 3.9 holds one watch per path and connection: a one-shot
// watch set on the cache's own path through the same client (a WatchData
// on it, say) replaces the persistent one there. The client then sets the
// persistent watch again at once and the cache reads everything again
// (framework.EventWatchReset), so set no such watch often. A cache of the
// whole tree and a cache of the node alone on one path share the data
// watch there: the recursive one stands for both.
func WithPersistentWatch() Option {
	return func(o *options) error { return o.setWatches(watchesPersistent) }
}

// WithOneShotWatches keeps the cache in sync with a one-shot watch on each
// cached node, set by its reads and set again after each fires, as
// Curator's TreeCache, NodeCache and PathChildrenCache do: the way of a
// server before 3.6, and the default for a cache of a few levels (see
// WithPersistentWatch). The client then holds about 650
// bytes more per cached node.
func WithOneShotWatches() Option {
	return func(o *options) error { return o.setWatches(watchesOneShot) }
}

func (o *options) setWatches(w watches) error {
	if o.watches != 0 && o.watches != w {
		return fmt.Errorf("%w: WithPersistentWatch and WithOneShotWatches together", ErrInvalidArg)
	}
	o.watches = w
	return nil
}
