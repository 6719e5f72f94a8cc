package zkconn

import (
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"github.com/go-zookeeper/zk"
)

// Watch is a one-shot watch that a read set. Done is closed once it fired;
// Event then says what it saw.
//
// go-zookeeper hands each watching call a channel of its own event type,
// which nothing outside this package may see, and converting that channel
// would cost a goroutine per watch. So the Conn keeps its own table of
// watches (watchTable), fed by go-zookeeper's event callback, and uses
// go-zookeeper's channel only to settle the one case the callback cannot
// tell (see watchTable.confirm).
type Watch struct {
	t     *watchTable
	path  string // as sent
	kind  watchKind
	state watchState // guarded by t.mu, as are the fields below
	early uint64     // the read clock at a notification for path while the request was out; 0: none
	typ   EventType
	err   error
	done  chan struct{} // made by Done or when the watch fires, whichever comes first
}

type watchKind uint8

// WatchMode says whether a read sets a watch, and who hears it fire.
type WatchMode uint8

// The watch modes.
const (
	NoWatch  WatchMode = iota // the read sets no watch
	Watched                   // a watch, returned as a *Watch; Config.OnWatch hears it too
	Listened                  // a watch kept as no *Watch; Config.OnWatch hears it
)

// go-zookeeper's kinds of watch: a notification fires the kinds its type
// names (conn.go's notifyWatches).
const (
	kindData watchKind = iota + 1
	kindExist
	kindChild
)

type watchState uint8

const (
	watchPending watchState = iota // its request is out
	watchSet                       // go-zookeeper holds it
	watchFired
)

// Done returns a channel that is closed once the watch has fired.
func (w *Watch) Done() <-chan struct{} {
	w.t.mu.Lock()
	defer w.t.mu.Unlock()
	if w.done == nil {
		w.done = make(chan struct{})
		if w.state == watchFired {
			close(w.done)
		}
	}
	return w.done
}

// Event returns what the watch saw, once Done is closed; ok is false before.
func (w *Watch) Event() (ev Event, ok bool) {
	w.t.mu.Lock()
	defer w.t.mu.Unlock()
	return Event{Type: w.typ, Path: w.path, Err: w.err}, w.state == watchFired
}

// watchTable holds the watches that go-zookeeper holds, as its own table
// does (conn.go's watchers: one per successful watching call, by path and
// kind; a notification fires and forgets the kinds its type names; an
// expiry or close fires all with NotWatching), and the ones whose request
// is out.
type watchTable struct {
	clock   *readClock
	closing <-chan struct{} // closed when the Conn closes: no wait on the clock outlives it

	reading atomic.Int64 // watching reads under way: go-zookeeper may hold their watch before they return

	removals atomic.Int32 // persistent watch removals under way (beginRemoval)

	mu       sync.Mutex
	paths    map[string][]*Watch
	set      int                  // watches in watchSet
	listened map[string]watchBits // the kinds of Listened watches go-zookeeper holds, by path
	removed  chan struct{}        // closed when the removals under way have ended; nil: none is
}

// watchBits is a set of watch kinds, a bit for each.
type watchBits uint8

func (k watchKind) bit() watchBits { return 1 << k }

// watching runs read, a go-zookeeper call that sets a watch on path if it
// succeeds, and reports the watch as mode asks: a Watched one as a *Watch,
// a Listened one in the table's listened set only, which costs a map
// entry per path rather than a Watch per watch.
//
// The read counts as a watch go-zookeeper may hold (any) from before it is
// sent until its watch is recorded: go-zookeeper registers the watch as it
// reads the reply, and a reconnect may come before the caller records it.
func (t *watchTable) watching(path string, mode WatchMode, read func() (<-chan zk.Event, watchKind, error)) (*Watch, error) {
	t.reading.Add(1)
	defer t.reading.Add(-1)
	t.awaitRemovals()
	if mode == Listened {
		zch, kind, err := read()
		if err == nil {
			t.listen(path, kind, zch)
		}
		return nil, err
	}
	w := t.pending(path)
	zch, kind, err := read()
	if err != nil {
		t.drop(w)
		return nil, err
	}
	t.confirm(w, kind, zch)
	return w, nil
}

