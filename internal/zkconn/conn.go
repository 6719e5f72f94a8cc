package zkconn

import (
	"context"
	"crypto/tls"
	"errors"
	"log/slog"
	"net"
	"sync"
	"sync/atomic"
	"time"

	"github.com/go-zookeeper/zk"

	"github.com/gocurator/curator/internal/zkwire"
)

// Config is what a Conn connects with.
type Config struct {
	Servers        []string // host:port
	SessionTimeout time.Duration
	// Timeout bounds a TLS handshake, the close of a session over a
	// connection of the Conn's own, and Close's waits.
	Timeout time.Duration
	// Dialer makes the connections (nil: a net.Dialer); TLS runs over it.
	Dialer func(network, addr string, timeout time.Duration) (net.Conn, error)
	// TLS, if set, makes every connection TLS; with no ServerName, a server
	// is verified as the host its address came from in Servers.
	TLS *tls.Config
	Log *slog.Logger // nil: nothing is logged
	// MaxReplySize is the longest reply accepted (a frame's length, without
	// its 4-byte prefix): a longer one fails the request it answers with
	// zkerr.ReplyTooLarge, unread. 0: no limit.
	MaxReplySize int
	// OnSession is told every change of the session's state, on
	// go-zookeeper's goroutines: it must not block.
	OnSession func(SessionEvent)
	// OnWatch is told every watch notification, after the watches it fires
	// (a server path), on go-zookeeper's goroutines: it must not block.
	OnWatch func(Event)
	// OnRequest, if set, is told every request once answered (or failed), on
	// the goroutine that made it: it must not block.
	OnRequest func(RequestInfo)
	// OnLateWatch, if set, is told of a watching read (Exists, Get,
	// Children with a watch) whose caller left before its reply and which
	// then succeeded, so set its watch: the server path, and whether the
	// watch is a children watch. It runs on the read's own goroutine, which
	// Close waits for.
	OnLateWatch func(path string, children bool)
}

// Conn is one ZooKeeper client: its session, the connection it is on now,
// and the connections it will make. Its methods are safe for concurrent use.
type Conn struct {
	cfg     Config
	log     *slog.Logger
	zk      *zk.Conn
	events  <-chan zk.Event
	tr      *transport
	writes  writeWatch
	reads   readClock
	watches watchTable
	// lateWatched is the late function of every watching read: it tells
	// Config.OnLateWatch; nil without one.
	lateWatched func(request, error)
	replies     replyGuard

	hsMu sync.Mutex
	hs   zkwire.ConnectResponse // the latest session handshake's answer

	// auths counts the credentials go-zookeeper holds (AddAuth calls that
	// succeeded), each of which it sends again on a new connection.
	auths atomic.Int32

	mu      sync.Mutex
	closed  bool
	closing chan struct{} // closed by Close
	wg      sync.WaitGroup
}

// Connect returns a Conn that connects to cfg.Servers in the background;
// OnSession tells when it has a session. The error is a bad Config (no
// server, a host that does not resolve).
func Connect(cfg Config) (*Conn, error) {
	if len(cfg.Servers) == 0 {
		return nil, errors.New("no server to connect to")
	}
	c := &Conn{cfg: cfg, log: cfg.Log, closing: make(chan struct{})}
	if c.log == nil {
		c.log = slog.New(slog.DiscardHandler)
	}
	c.watches.clock, c.watches.closing = &c.reads, c.closing
	if on := cfg.OnLateWatch; on != nil {
		c.lateWatched = func(r request, err error) {
			if err == nil {
				on(r.path, r.op == "getChildren")
			}
		}
	}
	tcfg := transportConfig{
		Dialer:      cfg.Dialer,
		TLS:         cfg.TLS,
		Timeout:     cfg.Timeout,
		Handshake:   cfg.SessionTimeout / time.Duration(max(len(cfg.Servers), 1)),
		OnHandshake: c.onHandshake,
		Writes:      &c.writes,
		Reads:       &c.reads,
		MaxReply:    cfg.MaxReplySize,
		Log:         c.log,
	}
	var hosts zk.HostProvider = zk.NewDNSHostProvider() // go-zookeeper's default
	if cfg.TLS != nil {
		h := new(hostNames) // the host each address came from, to verify it as
		tcfg.Hosts, hosts = h, h
	}
	c.tr = newTransport(tcfg)
	opts := list(
		zk.WithDialer(c.tr.dial),
		zk.WithHostProvider(hosts),
		zk.WithEventCallback(c.onEvent),
		zk.WithLogger(zkLogger{c.log}),
		zk.WithLogInfo(false),
	)
	if cfg.MaxReplySize > 0 { // go-zookeeper's own bound: a frame the transport lets through fits
		opts = append(opts, zk.WithMaxBufferSize(cfg.MaxReplySize))
	}
	conn, events, err := zk.Connect(cfg.Servers, cfg.SessionTimeout, opts...)
	if err != nil {
		c.tr.stop()
		return nil, err
	}
	c.zk, c.events = conn, events
	return c, nil
}

