package zkconn

// The transport is the Conn's side of the network, under go-zookeeper: it
// dials each server (through the user's dialer, then TLS), reads through a
// buffer, reads each session handshake's answer on the way through, tells
// the write watch what was written, tracks the connections so that the
// Conn can cut them, and ends a session over a connection of its own.
// go-zookeeper keeps all of this to itself; the Conn needs it to know its
// session, to pipeline, and to close cleanly.

import (
	"context"
	"crypto/tls"
	"encoding/binary"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"os"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"github.com/gocurator/curator/internal/zkwire"
)

// ErrTLSHandshake means a TLS handshake with a server failed (see
// framework.ErrTLSHandshake, which is this value).
var ErrTLSHandshake = errors.New("TLS handshake failed")

// errClosed is dial's and replyGuard.run's error once they are closed.
var errClosed = errors.New("connection closed")

// transportConfig is what a transport dials with.
type transportConfig struct {
	// Dialer makes the connection (nil: a net.Dialer); TLS runs over it.
	Dialer func(network, addr string, timeout time.Duration) (net.Conn, error)
	// TLS, if set, makes every connection TLS; with no ServerName, a
	// server is verified as the host Hosts says its address came from.
	TLS   *tls.Config
	Hosts *hostNames
	// Timeout bounds a TLS handshake and a session's close.
	Timeout time.Duration
	// Handshake bounds the wait for a session handshake's answer, from the
	// dial (0: go-zookeeper's own bound, ten times its read timeout).
	Handshake time.Duration
	// OnHandshake is called with every handshake's answer, on go-zookeeper's
	// receive goroutine; it must not block.
	OnHandshake func(zkwire.ConnectResponse)
	// Writes is told every buffer go-zookeeper writes.
	Writes *writeWatch
	// Reads is told each time go-zookeeper starts to read.
	Reads *readClock
	// MaxReply is the longest reply frame (without its length prefix) handed
	// to go-zookeeper; 0: no limit.
	MaxReply int
	Log      *slog.Logger
}

// handshake is where a session was last established, and its password.
type handshake struct {
	Addr   string
	ID     int64
	Passwd []byte
}

// transport is one client's connections. dial is go-zookeeper's dialer.
type transport struct {
	cfg     transportConfig
	closing context.Context // ends dials and handshakes under way at Close
	cancel  context.CancelFunc
	loop    recvLoop

	ownXid  atomic.Uint32 // the last xid of a request of the transport's own, counted down from zkwire.OwnXidLimit
	ownZxid atomic.Int64  // the highest zxid a reply to an own request carried (see raiseLastZxid)

	mu      sync.Mutex
	closed  bool
	conns   map[net.Conn]struct{}
	latest  *trackedConn  // the connection dialed last
	session handshake     // the latest handshake that gave a session
	dialErr error         // how the latest attempt to connect failed; nil once a server answered a handshake
	ending  int           // closeSession calls under way: dial waits for them
	ended   chan struct{} // closed when ending falls back to 0
	waiting func()        // tests: called, without mu, each time a dial waits for a close
}

// New returns a transport for cfg.
func newTransport(cfg transportConfig) *transport {
	if cfg.Log == nil {
		cfg.Log = slog.New(slog.DiscardHandler)
	}
	ctx, cancel := context.WithCancel(context.Background())
	return &transport{cfg: cfg, closing: ctx, cancel: cancel, conns: make(map[net.Conn]struct{})}
}

// dial connects to a server (see dialServer), remembers the connection so
// that dropAll can cut it, and reads the handshake's answer on the way
// through. It refuses once Close was called.
func (t *transport) dial(network, addr string, timeout time.Duration) (net.Conn, error) {
	t.mu.Lock()
	for t.ending > 0 && !t.closed {
		ended, waiting := t.ended, t.waiting
		t.mu.Unlock()
		if waiting != nil {
			waiting()
		}
		select {
		case <-ended:
		case <-t.closing.Done():
		}
		t.mu.Lock()
	}
	closed := t.closed
	t.mu.Unlock()
	if closed {
		return nil, errClosed
	}
	nc, err := t.dialServer(t.closing, network, addr, timeout)
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.closed {
		if nc != nil {
			nc.Close()
		}
		return nil, errClosed
	}
	if err != nil {
		t.dialErr = err
		return nil, err
	}
	tc := &trackedConn{Conn: nc, t: t, closed: make(chan struct{})}
	t.conns[tc] = struct{}{}
	t.latest = tc
	answered := new(atomic.Bool)
	watched := &handshakeConn{Conn: tc, answered: answered, failed: func(err error) { t.unanswered(addr, err) }}
	if t.cfg.Handshake > 0 {
		watched.deadline = time.Now().Add(t.cfg.Handshake)
	}
	return newBufferedConn(zkwire.SniffConn(watched, func(r zkwire.ConnectResponse) {
		answered.Store(true)
		tc.session.Store(r.SessionID != 0)
		t.mu.Lock()
		t.dialErr = nil
		if r.SessionID != 0 {
			t.session = handshake{addr, r.SessionID, r.Passwd}
		}
		t.mu.Unlock()
		if t.cfg.OnHandshake != nil {
			t.cfg.OnHandshake(r)
		}
	}), tc, t.cfg.Reads, t.cfg.MaxReply), nil
}

