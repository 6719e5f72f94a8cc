package zkconn

import (
	"context"
	"fmt"
	"sync"
	"time"

	"github.com/go-zookeeper/zk"
)

// go-zookeeper v1.0.4's CreateContainer and CreateTTL read their reply even
// when Close cut them short, while its receive loop may still be decoding
// that reply: a data race (the other calls the client makes return without
// the reply then; Reconfig, which it does not make, reads it too).
//
// So the client's Close, when such a call is in flight, first waits a
// little for it to return: a server that answers does so within
// milliseconds, and a call that has returned reads nothing more. A call
// still out then is cut off: the receive loop ends before go-zookeeper
// answers the calls it had sent with ErrConnectionClosed, so quiesce takes
// the connections away and waits for the receive loop to end, and only
// then may go-zookeeper's connection be closed; it ends the session over a
// connection of its own, as the close request can no longer go out on the
// session's.

// replyGuard counts the calls in flight that read their reply after Close.
type replyGuard struct {
	mu     sync.Mutex
	closed bool
	n      int
	done   chan struct{} // made by Close when calls are in flight; closed when the last returns
}

// run runs f, a call to CreateContainer or CreateTTL, counted. It refuses,
// with errClosed, once Close has been called: a call is counted before
// Close looks, or never sent.
func (g *replyGuard) run(f func() error) error {
	g.mu.Lock()
	if g.closed {
		g.mu.Unlock()
		return errClosed
	}
	g.n++
	g.mu.Unlock()
	defer func() {
		g.mu.Lock()
		g.n--
		if g.n == 0 && g.done != nil {
			close(g.done)
		}
		g.mu.Unlock()
	}()
	return f()
}

// Close refuses later calls and returns a channel closed when the calls in
// flight have returned, or nil if there are none.
func (g *replyGuard) close() <-chan struct{} {
	g.mu.Lock()
	defer g.mu.Unlock()
	g.closed = true
	if g.n == 0 {
		return nil
	}
	if g.done == nil {
		g.done = make(chan struct{})
	}
	return g.done
}

// replyGrace is how long quiesce waits for the calls in flight that read
// their reply after Close: a server that answers does so within
// milliseconds.
const replyGrace = time.Second

// closeSessionGrace bounds quiesce's close of the session, as go-zookeeper
// waits a second for the answer to its own close request.
const closeSessionGrace = time.Second

// quiesce makes it safe to close go-zookeeper's connection while calls that
// read their reply after Close are in flight; readersDone (from
// replyGuard.Close) is closed when the last of them returns. It waits
// replyGrace for them: once they have returned, nothing reads a reply Close
// could cut short, and go-zookeeper's Close goes on as usual (closing the
// session over its own connection). Calls still out then, on a silent
// server, are cut off: quiesce drops the connections (Close was called, so
// no dial follows) and waits for go-zookeeper's receive loop to end, then
// closes the session. The wait for the loop is bounded by the timeout (past
// it the race is possible again, and a warning says so); the close of the
// session by closeSessionGrace: a session that cannot be closed expires on
// its own.
//
// Cutting off is kept for the silent server: with the connection dropped,
// go-zookeeper's own close request can find its loop gone and wait a
// second for an answer that cannot come.
func (t *transport) quiesce(readersDone <-chan struct{}) {
	grace := time.NewTimer(replyGrace)
	select {
	case <-readersDone:
		grace.Stop()
		return
	case <-grace.C:
	}
	t.dropAll()
	timeout := time.NewTimer(t.cfg.Timeout)
	defer timeout.Stop()
	select {
	case <-t.loop.ended():
	case <-timeout.C:
		t.cfg.Log.Warn("receive loop did not end after the connection was dropped; a late reply may race with Close")
	}
	// Read only now: a handshake under way when Close began may have given
	// a new session (after an expiry, or on another server), and no
	// handshake can follow the end of the loop.
	hs := t.lastSession()
	if hs.ID == 0 {
		return
	}
	ctx, cancel := context.WithTimeout(context.Background(), closeSessionGrace)
	defer cancel()
	if err := t.closeSession(ctx, hs); err != nil {
		t.cfg.Log.Warn("closing the session failed; it will expire", "session", fmt.Sprintf("%#x", hs.ID), "err", err)
	}
}

// recvLoop follows, from go-zookeeper's state events, whether a connection
// of go-zookeeper's is in use: from StateConnected, set once a dial
// succeeded and before the handshake, to the next StateDisconnected, which
// go-zookeeper sets only once the handshake failed or its receive loop
// ended. Tracking from the dial covers a handshake under way, which may yet
// give a session.
type recvLoop struct {
	mu   sync.Mutex
	live bool
	done chan struct{} // closed when the live loop ends
}

// OnState is called with every session state, on go-zookeeper's goroutine.
func (r *recvLoop) onState(s zk.State) {
	r.mu.Lock()
	defer r.mu.Unlock()
	switch {
	case s == zk.StateConnected && !r.live:
		r.live, r.done = true, make(chan struct{})
	case s == zk.StateDisconnected && r.live:
		r.live = false
		close(r.done)
	}
}

// Ended returns a channel that is closed once no receive loop runs.
func (r *recvLoop) ended() <-chan struct{} {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.live {
		return r.done
	}
	done := make(chan struct{})
	close(done)
	return done
}