// onHandshake records a session handshake's answer; go-zookeeper reports
// the state it leads to right after, on the same goroutine.
func (c *Conn) onHandshake(r zkwire.ConnectResponse) {
	c.hsMu.Lock()
	c.hs = r
	c.hsMu.Unlock()
}

// onEvent is go-zookeeper's event callback: it must never block.
func (c *Conn) onEvent(ev zk.Event) {
	if ev.Type != zk.EventSession {
		e := eventOf(ev)
		c.watches.notify(e)
		if c.cfg.OnWatch != nil {
			c.cfg.OnWatch(e)
		}
		return
	}
	if ev.State == zk.StateHasSession {
		watches, auths := c.watches.any(), int(c.auths.Load())
		if watches {
			// go-zookeeper is about to set its watches again; see
			// replyGate for the data race this avoids.
			c.tr.holdRepliesUntilSetWatches()
		}
		if watches || auths > 0 {
			c.tr.holdOwnRequests(auths, watches)
		}
	}
	c.tr.loop.onState(ev.State)
	c.log.Debug("zookeeper session event", "state", ev.State.String(), "server", ev.Server)
	var se SessionEvent
	switch ev.State {
	case zk.StateHasSession:
		c.hsMu.Lock()
		se = SessionEvent{State: HasSession, ID: c.hs.SessionID, Timeout: c.hs.Timeout}
		c.hsMu.Unlock()
	case zk.StateConnectedReadOnly:
		se.State = ReadOnly
	case zk.StateDisconnected:
		se.State = Disconnected
	case zk.StateExpired:
		c.watches.sessionEnded()
		se.State = Expired
	default:
		return // connecting, connected (TCP only): no change of the session's
	}
	if c.cfg.OnSession != nil {
		c.cfg.OnSession(se)
	}
}

// SessionID returns the id of the current session, 0 without one.
func (c *Conn) SessionID() int64 { return c.zk.SessionID() }

// Server returns the address of the server the Conn is connected or
// connecting to.
func (c *Conn) Server() string { return c.zk.Server() }

// DialErr returns how the latest attempt to connect failed: the dial, the
// TLS handshake, or a session handshake the server did not answer; nil once
// a server answered a session handshake.
func (c *Conn) DialErr() error { return c.tr.dialError() }

// ExpireSession ends the current session on the server, over a connection
// of its own (with the password its handshake gave), as ZooKeeper's
// injectSessionExpiration does: the Conn then finds it expired. It
// returns once the server has closed the session.
func (c *Conn) ExpireSession(ctx context.Context) error {
	hs := c.tr.lastSession()
	if hs.ID == 0 {
		return errors.New("no session to expire")
	}
	return c.tr.closeSession(ctx, hs)
}

// EndSession ends the session id, if it is still the latest handshake's,
// over a connection of its own; if that fails, it drops the connections, so
// that go-zookeeper connects again and the session's next return can be
// ended again.
func (c *Conn) EndSession(ctx context.Context, id int64) error {
	hs := c.tr.lastSession()
	if hs.ID != id {
		return nil
	}
	err := c.tr.closeSession(ctx, hs)
	if err != nil {
		c.tr.dropAll()
	}
	return err
}

// DropConnections closes the connections; go-zookeeper connects again
// (unless the Conn is closing), on the same session if it still lives.
func (c *Conn) DropConnections() { c.tr.dropAll() }

// WritesPending returns the number of write notices still waiting.
func (c *Conn) WritesPending() int { return c.writes.pending() }

// Close closes the session (its ephemeral nodes go at once), stops every
// goroutine of go-zookeeper's and of the Conn's, and waits for them and for
// the Late hooks of abandoned calls. Calls made after it fail with
// zkerr.ErrClosed.
//
// With a container or TTL create in flight, Close first waits up to a
// second for it to be answered (see replyGuard). Against a server that does
// not answer, it then drops the connection and ends the session over one of
// its own, and may take about three seconds longer in all.
func (c *Conn) Close() {
	c.mu.Lock()
	if c.closed {
		c.mu.Unlock()
		return
	}
	c.closed = true
	close(c.closing)
	c.mu.Unlock()
	readersDone := c.replies.close()
	c.tr.stop() // no dial from here on
	if readersDone != nil {
		c.tr.quiesce(readersDone)
	}
	c.zk.Close()
	c.tr.dropAll() // unblocks a handshake stuck on a silent server
	for range c.events {
	}
	c.wg.Wait()
}

// list returns its arguments as a slice: go-zookeeper's option type is
// unexported, and a slice of it can be had only by inference.
func list[O any](opts ...O) []O { return opts }
