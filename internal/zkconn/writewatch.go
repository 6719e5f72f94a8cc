package zkconn

import (
	"slices"
	"sync"
	"sync/atomic"

	"github.com/gocurator/curator/internal/zkwire"
)

// WriteWatch tells operations when their create request has gone to the
// connection. go-zookeeper's send loop writes one request per Write, in the
// order the requests were queued, so once a request is written any request
// queued after it is sent, and answered, after it.
//
// A request is recognised by its frame: a positive xid (pings, auth and the
// re-sent watches have negative ones), a create or multi opcode, and the
// path it creates at that opcode's fixed offset (for a multi, its first
// op's path).
type WriteWatch struct {
	n       atomic.Int32 // number of waiters, read without the lock on every write
	mu      sync.Mutex
	waiting map[string][]*writeWaiter // by path
}

// writeWaiter is one Add. Written counts a call under way in calling from
// the moment it takes the waiter, so that remove can wait it out.
type writeWaiter struct {
	fn      func()
	calling sync.WaitGroup
}

// Add calls fn once a create request (or a multi whose first op is) for
// path has been written, and returns a func that stops waiting: it reports
// whether fn was still waiting (and so will not be called). If Written
// has taken fn, remove returns only once fn has returned.
func (w *WriteWatch) Add(path string, fn func()) (remove func() bool) {
	ww := &writeWaiter{fn: fn}
	w.mu.Lock()
	if w.waiting == nil {
		w.waiting = make(map[string][]*writeWaiter)
	}
	w.waiting[path] = append(w.waiting[path], ww)
	w.n.Add(1)
	w.mu.Unlock()
	return func() bool { return w.remove(path, ww) }
}

func (w *WriteWatch) remove(path string, ww *writeWaiter) bool {
	w.mu.Lock()
	list := w.waiting[path]
	i := slices.Index(list, ww)
	if i < 0 {
		w.mu.Unlock()
		ww.calling.Wait() // Written has taken it: wait until fn has returned
		return false
	}
	defer w.mu.Unlock()
	w.n.Add(-1)
	if len(list) == 1 {
		delete(w.waiting, path)
	} else {
		w.waiting[path] = slices.Delete(list, i, i+1)
	}
	return true
}

// Written is called with each buffer once it has been written.
func (w *WriteWatch) Written(b []byte) {
	if w.n.Load() == 0 {
		return
	}
	path, ok := zkwire.CreatedPath(b)
	if !ok {
		return
	}
	w.mu.Lock()
	list := w.waiting[string(path)] // no allocation for a map lookup
	if len(list) > 0 {
		delete(w.waiting, string(path))
		w.n.Add(-int32(len(list)))
	}
	for _, ww := range list {
		ww.calling.Add(1) // before w.mu is let go: a remove that misses ww waits for fn
	}
	w.mu.Unlock()
	for _, ww := range list {
		ww.fn()
		ww.calling.Done()
	}
}

// Pending returns the number of functions still waiting.
func (w *WriteWatch) Pending() int { return int(w.n.Load()) }
