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
// that reply: a data race (its other calls return without the reply then).
// The receive loop ends before go-zookeeper answers the calls it had sent
// with ErrConnectionClosed, so Close, when such a call is in flight, first
// takes the transport away and waits for the receive loop to end, and only
// then closes go-zookeeper's connection; it ends the session over a
// connection of its own, as the close request can no longer go out on the
// session's. See quiesce.

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
		c.mu.Unlock()
	}()
	return f()
}

// quiesce ends go-zookeeper's receive loop before Close closes its
// connection, then closes the session hs. Close has set closed, so the
// dialer refuses the reconnect. Each wait is bounded by the connection
// timeout; the session, if it cannot be closed, expires on its own.
func (c *Client) quiesce(hs handshake) {
	c.dropConnections()
	t := time.NewTimer(c.cfg.connectionTimeout)
	defer t.Stop()
	select {
	case <-c.recv.ended():
	case <-t.C:
		c.log.Warn("receive loop did not end after the connection was dropped")
	}
	if hs.id == 0 {
		return
	}
	ctx, cancel := context.WithTimeout(context.Background(), c.cfg.connectionTimeout)
	defer cancel()
	if err := c.closeSession(ctx, hs); err != nil {
		c.log.Warn("closing the session failed; it will expire", "session", fmt.Sprintf("%#x", hs.id), "err", err)
	}
}

// recvLoop follows, from go-zookeeper's state events, whether its receive
// loop runs: from StateHasSession, after which it starts, to the next
// StateDisconnected, which go-zookeeper sets only once it has ended.
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
	case s == zk.StateHasSession && !r.live:
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
