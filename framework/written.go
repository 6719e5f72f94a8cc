package framework

import (
	"bytes"
	"encoding/binary"
	"slices"
	"sync"
	"sync/atomic"
)

// writeWatch tells operations when their request has gone to the
// connection. go-zookeeper's send loop writes one request at a time in the
// order it was queued, so once a request is written, any request queued
// after it is sent, and answered, after it. A request is recognised by a
// path it carries, encoded as on the wire.
type writeWatch struct {
	n       atomic.Int32 // len(waiting), read without the lock on every write
	mu      sync.Mutex
	waiting []*writeWaiter
}

type writeWaiter struct {
	marker []byte
	fn     func()
}

// add calls fn once a request carrying path is written, and returns a func
// that stops waiting.
func (w *writeWatch) add(path string, fn func()) (remove func()) {
	marker := binary.BigEndian.AppendUint32(make([]byte, 0, 4+len(path)), uint32(len(path)))
	ww := &writeWaiter{marker: append(marker, path...), fn: fn}
	w.mu.Lock()
	w.waiting = append(w.waiting, ww)
	w.n.Store(int32(len(w.waiting)))
	w.mu.Unlock()
	return func() { w.take(ww) }
}

// take removes ww and reports whether it was still waiting.
func (w *writeWatch) take(ww *writeWaiter) bool {
	w.mu.Lock()
	defer w.mu.Unlock()
	if i := slices.Index(w.waiting, ww); i >= 0 {
		w.removeAt(i)
		return true
	}
	return false
}

// removeAt removes the waiter at i; w.mu is held.
func (w *writeWatch) removeAt(i int) {
	last := len(w.waiting) - 1
	w.waiting[i] = w.waiting[last]
	w.waiting[last] = nil
	w.waiting = w.waiting[:last]
	w.n.Store(int32(last))
}

// written is called with each buffer the connection is about to write.
func (w *writeWatch) written(b []byte) {
	if w.n.Load() == 0 {
		return
	}
	var fire []func()
	w.mu.Lock()
	for i := 0; i < len(w.waiting); {
		ww := w.waiting[i]
		if !bytes.Contains(b, ww.marker) {
			i++
			continue
		}
		fire = append(fire, ww.fn)
		w.removeAt(i)
	}
	w.mu.Unlock()
	for _, fn := range fire {
		fn()
	}
}
