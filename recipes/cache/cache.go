package cache

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/gocurator/curator/framework"
	"github.com/gocurator/curator/internal/delivery"
	"github.com/gocurator/curator/listener"
)

// Cache keeps a node and the nodes below it, to a maximum depth, in sync
// with ZooKeeper. It sends nothing until Start; Close stops it and removes
// nothing from ZooKeeper. It reports its changes, loads, resyncs, stale
// spans and overflows to the client's hooks (framework.WithHooks), under
// the label WithLabel gives it.
type Cache struct {
	client    *framework.Client
	root      string
	opts      options
	q         *queue
	listeners *delivery.Container[[]Event] // each item one event, or the first load's events folded into one (delivery.go)
	report    report

	mu          sync.Mutex // guards the fields below and orders events
	nodes       map[string]*entry
	state       runState
	stale       bool
	staleGen    uint64 // the generation current when the cache went stale
	armSeq      uint64 // counts staleLocked and rearmLocked: a rearm's resync runs only if none came after it
	session     int64  // the session the cache's watches were set on, as far as it knows (0: unknown)
	initialized chan struct{}
	stop        context.CancelFunc
	stopAfter   func() bool   // unregisters the Close that Start's context's end calls
	closed      chan struct{} // closed when the first Close has finished
	wg          sync.WaitGroup
	unwatch     func()                                    // removes the watch listener
	unlisten    func()                                    // removes the connection-state listener
	ctx         context.Context                           // ends when the cache stops: its goroutines' lifetime
	persistent  atomic.Bool                               // kept in sync by a persistent watch (WithPersistentWatch, and the server took it)
	pwatch      atomic.Pointer[framework.PersistentWatch] // the cache's hold on it, once set
	armMu       sync.Mutex                                // one setWatch at a time

	// For the hooks (report.go):
	loadStart     time.Time // Start's time
	staleSince    time.Time // when the cache went stale
	resyncStart   time.Time // the first reconnect since it went stale; zero: none
	resyncChanges int       // the changes told since it went stale: what the resync found
}

type runState int

const (
	created runState = iota
	started
	closed
)

// entry is a cached node and what the cache knows of its children. It is
// kept small, for a cache holds one per node: the path is the map's key,
// the children a sorted slice of the names the listing returned.
type entry struct {
	path     string // the key of c.nodes that holds it
	data     []byte
	stat     framework.Stat
	children []string         // sorted names from the latest listing applied, and in the persistent mode those its children's reads added since; nil if not listed
	pzxid    int64            // the latest listing's Pzxid
	deleted  int32            // cached children reads found gone since that listing (see goneLocked)
	gone     map[string]int64 // children removed by a listing while their read was in flight: name -> that listing's Pzxid
}

// node returns the cached node e holds.
func (e *entry) node() Node { return Node{Path: e.path, Data: e.data, Stat: e.stat} }

// listed reports whether e's children name name.
func (e *entry) listed(name string) bool {
	_, ok := slices.BinarySearch(e.children, name)
	return ok
}

// New returns a cache of the node at path and the nodes below it.
func New(client *framework.Client, path string, opts ...Option) (*Cache, error) {
	if client == nil {
		return nil, fmt.Errorf("%w: nil client", ErrInvalidArg)
	}
	if err := framework.ValidatePath(path, false); err != nil {
		return nil, fmt.Errorf("%w: cache path %q: %w", ErrInvalidArg, path, err)
	}
	o, err := applyOptions(opts)
	if err != nil {
		return nil, err
	}
	c := &Cache{
		client:      client,
		root:        path,
		opts:        o,
		q:           newQueue(),
		report:      newReport(client, o.label),
		nodes:       make(map[string]*entry),
		initialized: make(chan struct{}),
		closed:      make(chan struct{}),
	}
	c.listeners = delivery.NewContainer(max(o.buffer, 2), c.fold)
	return c, nil
}

// Path returns the cache's path.
func (c *Cache) Path() string { return c.root }

