package discovery

import (
	"context"
	"fmt"
	"reflect"
	"slices"
	"sync"

	"github.com/gocurator/curator/framework"
	"github.com/gocurator/curator/recipes/cache"
)

// Cache is Curator's ServiceCache: the instances of one service, kept in
// memory and in sync with ZooKeeper, with an event for each change. Make
// one with Discovery.NewCache, Start it, and Close it.
type Cache[T any] struct {
	name  string
	dir   string
	codec codec[T]
	log   func(msg string, args ...any)
	cache *cache.Cache

	mu        sync.Mutex
	state     runState
	ready     bool                   // the first load is done: changes are told from now on
	loaded    chan struct{}          // closed when ready is set
	instances map[string]Instance[T] // by node name
	listeners []*cacheListener[T]
	stopLife  func() bool
	closeDone chan struct{} // closed when Close has finished
}

type cacheListener[T any] struct {
	fn      func(Event[T])
	removed bool // guarded by Cache.mu
}

// NewCache returns a cache of the instances of the service name. It sends
// nothing until Start.
func (d *Discovery[T]) NewCache(name string) (*Cache[T], error) { return d.newCache(name) }

// newCache is NewCache, with more options for the inner cache (tests).
func (d *Discovery[T]) newCache(name string, opts ...cache.Option) (*Cache[T], error) {
	if err := checkName("service name", name); err != nil {
		return nil, err
	}
	dir := framework.JoinPath(d.base, name)
	inner, err := cache.New(d.client, dir, append([]cache.Option{cache.WithMaxDepth(1)}, opts...)...)
	if err != nil {
		return nil, err
	}
	c := &Cache[T]{name: name, dir: dir, codec: d.codec, log: d.client.Logger().Warn, cache: inner,
		instances: make(map[string]Instance[T]), loaded: make(chan struct{}), closeDone: make(chan struct{})}
	if _, err := inner.AddListener(c.apply); err != nil {
		return nil, err
	}
	return c, nil
}

// Start loads the instances and waits until they are loaded (Curator's
// ServiceCache.start), bounded by ctx; the cache then follows them until
// Close. Unlike Curator, it does not create the service's node when it is
// missing (an empty container the server would never reap): the cache
// follows it from when it appears. ctx is the cache's lifetime: when it
// ends, the cache stops as Close stops it. A Close while Start waits makes
// Start return ErrClosed.
func (c *Cache[T]) Start(ctx context.Context) error {
	c.mu.Lock()
	switch c.state {
	case started:
		c.mu.Unlock()
		return fmt.Errorf("%w: service cache %s", ErrAlreadyStarted, c.dir)
	case closed:
		c.mu.Unlock()
		return fmt.Errorf("service cache %s: %w", c.dir, ErrClosed)
	}
	if err := c.cache.Start(ctx); err != nil {
		c.mu.Unlock()
		return err
	}
	c.state = started
	c.stopLife = context.AfterFunc(ctx, func() { c.Close() })
	c.mu.Unlock()
	select {
	case <-c.loaded:
		return nil
	case <-c.closeDone:
		return fmt.Errorf("service cache %s: %w", c.dir, ErrClosed)
	case <-ctx.Done():
		c.Close()
		return ctx.Err()
	}
}

// Close stops the cache and its goroutines, after the events already
// queued have reached the listeners; it must not be called from a
// listener. It is idempotent; Close before Start is allowed.
func (c *Cache[T]) Close() error {
	c.mu.Lock()
	state := c.state
	c.state = closed
	stopLife := c.stopLife
	c.mu.Unlock()
	switch state {
	case closed:
		<-c.closeDone
		return nil
	case started:
		stopLife()
		c.cache.Close()
	}
	close(c.closeDone)
	return nil
}

// Name returns the service's name.
func (c *Cache[T]) Name() string { return c.name }

