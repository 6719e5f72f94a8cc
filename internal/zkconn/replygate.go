package zkconn

import (
	"sync"
	"time"

	"github.com/gocurator/curator/internal/zkwire"
)

// gateLimit bounds how long a reply gate holds replies: a safety net, for a
// setWatches that never comes (the watch table's set of Listened watches
// can keep a kind go-zookeeper has fired: see watchTable.listen).
// Building setWatches takes go-zookeeper a few milliseconds for thousands
// of watches.
const gateLimit = 250 * time.Millisecond

// replyGate holds a connection's replies back until go-zookeeper has
// written its setWatches request.
//
// Why: after a reconnect, go-zookeeper builds the setWatches request on its
// connect goroutine, reading its last zxid seen without a lock, while its
// receive loop, already running, writes that zxid for every reply
// (go-zookeeper v1.0.4, conn.go sendSetWatches and recvLoop; its issue
// samuel/go-zookeeper#260, and the unmerged go-zookeeper/zk#35): a data
// race. The setWatches request is queued only after that loop, so a reply
// read after it is written is read after the loop. Watch notifications,
// pings and auth replies go through: they write no zxid, or are awaited
// before go-zookeeper sends anything else.
type replyGate struct {
	timedGate
	mu     sync.Mutex
	authed map[int32]bool // xids of the auth requests written since the gate closed
}

// newReplyGate returns a closed gate that opens by itself after limit.
func newReplyGate(limit time.Duration) *replyGate {
	g := &replyGate{authed: make(map[int32]bool)}
	g.start(limit)
	return g
}

// written looks at a request go-zookeeper wrote: a setWatches opens the
// gate, and an auth request's reply may pass.
func (g *replyGate) written(xid, op int32) {
	switch op {
	case zkwire.OpSetWatches:
		g.release()
	case zkwire.OpSetAuth:
		g.mu.Lock()
		g.authed[xid] = true
		g.mu.Unlock()
	}
}

// mayPass reports whether a reply with this xid may be read while the gate
// is closed.
func (g *replyGate) mayPass(xid int32) bool {
	if xid < 0 {
		return true // a notification, a ping's or setWatches' reply: no zxid is written for them
	}
	g.mu.Lock()
	defer g.mu.Unlock()
	return g.authed[xid]
}

// wait waits until the gate opens or done is closed.
func (g *replyGate) wait(done <-chan struct{}) {
	select {
	case <-g.open:
	case <-done:
	}
}
