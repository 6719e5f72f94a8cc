package zkconn

import (
	"bufio"
	"encoding/binary"
	"net"
)

// readBufferSize is the size of a connection's read buffer: a few replies
// and notifications, or the start of a large listing.
const readBufferSize = 16 << 10

// bufferedConn reads through a buffer. go-zookeeper reads each frame with
// two reads, its length and then its body; through the buffer one read
// from the socket usually brings both, and any frames behind them.
//
// It also follows the frames go-zookeeper reads, so that a reply gate (see
// replyGate) can hold a reply back at the frame's start.
type bufferedConn struct {
	net.Conn
	r         *bufio.Reader
	tc        *trackedConn // its reply gate, if any
	clock     *readClock   // told when go-zookeeper starts on a frame
	remaining int          // bytes of the current frame not yet read; 0 at a frame's start
}

func newBufferedConn(c net.Conn, tc *trackedConn, clock *readClock) *bufferedConn {
	return &bufferedConn{Conn: c, r: bufio.NewReaderSize(c, readBufferSize), tc: tc, clock: clock}
}

// Read reads at most to the end of the current frame. At a frame's start,
// it tells the read clock that go-zookeeper is done with the frame before,
// and waits while the connection's reply gate holds this one back.
func (b *bufferedConn) Read(p []byte) (int, error) {
	if b.remaining == 0 {
		b.clock.tick()
		hdr, err := b.r.Peek(8) // the length prefix and a reply's xid
		if err != nil {
			return b.r.Read(p) // what is there, or the error
		}
		b.remaining = 4 + int(binary.BigEndian.Uint32(hdr[:4]))
		if g := b.tc.gate.Load(); g != nil && !g.mayPass(int32(binary.BigEndian.Uint32(hdr[4:8]))) {
			g.wait(b.tc.closed)
		}
	}
	if len(p) > b.remaining {
		p = p[:b.remaining]
	}
	n, err := b.r.Read(p)
	b.remaining -= n
	return n, err
}
