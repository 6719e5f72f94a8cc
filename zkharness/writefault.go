package zkharness

import (
	"net"
	"os"
	"sync"
	"syscall"
	"time"

	"github.com/gocurator/curator/framework"
	"github.com/gocurator/curator/internal/zkwire"
)

// WriteFault fails a client's write to the socket on demand, as a peer that
// has gone away does: the write returns "write: broken pipe" (a
// *net.OpError wrapping syscall.EPIPE) and the connection is closed. The
// request was never sent. go-zookeeper hands such a raw error to the request
// whose write failed; give the client WriteFault.Dialer as its dialer.
type WriteFault struct {
	mu     sync.Mutex
	opcode int32 // 0: disarmed
	hit    chan struct{}
}

// NewWriteFault returns a fault that is not armed.
func NewWriteFault() *WriteFault { return &WriteFault{} }

// FailNext arms the fault: the next request written with this opcode (see
// the Op constants: OpDelete, OpMulti, ...) fails. The returned
// channel is closed once it has.
func (f *WriteFault) FailNext(opcode int32) <-chan struct{} {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.opcode = opcode
	f.hit = make(chan struct{})
	return f.hit
}

// Dialer wraps next (net.DialTimeout if nil) so that the fault applies to
// every connection it makes.
func (f *WriteFault) Dialer(next framework.Dialer) framework.Dialer {
	if next == nil {
		next = net.DialTimeout
	}
	return func(network, addr string, timeout time.Duration) (net.Conn, error) {
		c, err := next(network, addr, timeout)
		if err != nil {
			return nil, err
		}
		return &faultConn{Conn: c, f: f}, nil
	}
}

// take disarms the fault and reports whether a write of frame must fail.
// go-zookeeper writes one request per Write: length, xid, opcode, body.
func (f *WriteFault) take(frame []byte) (chan struct{}, bool) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if _, op, ok := zkwire.RequestHeader(frame); f.opcode == 0 || !ok || op != f.opcode {
		return nil, false
	}
	f.opcode = 0
	return f.hit, true
}

type faultConn struct {
	net.Conn
	f *WriteFault
}

func (c *faultConn) Write(b []byte) (int, error) {
	if hit, ok := c.f.take(b); ok {
		c.Conn.Close()
		close(hit)
		return 0, &net.OpError{Op: "write", Net: "tcp", Source: c.LocalAddr(), Addr: c.RemoteAddr(), Err: os.NewSyscallError("write", syscall.EPIPE)}
	}
	return c.Conn.Write(b)
}
