package zkharness

import (
	"encoding/binary"
	"net"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"github.com/gocurator/curator/framework"
	"github.com/gocurator/curator/internal/zkwire"
)

// Counter counts a client's traffic on the wire: the requests it sends
// (pings and session handshakes left out), the watch notifications it
// receives and the bytes it receives. Give the client Counter.Dialer as its
// dialer.
type Counter struct {
	requests      atomic.Int64
	notifications atomic.Int64
	bytesIn       atomic.Int64
	reads         atomic.Int64
	byOp          [maxCountedOp + 1]atomic.Int64
	multiReads    [maxCountedOp + 1]atomic.Int64 // the reads inside multiRead requests, by opcode

	mu         sync.Mutex
	pending    map[int32]string // OpCreateContainer requests not yet answered, by xid
	containers []string         // the paths of those the server made, in the order answered
}

// maxCountedOp is the highest opcode RequestsOf counts (ZooKeeper's
// opcodes run to 106).
const maxCountedOp = 127

// NewCounter returns a counter at zero.
func NewCounter() *Counter { return &Counter{} }

// Requests returns the requests sent so far.
func (c *Counter) Requests() int64 { return c.requests.Load() }

// RequestsOf returns the requests sent so far with this opcode (see
// the Op constants: OpGetData, OpGetChildren2, ...).
func (c *Counter) RequestsOf(opcode int32) int64 {
	if opcode < 0 || opcode > maxCountedOp {
		return 0
	}
	return c.byOp[opcode].Load()
}

// ReadsOf returns the reads of a kind (OpGetData, OpGetChildren) the client
// asked for so far: its requests with that opcode, and the reads of that
// kind its multiRead requests carried (framework.Client.MultiRead, and a
// cache's loads).
func (c *Counter) ReadsOf(opcode int32) int64 {
	if opcode < 0 || opcode > maxCountedOp {
		return 0
	}
	return c.byOp[opcode].Load() + c.multiReads[opcode].Load()
}

// ContainersCreated returns the paths of the containers the client made:
// its OpCreateContainer requests the server answered without an error, in
// the order answered, as the paths went on the wire (a chroot's prefix
// included, if the connect string had one).
func (c *Counter) ContainersCreated() []string {
	c.mu.Lock()
	defer c.mu.Unlock()
	return slices.Clone(c.containers)
}

// Notifications returns the watch notifications received so far.
func (c *Counter) Notifications() int64 { return c.notifications.Load() }

// BytesIn returns the bytes received so far, every frame counted.
func (c *Counter) BytesIn() int64 { return c.bytesIn.Load() }

// Reads returns how many reads from the connection returned data.
func (c *Counter) Reads() int64 { return c.reads.Load() }

// Dialer wraps next (net.DialTimeout if nil) so that every connection is
// counted.
func (c *Counter) Dialer(next framework.Dialer) framework.Dialer {
	if next == nil {
		next = net.DialTimeout
	}
	return func(network, addr string, timeout time.Duration) (net.Conn, error) {
		conn, err := next(network, addr, timeout)
		if err != nil {
			return nil, err
		}
		cc := &countingConn{Conn: conn, bytesIn: &c.bytesIn, reads: &c.reads}
		cc.out.s.OnFrame = func(p []byte) { // xid, opcode, ...
			if len(p) < 8 {
				return
			}
			if op := int32(binary.BigEndian.Uint32(p[4:8])); op != zkwire.OpPing {
				c.requests.Add(1)
				if op >= 0 && op <= maxCountedOp {
					c.byOp[op].Add(1)
				}
				switch op {
				case zkwire.OpCreateContainer:
					c.askedContainer(p)
				case zkwire.OpMultiRead:
					c.countMultiRead(p[8:])
				}
			}
		}
		cc.in.s.OnFrame = func(p []byte) { // xid, zxid, error, ...
			if len(p) < 4 {
				return
			}
			switch xid := int32(binary.BigEndian.Uint32(p[0:4])); {
			case xid == zkwire.NotificationXid:
				c.notifications.Add(1)
			case len(p) >= 16:
				c.answered(xid, int32(binary.BigEndian.Uint32(p[12:16])))
			}
		}
		return cc, nil
	}
}

// countMultiRead counts the reads of a multiRead request's body: each an
// operation header (opcode, done, error) and a path and a watch flag, to
// a header marked done.
func (c *Counter) countMultiRead(b []byte) {
	for len(b) >= 9 && b[4] == 0 {
		op := int32(binary.BigEndian.Uint32(b))
		b = b[9:]
		if len(b) < 4 {
			return
		}
		n := int(int32(binary.BigEndian.Uint32(b)))
		if n < 0 || len(b)-4 < n+1 {
			return
		}
		b = b[4+n+1:]
		if op >= 0 && op <= maxCountedOp {
			c.multiReads[op].Add(1)
		}
	}
}

// askedContainer notes a create-container request's xid and path, from its
// payload: xid, opcode, then the path's length and bytes.
func (c *Counter) askedContainer(p []byte) {
	if len(p) < 12 {
		return
	}
	n := int(int32(binary.BigEndian.Uint32(p[8:12])))
	if n < 0 || len(p)-12 < n {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.pending == nil {
		c.pending = make(map[int32]string)
	}
	c.pending[int32(binary.BigEndian.Uint32(p[0:4]))] = string(p[12 : 12+n])
}

// answered records the container a reply without an error (code 0) made,
// if xid is a create-container request's.
func (c *Counter) answered(xid, code int32) {
	c.mu.Lock()
	defer c.mu.Unlock()
	path, ok := c.pending[xid]
	if !ok {
		return
	}
	delete(c.pending, xid)
	if code == 0 {
		c.containers = append(c.containers, path)
	}
}

type countingConn struct {
	net.Conn
	in, out frameSplitter
	bytesIn *atomic.Int64
	reads   *atomic.Int64
}

func (c *countingConn) Read(b []byte) (int, error) {
	n, err := c.Conn.Read(b)
	if n > 0 {
		c.reads.Add(1)
	}
	c.bytesIn.Add(int64(n))
	c.in.feed(b[:n])
	return n, err
}

// Write counts b before sending it: once it is on the wire the server may
// answer, and the caller may read the counter, before Write returns.
func (c *countingConn) Write(b []byte) (int, error) {
	c.out.feed(b)
	return c.Conn.Write(b)
}

// frameSplitter is a zkwire.Splitter fed from one goroutine at a time.
type frameSplitter struct {
	mu sync.Mutex
	s  zkwire.Splitter
}

func (f *frameSplitter) feed(b []byte) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.s.Feed(b)
}
