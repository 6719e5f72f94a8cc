package zkconn

import (
	"sync"
	"time"
)

// timedGate is a gate that opens once, for good: when release is called,
// or by itself after the limit start was given. It is what replyGate and
// ownGate share.
type timedGate struct {
	open  chan struct{} // closed when the gate opens
	once  sync.Once
	tmu   sync.Mutex
	timer *time.Timer
}

// start closes the gate, which opens by itself after limit.
func (g *timedGate) start(limit time.Duration) {
	g.open = make(chan struct{})
	g.tmu.Lock() // release reads g.timer under it
	g.timer = time.AfterFunc(limit, g.release)
	g.tmu.Unlock()
}

// release opens the gate for good.
func (g *timedGate) release() {
	g.once.Do(func() {
		g.tmu.Lock()
		t := g.timer
		g.tmu.Unlock()
		t.Stop()
		close(g.open)
	})
}
