package zkconn

import (
	"bufio"
	"encoding/binary"
	"net"

	"github.com/gocurator/curator/internal/zkwire"
)

// readBufferSize is the size of a connection's read buffer: a few replies
// and notifications, or the start of a large listing.
const readBufferSize = 16 << 10

// bufferedConn reads through a buffer. go-zookeeper reads each frame with
// two reads, its length and then its body; through the buffer one read
// from the socket usually brings both, and any frames behind them.
//
// It also follows the frames go-zookeeper reads: a reply gate (see
// replyGate) can hold a reply back at the frame's start, and a frame longer
// than maxReply is never handed on (see refuse).
type bufferedConn struct {
	net.Conn
	r         *bufio.Reader
	tc        *trackedConn // its reply gate, if any
	clock     *readClock   // told when go-zookeeper starts on a frame
	maxReply  int          // the longest frame body handed on; 0: no limit
	remaining int          // bytes of the current frame not yet read; 0 at a frame's start
	stand     []byte       // a frame standing in for a refused one, still to be read
}

func newBufferedConn(c net.Conn, tc *trackedConn, clock *readClock, maxReply int) *bufferedConn {
	return &bufferedConn{Conn: c, r: bufio.NewReaderSize(c, readBufferSize), tc: tc, clock: clock, maxReply: maxReply}
}

// Read reads at most to the end of the current frame. At a frame's start,
// it tells the read clock that go-zookeeper is done with the frame before,
// and waits while the connection's reply gate holds this one back.
func (b *bufferedConn) Read(p []byte) (int, error) {
	for b.remaining == 0 && len(b.stand) == 0 {
		b.clock.tick()
		hdr, err := b.r.Peek(8) // the length prefix and a reply's xid
		if err != nil {
			return b.r.Read(p) // what is there, or the error
		}
		length := int(binary.BigEndian.Uint32(hdr[:4]))
		if xid := int32(binary.BigEndian.Uint32(hdr[4:8])); xid <= zkwire.OwnXidLimit && b.tc != nil {
			if err := b.takeOwn(xid, length); err != nil {
				return 0, err
			}
			continue // the next frame: a run of own replies is read in this loop
		}
		if b.maxReply > 0 && length > b.maxReply {
			if err := b.refuse(length); err != nil {
				return 0, err
			}
			break
		}
		b.remaining = 4 + length
		if g := b.tc.gate.Load(); g != nil && !g.mayPass(int32(binary.BigEndian.Uint32(hdr[4:8]))) {
			g.wait(b.tc.closed)
		}
	}
	if len(b.stand) > 0 {
		n := copy(p, b.stand)
		b.stand = b.stand[n:]
		return n, nil
	}
	if len(p) > b.remaining {
		p = p[:b.remaining]
	}
	n, err := b.r.Read(p)
	b.remaining -= n
	return n, err
}

// refuse skips a reply frame longer than maxReply without holding it, and
// puts in its place a reply with the same xid and zxid and the error code
// replyTooLarge: go-zookeeper fails the request it answered with that code
// (the door says ErrReplyTooLarge), and the connection goes on. A frame
// whose length is a lie (more than the stream holds) leaves the read
// waiting for bytes that never come, until go-zookeeper's read deadline
// drops the connection: nothing is allocated either way. Java's client
// drops the connection at once, and the request is lost with it.
func (b *bufferedConn) refuse(length int) error {
	stand, err := b.tooLarge(length)
	if err != nil {
		return err
	}
	b.stand = stand
	return nil
}

// tooLarge skips the reply frame of this length at the stream's front
// without holding it, and returns the reply that stands in for it: its
// xid and zxid with the error code replyTooLarge.
func (b *bufferedConn) tooLarge(length int) ([]byte, error) {
	hdr, err := b.r.Peek(4 + 16) // length, xid, zxid, error code
	if err != nil {
		return nil, err
	}
	stand := make([]byte, 4+16)
	binary.BigEndian.PutUint32(stand, 16)
	copy(stand[4:16], hdr[4:16])
	code := int32(replyTooLarge)
	binary.BigEndian.PutUint32(stand[16:], uint32(code))
	if err := b.discard(4 + length); err != nil {
		return nil, err
	}
	return stand, nil
}

// discard skips the next n bytes of the stream without holding them.
func (b *bufferedConn) discard(n int) error {
	for n > 0 {
		d, err := b.r.Discard(min(n, readBufferSize))
		n -= d
		if err != nil {
			return err
		}
	}
	return nil
}
