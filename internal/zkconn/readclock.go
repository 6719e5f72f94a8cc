package zkconn

import (
	"sync"
	"sync/atomic"
	"time"
)

// readClock counts the frames go-zookeeper has started to read. Its receive
// loop handles one frame at a time, and asks for the next only once it is
// done with the one before: the notification it last read has then reached
// every watch it fires. The watch table waits on the clock for that (see
// watchTable.confirm).
type readClock struct {
	n       atomic.Uint64
	waiting atomic.Bool // someone waits for the next tick: tick must wake them

	mu   sync.Mutex
	next chan struct{} // closed at the next tick
}

// now returns the number of frames started so far.
func (c *readClock) now() uint64 { return c.n.Load() }

// tick counts a frame's start. It runs before every frame go-zookeeper
// reads, so its common path is an increment and a load.
func (c *readClock) tick() {
	c.n.Add(1)
	if !c.waiting.Load() {
		return
	}
	c.mu.Lock()
	if c.next != nil {
		close(c.next)
		c.next = nil
	}
	c.waiting.Store(false)
	c.mu.Unlock()
}

// waitPast waits until the clock has moved past t, and reports whether it
// did before limit or closing.
func (c *readClock) waitPast(t uint64, limit <-chan time.Time, closing <-chan struct{}) bool {
	for {
		c.mu.Lock()
		if c.next == nil {
			c.next = make(chan struct{})
		}
		c.waiting.Store(true) // before the load below: a tick either sees it or is seen
		past, next := c.n.Load() > t, c.next
		c.mu.Unlock()
		if past {
			return true
		}
		select {
		case <-next:
		case <-limit:
			return false
		case <-closing:
			return false
		}
	}
}