// listen records a Listened watch of kind on path whose request succeeded,
// unless go-zookeeper has fired it already (zch holds its event).
//
// The set only tells any whether go-zookeeper may hold a watch, so it errs
// one way only: a notification that fires the watch in the moment between
// the reply and this record, after notify ran and before go-zookeeper fed
// zch, leaves the kind recorded until the path's next notification of
// that kind, if one comes, or the session's end (sessionEnded). That costs
// at most replies held back for gateLimit after a reconnect; a watch
// missing from the set would let go-zookeeper's data race through.
func (t *watchTable) listen(path string, kind watchKind, zch <-chan zk.Event) {
	select {
	case <-zch:
		return
	default:
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.listened == nil {
		t.listened = make(map[string]watchBits)
	}
	t.listened[path] |= kind.bit()
}

// settleLimit bounds confirm's wait for go-zookeeper to finish with a
// notification. The receive loop asks for its next frame microseconds
// after it; an expiry's NotWatching comes from the connect loop instead,
// which may not read again for a while.
const settleLimit = time.Second

// pending adds a watch for path before its request goes out: every
// notification for path that arrives from here on is seen, by the watch
// itself once it is set, or as a mark for confirm to settle.
func (t *watchTable) pending(path string) *Watch {
	w := &Watch{t: t, path: path}
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.paths == nil {
		t.paths = make(map[string][]*Watch)
	}
	t.paths[path] = append(t.paths[path], w)
	return w
}

// drop removes a watch whose request failed: go-zookeeper set none.
func (t *watchTable) drop(w *Watch) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.remove(w)
}

// confirm marks w set, of kind, once its request succeeded; zch is the
// channel go-zookeeper made for the same watch.
//
// A notification for w's path may have been read while the request was
// out. Sent before the reply, it was for a watch set earlier and does not
// fire w; sent after it, it does, and go-zookeeper, which registers zch as
// it reads the reply, has sent it to zch, or is about to: its callback
// (our notify) runs just before it feeds its own channels. So zch settles
// it, once go-zookeeper is done with that notification, which the read
// clock tells: the receive loop reads its next frame only after it.
func (t *watchTable) confirm(w *Watch, kind watchKind, zch <-chan zk.Event) {
	t.mu.Lock()
	w.kind, w.state = kind, watchSet
	t.set++
	early := w.early
	if t.fireFrom(w, zch) || early == 0 {
		t.mu.Unlock()
		return
	}
	t.mu.Unlock()
	limit := time.NewTimer(settleLimit)
	defer limit.Stop()
	t.clock.waitPast(early, limit.C, t.closing)
	t.mu.Lock()
	defer t.mu.Unlock()
	if w.state == watchSet {
		t.fireFrom(w, zch)
	}
}

// fireFrom fires w with the event go-zookeeper sent to zch, if it has;
// t.mu is held.
func (t *watchTable) fireFrom(w *Watch, zch <-chan zk.Event) bool {
	select {
	case ev, ok := <-zch:
		if ok {
			t.fire(w, eventOf(ev))
			return true
		}
	default:
	}
	return false
}

// notify handles a notification, on go-zookeeper's goroutines; it never
// blocks.
func (t *watchTable) notify(ev Event) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if bits, ok := t.listened[ev.Path]; ok {
		for _, k := range [...]watchKind{kindData, kindExist, kindChild} {
			if fires(ev.Type, k) {
				bits &^= k.bit()
			}
		}
		if bits == 0 {
			delete(t.listened, ev.Path)
		} else {
			t.listened[ev.Path] = bits
		}
	}
	list := t.paths[ev.Path]
	for i := 0; i < len(list); {
		w := list[i]
		switch {
		case w.state == watchPending:
			if w.early == 0 {
				w.early = t.clock.now()
			}
		case fires(ev.Type, w.kind):
			t.fire(w, ev) // removes w from list
			list = t.paths[ev.Path]
			continue
		}
		i++
	}
}

