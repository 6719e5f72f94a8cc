package framework

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
// So Close, when such a call is in flight, first waits a little for it to
// return: a server that answers does so within milliseconds, and a call
// that has returned reads nothing more. A call still out then is cut off:
// the receive loop ends before go-zookeeper answers the calls it had sent
// with ErrConnectionClosed, so Close takes the transport away and waits for
// the receive loop to end, and only then closes go-zookeeper's connection;
// it ends the session over a connection of its own, as the close request
// can no longer go out on the session's. See quiesce.

// readsReplyAfterClose runs f, a call to CreateContainer or CreateTTL,
// counted so that Close knows to quiesce first. It refuses to start once
// Close has begun: a call is counted before Close looks, or never sent.
func (c *Client) readsReplyAfterClose(f func() error) error {
	c.mu.Lock()
	if c.closed {
		c.mu.Unlock()
		return ErrClosed
	}
	c.replyReaders++
	c.mu.Unlock()
	defer func() {
		c.mu.Lock()
		c.replyReaders--
		if c.replyReaders == 0 && c.readersDone != nil {
			close(c.readersDone)
		}
		c.mu.Unlock()
	}()
	return f()
}

// quiesce makes it safe for Close to close go-zookeeper's connection while
// calls that read their reply after Close are in flight; readersDone is
// closed when the last of them returns. It waits replyGrace for them: once
// they have returned, nothing reads a reply Close could cut short, and
// Close goes on as usual (go-zookeeper then closes the session over its own
// connection). Calls still out then, on a silent server, are cut off: it
// ends go-zookeeper's receive loop before Close closes its connection, then
// closes the session. Close has set closed, so the dialer refuses the
// reconnect. The wait for the loop is bounded by the connection timeout
// (past it the race is possible again, and a warning says so); the close of
// the session by closeSessionGrace, as go-zookeeper bounds its own close
// request: a session that cannot be closed expires on its own.
//
// Cutting off is kept for the silent server: with the connection dropped,
// go-zookeeper's own close request can find its loop gone and wait a
// second for an answer that cannot come.
func (c *Client) quiesce(readersDone <-chan struct{}) {
	grace := time.NewTimer(replyGrace)
	select {
	case <-readersDone:
		grace.Stop()
		return
	case <-grace.C:
	}
	c.dropConnections()
	t := time.NewTimer(c.cfg.connectionTimeout)
	defer t.Stop()
	select {
	case <-c.recv.ended():
	case <-t.C:
		c.log.Warn("receive loop did not end after the connection was dropped; a late reply may race with Close")
	}
	// Read only now: a handshake under way when Close began may have given
	// a new session (after an expiry, or on another server), and no
	// handshake can follow the end of the loop.
	c.mu.Lock()
	hs := c.session
	c.mu.Unlock()
	if hs.id == 0 {
		return
	}
	ctx, cancel := context.WithTimeout(context.Background(), closeSessionGrace)
	defer cancel()
	if err := c.closeSession(ctx, hs); err != nil {
		c.log.Warn("closing the session failed; it will expire", "session", fmt.Sprintf("%#x", hs.id), "err", err)
	}
}

// replyGrace is how long Close waits for calls in flight that read their
// reply after Close: a server that answers does so within milliseconds.
const replyGrace = time.Second

// closeSessionGrace bounds quiesce's close of the session, as go-zookeeper
// waits a second for the answer to its own close request.
const closeSessionGrace = time.Second

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

// onState is called with every session state, on go-zookeeper's goroutine.
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

// ended returns a channel that is closed once no receive loop runs.
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
