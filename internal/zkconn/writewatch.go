package zkconn

import (
	"slices"
	"sync"
	"sync/atomic"

	"github.com/gocurator/curator/internal/zkwire"
)

// WriteNotice is closed once a request has been written to the connection.
// A request made on the same session after that is sent, and answered,
// after it: go-zookeeper sends a session's requests in order and ZooKeeper
// answers them in order (unless the connection drops in between and the
// request is sent again on the next one). It lets a caller pipeline a
// request behind another without waiting for the first one's answer.
type WriteNotice struct {
	once sync.Once
	ch   chan struct{}
}

// NewWriteNotice returns an open notice.
func NewWriteNotice() *WriteNotice { return &WriteNotice{ch: make(chan struct{})} }

// C returns the channel closed once the request has been written.
func (n *WriteNotice) C() <-chan struct{} { return n.ch }

func (n *WriteNotice) close() { n.once.Do(func() { close(n.ch) }) }

// writeWatch closes the notices of create requests once they have gone to
// the connection. go-zookeeper's send loop writes one request per Write, in
// the order the requests were queued.
//
// A request is recognised by its frame: a positive xid (pings, auth and the
// re-sent watches have negative ones), a create or multi opcode, and the
// path it creates at that opcode's fixed offset (for a multi, its first
// op's path). A concurrent create of the same path may close the notice
// instead; a protected create's path is its own.
type writeWatch struct {
	n       atomic.Int32 // number of notices waiting, read without the lock on every write
	mu      sync.Mutex
	waiting map[string][]*WriteNotice // by path
}

// add closes notice once a create request (or a multi whose first op is one)
// for path has been written. It returns a func that stops waiting; the
// caller calls it with whether the request was answered with success, and
// a success's notice is closed then if it is still open (its answer came
// before the send loop got to tell).
func (w *writeWatch) add(path string, notice *WriteNotice) (done func(succeeded bool)) {
	w.mu.Lock()
	if w.waiting == nil {
		w.waiting = make(map[string][]*WriteNotice)
	}
	w.waiting[path] = append(w.waiting[path], notice)
	w.n.Add(1)
	w.mu.Unlock()
	return func(succeeded bool) {
		w.remove(path, notice)
		if succeeded {
			notice.close()
		}
	}
}

func (w *writeWatch) remove(path string, notice *WriteNotice) {
	w.mu.Lock()
	defer w.mu.Unlock()
	list := w.waiting[path]
	i := slices.Index(list, notice)
	if i < 0 {
		return // written already
	}
	w.n.Add(-1)
	if len(list) == 1 {
		delete(w.waiting, path)
	} else {
		w.waiting[path] = slices.Delete(list, i, i+1)
	}
}

// written is called with each buffer once it has been written, on
// go-zookeeper's send loop; it only closes channels.
func (w *writeWatch) written(b []byte) {
	if w.n.Load() == 0 {
		return
	}
	path, ok := zkwire.CreatedPath(b)
	if !ok {
		return
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	list := w.waiting[string(path)] // no allocation for a map lookup
	if len(list) == 0 {
		return
	}
	delete(w.waiting, string(path))
	w.n.Add(-int32(len(list)))
	for _, n := range list {
		n.close()
	}
}

// pending returns the number of notices still waiting.
func (w *writeWatch) pending() int { return int(w.n.Load()) }