// Start loads the cache in the background and keeps it in sync until
// Close; Initialized is closed once the first load is done. It returns at
// once, as Curator's start does. ctx is the cache's lifetime
// (docs/lifecycle.md): when it ends, the cache closes as Close does, so pass
// the context the application runs under, not a timeout. A cache starts
// once; Start after Close returns ErrClosed.
func (c *Cache) Start(ctx context.Context) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	switch c.state {
	case started:
		return fmt.Errorf("%w: cache of %s", ErrAlreadyStarted, c.root)
	case closed:
		return fmt.Errorf("%w: the cache of %s was closed before Start", ErrClosed, c.root)
	}
	if err := ctx.Err(); err != nil {
		return err
	}
	unwatch, err := c.client.AddWatchListener(c.root, c.notified)
	if err != nil {
		return err
	}
	unlisten, err := c.client.AddConnectionStateListener(c.connectionChanged)
	if err != nil {
		unwatch()
		return err
	}
	c.unwatch, c.unlisten = unwatch, unlisten
	wctx, cancel := context.WithCancel(ctx)
	c.stop = cancel
	c.state = started
	c.loadStart = time.Now()
	c.session = c.client.SessionID()
	c.ctx = wctx
	gen := c.q.newGeneration()
	if c.opts.persistent {
		c.persistent.Store(true)
		c.armLocked(func() { c.q.add(key{c.root, dataRead}, gen) })
	} else {
		c.q.add(key{c.root, dataRead}, gen)
	}
	for range c.opts.workers {
		c.wg.Add(1)
		go c.work(wctx)
	}
	c.stopAfter = context.AfterFunc(ctx, func() { _ = c.Close() })
	return nil
}

// Close stops the cache's goroutines, after delivering the events already
// queued to the listeners. It removes nothing from ZooKeeper; the watches
// the cache set stay until they fire. Close is idempotent (a later call
// waits for the first to finish and returns nil), and a cache closed
// before Start never starts. Called from a listener, Close does not wait
// for the listeners' goroutine, which stops once the listener has returned
// and the events queued before Close have been delivered.
func (c *Cache) Close() error {
	c.mu.Lock()
	if c.state == closed {
		c.mu.Unlock()
		<-c.closed
		return nil
	}
	wasStarted := c.state == started
	c.state = closed
	if c.stale {
		c.report.stale(c.staleSince) // the span ends with the cache
	}
	c.mu.Unlock()
	if wasStarted {
		c.stopAfter()
		c.unwatch()
		c.unlisten()
		c.stop()
		c.wg.Wait()
		c.disarm()
	}
	c.listeners.Close()
	close(c.closed)
	return nil
}

// Initialized returns a channel closed once the first full load is done.
func (c *Cache) Initialized() <-chan struct{} { return c.initialized }

// IsStale reports whether the connection was suspended or lost and the
// cache has not been read again since (Stale until Resynced).
func (c *Cache) IsStale() bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.stale
}

// Get returns the cached node at path (never the cache's own node in a
// cache made WithChildrenOnly).
func (c *Cache) Get(path string) (Node, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	e := c.nodes[path]
	if e == nil || c.hidden(path) {
		return Node{}, false
	}
	return e.node(), true
}

// hidden reports whether path is the cache's own node in a cache made
// WithChildrenOnly, which it holds (for the listing of its children) but
// never shows.
func (c *Cache) hidden(path string) bool { return c.opts.childrenOnly && path == c.root }

// Children returns the names of the cached children of path, sorted.
func (c *Cache) Children(path string) []string {
	c.mu.Lock()
	defer c.mu.Unlock()
	e := c.nodes[path]
	if e == nil {
		return nil
	}
	var names []string
	for _, name := range e.children {
		if c.nodes[framework.JoinPath(path, name)] != nil {
			names = append(names, name)
		}
	}
	return names
}

// Len returns how many nodes the cache holds.
func (c *Cache) Len() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.lenLocked()
}

func (c *Cache) lenLocked() int {
	if c.nodes[c.root] != nil && c.hidden(c.root) {
		return len(c.nodes) - 1
	}
	return len(c.nodes)
}

// Snapshot returns every cached node, sorted by path.
func (c *Cache) Snapshot() []Node {
	c.mu.Lock()
	out := make([]Node, 0, len(c.nodes))
	for path, e := range c.nodes {
		if !c.hidden(path) {
			out = append(out, e.node())
		}
	}
	c.mu.Unlock()
	slices.SortFunc(out, func(a, b Node) int { return strings.Compare(a.Path, b.Path) })
	return out
}

// notified is the client's watch listener: it runs on the connection's
// goroutine, so it only queues the read the notification calls for.
func (c *Cache) notified(ev framework.WatchEvent) {
	if ev.Type == framework.EventWatchReset {
		if ev.Path == c.root && c.persistent.Load() {
			c.watchReset()
		}
		return
	}
	if c.persistent.Load() {
		c.notifiedPersistent(ev)
		return
	}
	switch ev.Type {
	case framework.EventNodeDataChanged, framework.EventNodeDeleted:
		c.q.add(key{ev.Path, dataRead}, 0)
	case framework.EventNodeChildrenChanged:
		c.q.add(key{ev.Path, childrenRead}, 0)
	case framework.EventNodeCreated:
		c.q.add(key{ev.Path, dataRead}, 0)
	}
	// EventNotWatching: the session ended or the client closed; the
	// connection state says which, and a resync follows a new session.
}