// HoldRepliesUntilSetWatches makes the latest connection hold its replies
// back until go-zookeeper has written its setWatches request (see
// replyGate). Call it once a session is established on the connection
// (go-zookeeper's StateHasSession, before it starts its loops), and only if
// go-zookeeper has watches to set again: without them it sends no
// setWatches, and the replies would wait for gateLimit.
func (t *transport) holdRepliesUntilSetWatches() {
	t.mu.Lock()
	tc := t.latest
	t.mu.Unlock()
	if tc != nil {
		tc.gate.Store(newReplyGate(gateLimit))
	}
}

// holdOwnRequests makes the transport's own requests on the latest
// connection wait until go-zookeeper has written auths setAuth frames and,
// if watches, its setWatches (see ownGate). Call it at go-zookeeper's
// StateHasSession, before it starts its loops, when it has either to send.
func (t *transport) holdOwnRequests(auths int, watches bool) {
	t.mu.Lock()
	tc := t.latest
	t.mu.Unlock()
	if tc != nil {
		tc.ownGate.Store(newOwnGate(auths, watches))
	}
}

// dialServer connects to the server at addr: through the dialer, then, with
// TLS, through a handshake bounded by ctx and the timeout. The wrappers go
// on top: they read and write ZooKeeper's frames, which only the TLS layer
// sees in the clear.
func (t *transport) dialServer(ctx context.Context, network, addr string, timeout time.Duration) (net.Conn, error) {
	var nc net.Conn
	var err error
	if d := t.cfg.Dialer; d != nil {
		nc, err = d(network, addr, timeout) // a dialer takes no context
	} else {
		nc, err = (&net.Dialer{Timeout: timeout}).DialContext(ctx, network, addr)
	}
	if err != nil || t.cfg.TLS == nil {
		return nc, err
	}
	cfg := t.cfg.TLS
	if cfg.ServerName == "" {
		cfg = cfg.Clone()
		cfg.ServerName = t.cfg.Hosts.Name(addr)
	}
	tc := tls.Client(nc, cfg)
	hctx, cancel := context.WithTimeout(ctx, t.cfg.Timeout)
	defer cancel()
	if err := tc.HandshakeContext(hctx); err != nil {
		nc.Close()
		hint := ""
		var remote *net.OpError
		if errors.As(err, &remote) && remote.Op == "remote error" && len(cfg.Certificates) == 0 && cfg.GetClientCertificate == nil {
			hint = "; the server refused the handshake, and no client certificate was offered: does it require one (ssl.clientAuth)?"
		}
		return nil, fmt.Errorf("%w with %s (verifying it as %q): %w%s", ErrTLSHandshake, addr, cfg.ServerName, err, hint)
	}
	return tc, nil
}

