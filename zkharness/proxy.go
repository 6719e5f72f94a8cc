package zkharness

import (
	"net"
	"sync"

	"github.com/gocurator/curator/internal/zkwire"
)

// Proxy is a TCP fault proxy on 127.0.0.1 in front of one ZooKeeper server.
// Point a client at Addr; then DropAll cuts every connection, Blackhole
// silences them, DropAfter loses the reply to one request, HoldReply keeps
// one back until the test decides its fate, and Arrival says when a request
// has been sent. It parses ZooKeeper's frames (a 4-byte length, then the
// payload) to find requests.
type Proxy struct {
	target string
	ln     net.Listener
	wg     sync.WaitGroup

	mu        sync.Mutex
	pipes     map[*pipe]struct{}
	silent    bool
	resume    chan struct{} // closed when the blackhole ends
	dropAfter int32         // opcode whose reply to lose; 0: none
	holdOp    int32         // opcode whose reply to hold back; 0: none
	held      *HeldReply    // the hold armed for holdOp
	arriveOp  int32         // opcode whose arrival to signal; 0: none
	arrival   chan struct{} // closed when a request with arriveOp arrives
	closed    bool
}

// NewProxy listens on a free 127.0.0.1 port and forwards to target.
func NewProxy(target string) (*Proxy, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, err
	}
	p := &Proxy{target: target, ln: ln, pipes: make(map[*pipe]struct{}), resume: make(chan struct{})}
	close(p.resume)
	p.wg.Add(1)
	go p.accept()
	return p, nil
}

// Addr returns the address clients connect to.
func (p *Proxy) Addr() string { return p.ln.Addr().String() }

// DropAll closes every current connection; new ones are still accepted.
func (p *Proxy) DropAll() {
	p.mu.Lock()
	pipes := make([]*pipe, 0, len(p.pipes))
	for pp := range p.pipes {
		pipes = append(pipes, pp)
	}
	p.mu.Unlock()
	for _, pp := range pipes {
		pp.close()
	}
}

// Blackhole(true) stops forwarding in both directions without closing
// anything: bytes wait in the proxy, as on a network that silently drops
// packets, and new connections are accepted but not served. A side that
// closes its connection meanwhile is not seen to by the other, as with a
// paused process that has not read its socket: a client is not told that
// the server ended its session. Blackhole(false) forwards again, the held
// bytes first, then the closes.
func (p *Proxy) Blackhole(on bool) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if on == p.silent {
		return
	}
	p.silent = on
	if on {
		p.resume = make(chan struct{})
	} else {
		close(p.resume)
	}
}

// DropAfter arms a one-shot fault: the next request with this opcode (see
// the Op constants: OpCreate, OpMulti, ...) reaches the
// server, the proxy waits for the server's reply, discards it and closes
// the client's connection. The request took effect; the client never hears.
func (p *Proxy) DropAfter(opcode int32) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.dropAfter = opcode
}

// HoldReply arms a one-shot fault: the next request with this opcode
// reaches the server, and the server's reply (with everything the server
// sends after it on that connection) waits in the proxy until the test
// calls Deliver or Drop on the returned HeldReply. It is how a test makes a
// client wait for the answer to a request that has already taken effect,
// as a process paused at that moment does.
func (p *Proxy) HoldReply(opcode int32) *HeldReply {
	h := &HeldReply{arrived: make(chan struct{}), decided: make(chan struct{})}
	p.mu.Lock()
	defer p.mu.Unlock()
	p.holdOp, p.held = opcode, h
	return h
}

// Arrival arms a one-shot signal: the returned channel is closed when the
// next request with this opcode reaches the proxy from a client, even while
// the proxy is silent (see Blackhole). It is how a test knows a client has
// sent a request (and so had begun the call that sends it) before the test
// lets the network speak again.
func (p *Proxy) Arrival(opcode int32) <-chan struct{} {
	ch := make(chan struct{})
	p.mu.Lock()
	defer p.mu.Unlock()
	p.arriveOp, p.arrival = opcode, ch
	return ch
}

// arrived closes the armed Arrival channel if it is for op.
func (p *Proxy) arrived(op int32) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.arrival != nil && p.arriveOp == op {
		close(p.arrival)
		p.arrival, p.arriveOp = nil, 0
	}
}

// HeldReply is a reply the proxy keeps back (see Proxy.HoldReply).
type HeldReply struct {
	arrived chan struct{} // closed when the reply reaches the proxy
	once    sync.Once
	decided chan struct{} // closed by Deliver or Drop
	drop    bool
}

// Arrived returns a channel closed once the server's reply is in the
// proxy: the request has taken effect on the server.
func (h *HeldReply) Arrived() <-chan struct{} { return h.arrived }

// Deliver lets the reply, and what follows it, through to the client.
func (h *HeldReply) Deliver() { h.once.Do(func() { close(h.decided) }) }

// Drop discards the reply and closes the client's connection: the request
// took effect, and the client never hears of it.
func (h *HeldReply) Drop() {
	h.once.Do(func() {
		h.drop = true
		close(h.decided)
	})
}

// Close stops accepting, closes every connection and waits for the proxy's
// goroutines.
func (p *Proxy) Close() error {
	p.mu.Lock()
	if p.closed {
		p.mu.Unlock()
		return nil
	}
	p.closed = true
	if p.silent {
		p.silent = false
		close(p.resume)
	}
	p.mu.Unlock()
	err := p.ln.Close()
	p.DropAll()
	p.wg.Wait()
	return err
}