// fires reports whether a notification of type typ fires a watch of kind.
func fires(typ EventType, kind watchKind) bool {
	switch typ {
	case NotWatching, NodeDeleted:
		return true
	case NodeCreated:
		return kind == kindExist
	case NodeDataChanged:
		return kind == kindExist || kind == kindData
	case NodeChildrenChanged:
		return kind == kindChild
	}
	return false
}

// fire records ev on w, wakes its waiters and forgets it; t.mu is held.
func (t *watchTable) fire(w *Watch, ev Event) {
	w.typ, w.err = ev.Type, ev.Err
	if w.done != nil {
		close(w.done)
	}
	t.remove(w)
	w.state = watchFired
}

// remove takes w out of the table; t.mu is held.
func (t *watchTable) remove(w *Watch) {
	list := t.paths[w.path]
	i := slices.Index(list, w)
	if i < 0 {
		return
	}
	if w.state == watchSet {
		t.set--
	}
	if len(list) == 1 {
		delete(t.paths, w.path)
	} else {
		t.paths[w.path] = slices.Delete(list, i, i+1)
	}
}

// beginRemoval begins a removal of a persistent watch on path that must
// not take off a one-shot watch with it (RemoveWatch), and reports which
// kinds of one-shot watch go-zookeeper may hold on path, as oneShotKinds.
// A watching read that begins from here on waits for endRemoval before it
// is sent, so it cannot reach the server before the removal and be taken
// off by it.
func (t *watchTable) beginRemoval(path string) (data, children bool) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.removals.Add(1) == 1 {
		t.removed = make(chan struct{})
	}
	return t.oneShotKindsLocked(path) // after the count above: see awaitRemovals
}

// oneShotKinds reports which kinds of one-shot watch go-zookeeper may hold
// on path: a data or exists watch (data), a children watch (children). A
// watching read under way, on any path, counts as both.
func (t *watchTable) oneShotKinds(path string) (data, children bool) {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.oneShotKindsLocked(path)
}

func (t *watchTable) oneShotKindsLocked(path string) (data, children bool) {
	if t.reading.Load() > 0 {
		return true, true
	}
	bits := t.listened[path]
	for _, w := range t.paths[path] {
		if w.state == watchPending {
			return true, true
		}
		bits |= w.kind.bit()
	}
	return bits&(kindData.bit()|kindExist.bit()) != 0, bits&kindChild.bit() != 0
}

// endRemoval ends a removal that beginRemoval began, and lets the watching
// reads that wait for it go.
func (t *watchTable) endRemoval() {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.removals.Add(-1) == 0 {
		close(t.removed)
		t.removed = nil
	}
}

// awaitRemovals waits, for a watching read already counted in reading,
// until no removal is under way. The read counts itself before it looks,
// and a removal counts itself before it looks at the reads, so either the
// read waits or the removal sees it.
func (t *watchTable) awaitRemovals() {
	for t.removals.Load() > 0 {
		t.mu.Lock()
		ch := t.removed
		t.mu.Unlock()
		if ch == nil {
			return
		}
		<-ch
	}
}

// any reports whether go-zookeeper may hold a watch, and so set watches
// again when it reconnects.
func (t *watchTable) any() bool {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.set > 0 || t.reading.Load() > 0 || len(t.listened) > 0
}

// sessionEnded forgets the Listened watches: go-zookeeper has dropped every
// watch of the session. Its NotWatching notifications clear the kinds it
// held; this also clears the kinds recorded for watches that had fired
// unseen (see listen), which no notification would clear.
func (t *watchTable) sessionEnded() {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.listened = nil
}
