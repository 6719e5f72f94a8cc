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
//
// The notices are kept in shards by path, so that the many goroutines of a
// client that holds many locks, and the send loop, which looks a path up on
// every write while any notice waits, seldom wait for one another.
type writeWatch struct {
	n      atomic.Int32 // number of notices waiting, read without a lock on every write
	shards [writeShards]writeShard
}

// writeShards is the number of the writeWatch's shards.
const writeShards = 16

type writeShard struct {
	mu      sync.Mutex
	waiting map[string][]*WriteNotice // by path
}

// shard returns the shard of path (FNV-1a).
func (w *writeWatch) shard(path string) *writeShard { return &w.shards[hashPath(path)%writeShards] }

// hashPath is FNV-1a, of a path as a string or as the bytes of a frame.
func hashPath[P string | []byte](path P) uint32 {
	h := uint32(2166136261)
	for i := 0; i < len(path); i++ {
		h = (h ^ uint32(path[i])) * 16777619
	}
	return h
}

// add closes notice once a create request (or a multi whose first op is one)
// for path has been written. It returns a func that stops waiting; the
// caller calls it with whether the request was answered with success, and
// a success's notice is closed then if it is still open (its answer came
// before the send loop got to tell).
func (w *writeWatch) add(path string, notice *WriteNotice) (done func(succeeded bool)) {
	s := w.shard(path)
	s.mu.Lock()
	if s.waiting == nil {
		s.waiting = make(map[string][]*WriteNotice)
	}
	s.waiting[path] = append(s.waiting[path], notice)
	w.n.Add(1)
	s.mu.Unlock()
	return func(succeeded bool) {
		w.remove(path, notice)
		if succeeded {
			notice.close()
		}
	}
}

func (w *writeWatch) remove(path string, notice *WriteNotice) {
	s := w.shard(path)
	s.mu.Lock()
	defer s.mu.Unlock()
	list := s.waiting[path]
	i := slices.Index(list, notice)
	if i < 0 {
		return // written already
	}
	w.n.Add(-1)
	if len(list) == 1 {
		delete(s.waiting, path)
	} else {
		s.waiting[path] = slices.Delete(list, i, i+1)
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
	s := &w.shards[hashPath(path)%writeShards]
	s.mu.Lock()
	defer s.mu.Unlock()
	list := s.waiting[string(path)] // no allocation for a map lookup
	if len(list) == 0 {
		return
	}
	delete(s.waiting, string(path))
	w.n.Add(-int32(len(list)))
	for _, n := range list {
		n.close()
	}
}

// pending returns the number of notices still waiting.
func (w *writeWatch) pending() int { return int(w.n.Load()) }