// unanswered records that the server at addr ended the connection, or it
// ended, before the session handshake was answered, or that the answer did
// not come within the handshake's bound: err is the read's error. A plain
// client on a TLS port sees the first, as the server drops what it cannot
// read as TLS.
func (t *transport) unanswered(addr string, err error) {
	var failure error
	switch {
	case errors.Is(err, os.ErrDeadlineExceeded):
		failure = fmt.Errorf("%s did not answer the session handshake within %v, so the connection was given up: %w", addr, t.cfg.Handshake, err)
	case t.cfg.TLS == nil:
		failure = fmt.Errorf("%s did not answer the session handshake: %w; if it is a TLS port (secureClientPort), connect with TLS", addr, err)
	default:
		failure = fmt.Errorf("%s did not answer the session handshake: %w", addr, err)
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	t.dialErr = failure
}

// handshakeConn tells failed when a read fails before the session
// handshake was answered, and bounds the wait for that answer by deadline
// (if set). go-zookeeper's own bound is ten times its read timeout (two
// thirds of the session timeout): a server that accepts the connection
// and never answers, as a restarting ZooKeeper now and then does, held a
// client with a 20 s session for over two minutes. Java's client gives a
// handshake the session timeout divided by the number of servers, and so
// does the Conn.
type handshakeConn struct {
	net.Conn
	answered *atomic.Bool
	failed   func(error)
	deadline time.Time // zero: go-zookeeper's deadlines stand
}

// SetReadDeadline sets go-zookeeper's deadline, but none later than the
// handshake's until it is answered.
func (c *handshakeConn) SetReadDeadline(t time.Time) error {
	if !c.deadline.IsZero() && !c.answered.Load() && (t.IsZero() || t.After(c.deadline)) {
		t = c.deadline
	}
	return c.Conn.SetReadDeadline(t)
}

func (c *handshakeConn) Read(p []byte) (int, error) {
	n, err := c.Conn.Read(p)
	if err != nil && n == 0 && !c.answered.Load() {
		c.failed(err)
	}
	return n, err
}

// DialErr returns how the latest attempt to connect failed: the dial, the
// TLS handshake, or a session handshake the server did not answer. It is
// nil once a server answered a session handshake.
func (t *transport) dialError() error {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.dialErr
}

// Session returns the latest handshake that gave a session.
func (t *transport) lastSession() handshake {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.session
}

// stop refuses every later dial and ends those under way; it closes no
// connection (dropAll does).
func (t *transport) stop() {
	t.mu.Lock()
	t.closed = true
	t.mu.Unlock()
	t.cancel()
}

// dropAll closes every connection; go-zookeeper then connects again,
// unless Close was called.
func (t *transport) dropAll() {
	t.mu.Lock()
	conns := make([]net.Conn, 0, len(t.conns))
	for nc := range t.conns {
		conns = append(conns, nc)
	}
	t.mu.Unlock()
	for _, nc := range conns {
		nc.Close()
	}
}

// CloseSession closes the session of hs through the server it was made on,
// over a connection of its own, within the config's Timeout. No connection
// of go-zookeeper's is dialed meanwhile: the server cuts the client's
// connection when the session is taken over, and go-zookeeper, with other
// servers to try, would at once take the session to one of them, where it
// is no longer this connection's to close (the server drops it unanswered).
func (t *transport) closeSession(ctx context.Context, hs handshake) error {
	t.mu.Lock()
	if t.ending == 0 {
		t.ended = make(chan struct{})
	}
	t.ending++
	t.mu.Unlock()
	defer func() {
		t.mu.Lock()
		if t.ending--; t.ending == 0 {
			close(t.ended)
		}
		t.mu.Unlock()
	}()
	if t.cfg.Timeout > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, t.cfg.Timeout)
		defer cancel()
	}
	nc, err := t.dialServer(ctx, "tcp", hs.Addr, t.cfg.Timeout)
	if err != nil {
		return err
	}
	defer nc.Close()
	return zkwire.CloseSessionOn(ctx, nc, hs.ID, hs.Passwd)
}

// trackedConn tells the write watch and its reply gate what was written,
// and forgets itself when closed.
type trackedConn struct {
	net.Conn
	t         *transport
	gate      atomic.Pointer[replyGate] // nil: replies pass
	ownGate   atomic.Pointer[ownGate]   // nil: the transport's own requests go at once
	closed    chan struct{}             // closed by Close: a gate holds nothing back then
	closeOnce sync.Once
	session   atomic.Bool // the handshake's answer gave a session: requests of the transport's own may go
	wmu       sync.Mutex  // one writer at a time: go-zookeeper's send loop, or an own request
	wrote     bool        // the first write, the handshake's request, is done; under wmu
	own       ownReplies
}

// Write tells the write watch what was written. It runs on go-zookeeper's
// send loop, which takes the next request only after it; go-zookeeper
// writes each request in one call.
func (c *trackedConn) Write(b []byte) (int, error) {
	c.wmu.Lock()
	w := b
	if !c.wrote {
		c.wrote = true
		w = raiseLastZxid(b, c.t.ownZxid.Load())
	}
	n, err := c.Conn.Write(w)
	c.wmu.Unlock()
	if err == nil && c.t.cfg.Writes != nil {
		c.t.cfg.Writes.written(b)
	}
	if g, og := c.gate.Load(), c.ownGate.Load(); g != nil || og != nil {
		if xid, op, ok := zkwire.RequestHeader(b); ok {
			if g != nil {
				g.written(xid, op)
			}
			if og != nil {
				og.written(op)
			}
		}
	}
	return n, err
}

// raiseLastZxid returns the handshake's request frame b with its
// lastZxidSeen raised to zxid, if that is higher: a copy, b itself left
// as it is. go-zookeeper counts the zxids of the replies it reads, not
// those of the transport's own requests, and a client that read the tree
// through a multiRead must not be let onto a server that is behind what it
// read (the server refuses a client that has seen a later zxid than its
// own, and the client tries the next).
func raiseLastZxid(b []byte, zxid int64) []byte {
	const at = 4 + 4 // the length prefix, protocolVersion
	if len(b) < at+8 || zxid <= int64(binary.BigEndian.Uint64(b[at:])) {
		return b
	}
	r := slices.Clone(b)
	binary.BigEndian.PutUint64(r[at:], uint64(zxid))
	return r
}

func (c *trackedConn) Close() error {
	c.t.mu.Lock()
	delete(c.t.conns, c)
	if c.t.latest == c {
		c.t.latest = nil
	}
	c.t.mu.Unlock()
	c.closeOnce.Do(func() { close(c.closed) })
	c.own.fail()
	if g := c.gate.Load(); g != nil {
		g.release() // stops its timer
	}
	if g := c.ownGate.Load(); g != nil {
		g.release()
	}
	return c.Conn.Close()
}
