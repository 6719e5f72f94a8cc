package zkconn

// Requests of the transport's own: the few that go-zookeeper v1.0.4 cannot
// send (addWatch, removeWatches). The transport writes such a request on
// the connection go-zookeeper is using, between go-zookeeper's own writes,
// with an xid go-zookeeper never uses (at or below zkwire.OwnXidLimit), and
// takes the reply out of the stream before go-zookeeper reads it. A
// request goes only on a connection whose handshake gave a session; the
// watches it sets live as long as that connection, and the server drops
// them with it: a caller sets them again after a reconnect.

import (
	"cmp"
	"context"
	"fmt"
	"io"
	"sync"

	"github.com/gocurator/curator/internal/zkerr"
	"github.com/gocurator/curator/internal/zkwire"
)

// ownReplyLimit is the longest reply to an own request read when the
// connection sets no MaxReplySize (the framework always sets one): the
// size of go-zookeeper's first read buffer. A longer one is skipped, and
// its request fails with zkerr.ReplyTooLarge.
const ownReplyLimit = 1536 << 10

// ownReplies are a connection's own requests waiting for their replies.
type ownReplies struct {
	mu      sync.Mutex
	waiting map[int32]chan []byte // by xid; closed unanswered when the connection closes
	failed  bool                  // the connection closed: no request waits any more
}

// expect registers xid; it returns nil once the connection has closed.
func (o *ownReplies) expect(xid int32) chan []byte {
	o.mu.Lock()
	defer o.mu.Unlock()
	if o.failed {
		return nil
	}
	if o.waiting == nil {
		o.waiting = make(map[int32]chan []byte)
	}
	ch := make(chan []byte, 1)
	o.waiting[xid] = ch
	return ch
}

// forget drops xid's wait: a reply that comes later is read and dropped.
func (o *ownReplies) forget(xid int32) {
	o.mu.Lock()
	defer o.mu.Unlock()
	delete(o.waiting, xid)
}

// deliver hands a reply frame to its request, if it still waits.
func (o *ownReplies) deliver(xid int32, frame []byte) {
	o.mu.Lock()
	defer o.mu.Unlock()
	if ch, ok := o.waiting[xid]; ok {
		ch <- frame
		delete(o.waiting, xid)
	}
}

// fail ends every wait: the connection closed.
func (o *ownReplies) fail() {
	o.mu.Lock()
	defer o.mu.Unlock()
	o.failed = true
	for xid, ch := range o.waiting {
		close(ch)
		delete(o.waiting, xid)
	}
}

// nextOwnXid returns the next xid for an own request: from
// zkwire.OwnXidLimit down, and round again before the int32 range ends.
func (t *transport) nextOwnXid() int32 {
	n := t.ownXid.Add(1) % (1 << 29)
	return zkwire.OwnXidLimit - int32(n)
}

// request sends the frame build makes for an xid on the connection in use
// and returns its reply frame (length prefix included; ownCode reads its
// error code). With no connection that has a session, or one that closes
// before the reply, it returns zkerr.ConnectionLoss; if ctx ends first,
// ctx's error (the request may have taken effect).
func (t *transport) request(ctx context.Context, build func(xid int32) []byte) ([]byte, error) {
	t.mu.Lock()
	tc := t.latest
	t.mu.Unlock()
	if tc == nil || !tc.session.Load() {
		return nil, fmt.Errorf("%w: not connected", zkerr.ConnectionLoss)
	}
	if g := tc.ownGate.Load(); g != nil {
		select { // behind go-zookeeper's auth and watches: see ownGate
		case <-g.open:
		case <-tc.closed:
			return nil, fmt.Errorf("%w: the connection closed", zkerr.ConnectionLoss)
		case <-ctx.Done():
			return nil, ctx.Err()
		}
	}
	xid := t.nextOwnXid()
	ch := tc.own.expect(xid)
	if ch == nil {
		return nil, fmt.Errorf("%w: the connection closed", zkerr.ConnectionLoss)
	}
	if err := tc.writeOwn(build(xid)); err != nil {
		tc.own.forget(xid)
		return nil, fmt.Errorf("%w: %w", zkerr.ConnectionLoss, err)
	}
	select {
	case frame, ok := <-ch:
		if !ok {
			return nil, fmt.Errorf("%w: the connection closed before the reply", zkerr.ConnectionLoss)
		}
		return frame, nil
	case <-ctx.Done():
		tc.own.forget(xid)
		return nil, ctx.Err()
	}
}

// writeOwn writes an own request's frame between go-zookeeper's writes. A
// write that fails closes the connection: part of the frame may have gone.
// It sets no deadline, which would change go-zookeeper's around its own
// writes: a write the network does not take waits until go-zookeeper's
// read timeout closes the connection.
func (c *trackedConn) writeOwn(frame []byte) error {
	c.wmu.Lock()
	_, err := c.Conn.Write(frame)
	c.wmu.Unlock()
	if err != nil {
		c.Close()
	}
	return err
}

// takeOwn reads a reply to an own request off the stream (its length is
// the frame's, prefix excluded) and hands it on; go-zookeeper never sees it.
// A reply longer than the connection accepts is skipped unheld, and its
// request is handed a reply header with the code replyTooLarge instead.
func (b *bufferedConn) takeOwn(xid int32, length int) error {
	var frame []byte
	if limit := cmp.Or(b.maxReply, ownReplyLimit); length > limit {
		var err error
		if frame, err = b.tooLarge(length); err != nil {
			return err
		}
	} else {
		frame = make([]byte, 4+length)
		if _, err := io.ReadFull(b.r, frame); err != nil {
			return err
		}
	}
	if _, zxid, _, ok := zkwire.ReplyHeader(frame); ok {
		for t := b.tc.t; ; {
			seen := t.ownZxid.Load()
			if zxid <= seen || t.ownZxid.CompareAndSwap(seen, zxid) {
				break
			}
		}
	}
	b.tc.own.deliver(xid, frame)
	return nil
}
