package zkconn

import (
	"sync"
	"time"

	"github.com/gocurator/curator/internal/zkwire"
)

// ownGate holds the transport's own requests (addWatch, removeWatches,
// multiRead) on a new connection until go-zookeeper has written what it
// sends there first: its auth again (a setAuth for each credential it
// holds), then its watches again (setWatches). The server applies a
// session's requests in the order it reads them, and both must come first:
// a multiRead read before the auth is refused (NoAuth) for a node under a
// digest ACL, and a one-shot watch set again after an addWatch on its path
// takes the persistent watch's place on a server before 3.9. A caller
// waiting for the connection is woken the moment the session is back,
// before go-zookeeper sends either. The gate opens after ownGateLimit at
// the latest, a safety net for a frame that never comes.
type ownGate struct {
	timedGate
	mu      sync.Mutex
	auths   int  // setAuth frames still to come
	watches bool // a setWatches frame still to come
}

// ownGateLimit bounds how long an ownGate holds requests. go-zookeeper
// awaits each setAuth's reply before the next, and builds setWatches in a
// few milliseconds for thousands of watches.
const ownGateLimit = time.Second

// newOwnGate returns a closed gate that opens once auths setAuth frames
// and, if watches, a setWatches frame have been written.
func newOwnGate(auths int, watches bool) *ownGate {
	g := &ownGate{auths: auths, watches: watches}
	g.start(ownGateLimit)
	return g
}

// written looks at a request go-zookeeper wrote, and opens the gate once
// the last of what it sends first is written.
func (g *ownGate) written(op int32) {
	g.mu.Lock()
	switch op {
	case zkwire.OpSetAuth:
		g.auths--
	case zkwire.OpSetWatches:
		g.watches = false
	default:
		g.mu.Unlock()
		return
	}
	done := g.auths <= 0 && !g.watches
	g.mu.Unlock()
	if done {
		g.release()
	}
}