// Instances returns the service's instances, sorted by node name.
func (c *Cache[T]) Instances() []Instance[T] {
	c.mu.Lock()
	defer c.mu.Unlock()
	keys := make([]string, 0, len(c.instances))
	for k := range c.instances {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	out := make([]Instance[T], len(keys))
	for i, k := range keys {
		out[i] = c.instances[k]
	}
	return out
}

// AddListener registers fn to hear of every change after the first load,
// in order, on the cache's goroutine (a listener that blocks delays the
// ones after it, never the cache); Curator's cacheChanged, with the
// change. remove unregisters it.
func (c *Cache[T]) AddListener(fn func(Event[T])) (remove func(), err error) {
	if fn == nil {
		return nil, fmt.Errorf("%w: service cache %s: nil listener", ErrInvalidArg, c.dir)
	}
	l := &cacheListener[T]{fn: fn}
	c.mu.Lock()
	c.listeners = append(c.listeners, l)
	c.mu.Unlock()
	return func() {
		c.mu.Lock()
		defer c.mu.Unlock()
		l.removed = true
		c.listeners = slices.DeleteFunc(c.listeners, func(x *cacheListener[T]) bool { return x == l })
	}, nil
}

// apply follows the inner cache's events (on its goroutine): it decodes
// each instance once per change and tells the listeners.
func (c *Cache[T]) apply(ev cache.Event) {
	if ev.Type == cache.Initialized {
		c.mu.Lock()
		if !c.ready {
			c.ready = true
			close(c.loaded)
		}
		c.mu.Unlock()
		return
	}
	if ev.Type == cache.Overflowed { // events were dropped: read the cache itself
		c.resync()
		return
	}
	parent, key := framework.SplitPath(ev.Path)
	if parent != c.dir || ev.Path == c.dir {
		return // the service's own node, Stale, Resynced
	}
	var out Event[T]
	c.mu.Lock()
	switch ev.Type {
	case cache.Created, cache.Changed:
		inst, err := c.codec.unmarshal(ev.Node.Data)
		if err != nil {
			c.mu.Unlock()
			c.log("discovery: leaving out an instance that does not read", "path", ev.Path, "err", err)
			c.remove(key)
			return
		}
		_, had := c.instances[key]
		c.instances[key] = inst
		out = Event[T]{Type: Added, Instance: inst}
		if had {
			out.Type = Updated
		}
	case cache.Deleted:
		inst, had := c.instances[key]
		if !had {
			c.mu.Unlock()
			return
		}
		delete(c.instances, key)
		out = Event[T]{Type: Removed, Instance: inst}
	default:
		c.mu.Unlock()
		return
	}
	c.mu.Unlock()
	c.tell(out)
}

// resync rebuilds the instances from the inner cache's nodes, after its
// listeners fell so far behind that it dropped events, and tells the
// listeners the differences.
func (c *Cache[T]) resync() {
	now := make(map[string]Instance[T])
	for _, key := range c.cache.Children(c.dir) {
		n, ok := c.cache.Get(framework.JoinPath(c.dir, key))
		if !ok {
			continue
		}
		inst, err := c.codec.unmarshal(n.Data)
		if err != nil {
			c.log("discovery: leaving out an instance that does not read", "path", n.Path, "err", err)
			continue
		}
		now[key] = inst
	}
	c.mu.Lock()
	old := c.instances
	c.instances = now
	c.mu.Unlock()
	for key, inst := range old {
		if _, ok := now[key]; !ok {
			c.tell(Event[T]{Type: Removed, Instance: inst})
		}
	}
	for key, inst := range now {
		prev, had := old[key]
		switch {
		case !had:
			c.tell(Event[T]{Type: Added, Instance: inst})
		case !reflect.DeepEqual(prev, inst):
			c.tell(Event[T]{Type: Updated, Instance: inst})
		}
	}
}

// remove drops the instance at key, telling the listeners.
func (c *Cache[T]) remove(key string) {
	c.mu.Lock()
	inst, had := c.instances[key]
	delete(c.instances, key)
	c.mu.Unlock()
	if had {
		c.tell(Event[T]{Type: Removed, Instance: inst})
	}
}

// tell calls the listeners with ev once the first load is done.
func (c *Cache[T]) tell(ev Event[T]) {
	c.mu.Lock()
	if !c.ready {
		c.mu.Unlock()
		return
	}
	ls := slices.Clone(c.listeners)
	c.mu.Unlock()
	for _, l := range ls {
		c.mu.Lock()
		removed := l.removed
		c.mu.Unlock()
		if !removed {
			l.fn(ev)
		}
	}
}