func (p *Proxy) accept() {
	defer p.wg.Done()
	for {
		c, err := p.ln.Accept()
		if err != nil {
			return
		}
		s, err := net.Dial("tcp", p.target)
		if err != nil {
			c.Close()
			continue
		}
		pp := &pipe{proxy: p, client: c, server: s, dropXid: -1, holdXid: -1}
		p.mu.Lock()
		if p.closed {
			p.mu.Unlock()
			pp.close()
			return
		}
		p.pipes[pp] = struct{}{}
		p.mu.Unlock()
		p.wg.Add(2)
		go pp.forward(c, s, true)
		go pp.forward(s, c, false)
	}
}

// waitOpen blocks while the proxy is silent; false if the pipe closed.
func (p *Proxy) waitOpen(pp *pipe) bool {
	p.mu.Lock()
	resume := p.resume
	p.mu.Unlock()
	select {
	case <-resume:
		return true
	case <-pp.done():
		return false
	}
}

// takeHold disarms and returns the armed hold if it is for op.
func (p *Proxy) takeHold(op int32) *HeldReply {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.held == nil || p.holdOp != op {
		return nil
	}
	h := p.held
	p.held, p.holdOp = nil, 0
	return h
}

// takeDropAfter disarms and returns the armed opcode if it is op.
func (p *Proxy) takeDropAfter(op int32) bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.dropAfter != 0 && p.dropAfter == op {
		p.dropAfter = 0
		return true
	}
	return false
}

// pipe is one proxied connection.
type pipe struct {
	proxy          *Proxy
	client, server net.Conn

	mu       sync.Mutex
	dropXid  int32      // xid of the request whose reply is to be lost; -1: none
	holdXid  int32      // xid of the request whose reply is held; -1: none
	held     *HeldReply // its hold
	closedCh chan struct{}
	isClosed bool
}

func (pp *pipe) done() <-chan struct{} {
	pp.mu.Lock()
	defer pp.mu.Unlock()
	if pp.closedCh == nil {
		pp.closedCh = make(chan struct{})
		if pp.isClosed {
			close(pp.closedCh)
		}
	}
	return pp.closedCh
}

func (pp *pipe) close() {
	pp.mu.Lock()
	if !pp.isClosed {
		pp.isClosed = true
		if pp.closedCh != nil {
			close(pp.closedCh)
		}
	}
	pp.mu.Unlock()
	pp.client.Close()
	pp.server.Close()
	pp.proxy.mu.Lock()
	delete(pp.proxy.pipes, pp)
	pp.proxy.mu.Unlock()
}

// forward copies frames from src to dst until either side fails. The first
// frame each way is the session handshake; later client frames are requests
// (xid, opcode, ...) and server frames replies (xid, zxid, err, ...). A
// reader goroutine keeps taking frames off src while the proxy is silent,
// so that a request is seen to arrive (see Arrival) even then; forward
// passes them on in order once it speaks again.
func (pp *pipe) forward(src, dst net.Conn, toServer bool) {
	defer pp.proxy.wg.Done()
	defer pp.close()
	frames := make(chan readFrame, 64)
	pp.proxy.wg.Add(1)
	go pp.read(src, toServer, frames)
	for first := true; ; first = false {
		var f readFrame
		select {
		case f = <-frames:
		case <-pp.done():
			return
		}
		frame := f.frame
		if !pp.proxy.waitOpen(pp) || f.err != nil { // a close, too, waits out a blackhole
			return
		}
		if xid, ok := zkwire.ReplyXid(frame); !toServer && !first && ok {
			pp.mu.Lock()
			drop := pp.dropXid >= 0 && xid == pp.dropXid
			held := pp.held
			if held != nil && xid == pp.holdXid {
				pp.held, pp.holdXid = nil, -1
			} else {
				held = nil
			}
			pp.mu.Unlock()
			if drop {
				return // the reply is lost with the connection
			}
			if held != nil {
				close(held.arrived)
				select {
				case <-held.decided:
				case <-pp.done():
					return
				}
				if held.drop {
					return
				}
			}
		}
		if xid, op, ok := zkwire.RequestHeader(frame); toServer && !first && ok {
			if pp.proxy.takeDropAfter(op) { // armed before the request can be answered
				pp.mu.Lock()
				pp.dropXid = xid
				pp.mu.Unlock()
			}
			if h := pp.proxy.takeHold(op); h != nil {
				pp.mu.Lock()
				pp.holdXid, pp.held = xid, h
				pp.mu.Unlock()
			}
		}
		if _, err := dst.Write(frame); err != nil {
			return
		}
	}
}

// readFrame is one frame read off a connection, or the error that ended it.
type readFrame struct {
	frame []byte
	err   error
}

// read takes frames off src for forward until src fails or the pipe
// closes, and tells the proxy of each request that arrives.
func (pp *pipe) read(src net.Conn, toServer bool, out chan<- readFrame) {
	defer pp.proxy.wg.Done()
	for first := true; ; first = false {
		frame, err := zkwire.ReadFrame(src)
		if _, op, ok := zkwire.RequestHeader(frame); err == nil && toServer && !first && ok {
			pp.proxy.arrived(op)
		}
		select {
		case out <- readFrame{frame, err}:
		case <-pp.done():
			return
		}
		if err != nil {
			return
		}
	}
}
