package transport

import (
	"bufio"
	"net"
)

// readBufferSize is the size of a connection's read buffer: a few replies
// and notifications, or the start of a large listing.
const readBufferSize = 16 << 10

// bufferedConn reads through a buffer. go-zookeeper reads each frame with
// two reads, its length and then its body; through the buffer one read
// from the socket usually brings both, and any frames behind them.
type bufferedConn struct {
	net.Conn
	r *bufio.Reader
}

func newBufferedConn(c net.Conn) *bufferedConn {
	return &bufferedConn{Conn: c, r: bufio.NewReaderSize(c, readBufferSize)}
}

func (b *bufferedConn) Read(p []byte) (int, error) { return b.r.Read(p) }