// connectionChanged marks the cache stale at an error state and reads
// every node again after a reconnect or a new session.
func (c *Cache) connectionChanged(s listener.ConnectionState) {
	switch s {
	case listener.Suspended, listener.Lost:
		c.mu.Lock()
		if c.state == started {
			c.staleLocked()
		}
		c.mu.Unlock()
	case listener.Connected:
		c.mu.Lock()
		c.session = c.client.SessionID()
		c.mu.Unlock()
	case listener.Reconnected:
		c.mu.Lock()
		defer c.mu.Unlock()
		if c.state != started {
			return
		}
		// On the same session the watches survive (go-zookeeper sets them
		// again, and the server fires those whose nodes changed), so the
		// resync only checks; a new session has none, and sets them anew.
		// A persistent watch goes with its connection: it is set again
		// first, and everything read after it.
		session := c.client.SessionID()
		watch := session == 0 || session != c.session
		c.session = session
		if c.resyncStart.IsZero() {
			c.resyncStart = time.Now()
		}
		if c.persistent.Load() {
			c.rearmLocked()
			return
		}
		c.resyncLocked(watch)
	}
}

// staleLocked marks the cache stale, as of the load generation under way;
// c.mu is held.
func (c *Cache) staleLocked() {
	c.armSeq++
	c.staleGen = c.q.current()
	if !c.stale {
		c.stale, c.staleSince, c.resyncChanges = true, time.Now(), 0
		c.post(Event{Type: Stale})
	}
}

// resyncLocked starts a load generation that reads every cached node
// again, with a watch or, watch false, as a check; c.mu is held. The reads
// are queued with the generation in one step, so no read applied meanwhile
// can end the generation before they are.
func (c *Cache) resyncLocked(watch bool) {
	reads := make([]queuedRead, 0, len(c.nodes)+1)
	var lists []queuedRead // queued after the data reads, which then go out together (nextBatch)
	ask := func(k key, w bool) {
		if k.kind == childrenRead {
			lists = append(lists, queuedRead{k, w})
		} else {
			reads = append(reads, queuedRead{k, w})
		}
	}
	if c.nodes[c.root] == nil {
		ask(key{c.root, dataRead}, watch) // else the loop asks for it: asked twice, it could be made twice
	}
	var buf []byte
	for path, e := range c.nodes {
		for name := range e.gone {
			// A read still under way from before the resync keeps its
			// mark: what it found may be the node the listing saw gone.
			// The others go (a read that failed leaves a mark no reply
			// would take).
			if !c.q.pending(key{framework.JoinPath(path, name), dataRead}) {
				delete(e.gone, name)
			}
		}
		ask(key{path, dataRead}, watch)
		switch {
		case !c.listable(e):
		case c.persistent.Load():
			// The data read's stat says whether to list it again
			// (settleChildrenLocked). A listed child the cache lacks is
			// read again: its read failed, or is under way and may have
			// gone out before the watch was set again (asked for again
			// while in flight, a read is made again once applied), and
			// no listing of its parent may follow to find it.
			// A directory that lost a child since its last listing
			// (e.deleted) is listed by its data read's settle (its
			// Pzxid moved past the deletion), which reads every child
			// it lacks: the names its deleted children left are not
			// read one by one.
			if e.deleted == 0 {
				buf = c.readMissingLocked(e, buf, func(child string) { ask(key{child, dataRead}, watch) })
			}
		case e.children == nil: // never listed: no child watch to survive
			ask(key{path, childrenRead}, true)
		case watch: // a new session: every child watch set anew
			ask(key{path, childrenRead}, true)
		default:
			// The same session: the child watch survived, and fired if the
			// children changed since it was set. The data check's Pzxid
			// says whether to check the listing too (applyData); a listed
			// child the cache lacks is checked.
			buf = c.readMissingLocked(e, buf, func(child string) { ask(key{child, dataRead}, false) })
		}
	}
	c.q.regenerate(append(reads, lists...))
}

// readMissingLocked calls read with the path of each child that e's
// listing names and the cache lacks; buf is scratch space, returned for
// the next call, so that the children the cache holds cost no allocation.
func (c *Cache) readMissingLocked(e *entry, buf []byte, read func(child string)) []byte {
	for _, name := range e.children {
		buf = append(buf[:0], e.path...)
		if e.path != "/" {
			buf = append(buf, '/')
		}
		buf = append(buf, name...)
		if c.nodes[string(buf)] == nil {
			read(string(buf))
		}
	}
	return buf
}

// depthOf returns how many levels path is below the cache's root, or -1
// if it is not under it.
func (c *Cache) depthOf(path string) int {
	switch {
	case path == c.root:
		return 0
	case c.root == "/":
		return strings.Count(path, "/")
	case strings.HasPrefix(path, c.root+"/"):
		return strings.Count(path[len(c.root):], "/")
	}
	return -1
}
