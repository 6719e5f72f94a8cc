package framework

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"sync"
	"sync/atomic"
	"time"

	"github.com/go-zookeeper/zk"

	"github.com/gocurator/curator/internal/delivery"
	"github.com/gocurator/curator/internal/zkconn"
	"github.com/gocurator/curator/internal/zkwire"
	"github.com/gocurator/curator/listener"
	"github.com/gocurator/curator/retry"
)

// Client is a ZooKeeper client with Curator's retry loop, connection-state
// machine and node helpers. Create one with New, call Start, and Close it when
// done. A Client is safe for concurrent use.
type Client struct {
	cfg       config
	servers   []string
	log       *slog.Logger
	listeners *delivery.Container[listener.ConnectionState]
	sm        *stateMachine

	transport *zkconn.Transport // the connections under go-zookeeper
	writes    zkconn.WriteWatch // tells traced operations when their request is written
	replies   zkconn.ReplyGuard // calls that read their reply after Close
	watches   watchFeed         // AddWatchListener's functions
	mirror    watchMirror       // the watches go-zookeeper holds

	mu      sync.Mutex
	started bool
	closed  bool
	conn    *zk.Conn
	events  <-chan zk.Event

	authDone chan struct{}   // closed once the auth info is on the session
	authErr  error           // set before authDone is closed: the auth info was refused
	closing  context.Context // done once Close has begun; background work runs under it
	stopBg   context.CancelFunc
	janitor  *janitor
	wg       sync.WaitGroup // goroutines of abandoned calls and of the auth step
	nsMade   atomic.Bool    // the namespace's root exists (see ensureNamespace)
}

// New returns an unstarted Client for connectString: a comma-separated list
// of host:port pairs, optionally followed by a chroot path that every path
// of the client is under ("h1:2181,h2:2181/app"), as ZooKeeper's and
// Curator's clients take it. A namespace (WithNamespace) goes under the
// chroot. As with ZooKeeper, the chroot node itself must exist: the client
// never creates it.
func New(connectString string, opts ...Option) (*Client, error) {
	servers, chroot, err := parseConnectString(connectString)
	if err != nil {
		return nil, err
	}
	cfg := config{
		sessionTimeout:    DefaultSessionTimeout,
		connectionTimeout: DefaultConnectionTimeout,
		retryPolicy:       retry.ExponentialBackoffRetry(100*time.Millisecond, 3),
		aclProvider:       OpenACLProvider{},
		errorPolicy:       listener.StandardErrorPolicy{},
	}
	for _, o := range opts {
		if o == nil {
			return nil, fmt.Errorf("%w: nil option", ErrInvalidArg)
		}
		if err := o(&cfg); err != nil {
			return nil, err
		}
	}
	if cfg.defaultData == nil {
		cfg.defaultData = localAddress()
	}
	cfg.chroot = chroot
	cfg.namespace = cfg.namespace.under(chroot)
	log := cfg.logger
	if log == nil {
		log = slog.New(slog.DiscardHandler) // logging is off by default
	}
	c := &Client{
		cfg:       cfg,
		servers:   servers,
		log:       log,
		listeners: delivery.NewContainer(delivery.DefaultLimit, delivery.FoldFlaps),
		authDone:  make(chan struct{}),
	}
	c.closing, c.stopBg = context.WithCancel(context.Background())
	c.sm = newStateMachine(cfg.sessionTimeout, cfg.errorPolicy, c.listeners.Post)
	c.sm.revived = c.endSession
	tcfg := zkconn.Config{
		Dialer:  cfg.dialer,
		TLS:     cfg.tls,
		Timeout: cfg.connectionTimeout,
		OnHandshake: func(r zkwire.ConnectResponse) {
			c.sm.onHandshake(r.SessionID, r.Timeout)
		},
		Writes: &c.writes,
		Log:    log,
	}
	if cfg.tls != nil {
		tcfg.Hosts = new(zkconn.HostNames) // the host each address came from, to verify it as
	}
	c.transport = zkconn.New(tcfg)
	return c, nil
}

// Start connects in the background; use BlockUntilConnected to wait.
// Starting twice, or after Close, is an error.
func (c *Client) Start() error {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.closed {
		return ErrClosed
	}
	if c.started {
		return fmt.Errorf("%w: client already started", ErrInvalidArg)
	}
	var hosts zk.HostProvider = zk.NewDNSHostProvider() // go-zookeeper's default
	if h := c.transport.Hosts(); h != nil {
		hosts = h
	}
	conn, events, err := zk.Connect(c.servers, c.cfg.sessionTimeout,
		zk.WithDialer(c.transport.Dial),
		zk.WithHostProvider(hosts),
		zk.WithEventCallback(c.onEvent),
		zk.WithLogger(zkLogger{c.log}),
		zk.WithLogInfo(false),
	)
	if err != nil {
		return fmt.Errorf("%w: %w", ErrInvalidArg, err)
	}
	c.conn, c.events, c.started = conn, events, true
	c.janitor = startJanitor(c)
	c.wg.Add(1)
	go c.authenticate(conn)
	return nil
}

// authenticate queues the auth info before any operation may run; go-zookeeper
// sends it again on every reconnect once it has succeeded.
func (c *Client) authenticate(conn *zk.Conn) {
	defer c.wg.Done()
	defer close(c.authDone)
	for _, a := range c.cfg.auth {
		for {
			err := conn.AddAuth(a.scheme, a.auth)
			if err == nil {
				break
			}
			c.log.Warn("adding auth info failed", "scheme", a.scheme, "err", err)
			if !retry.IsRetryable(err) {
				// As Java's AUTH_FAILED: every operation fails, rather than
				// run without the identity it was configured with.
				c.authErr = fmt.Errorf("%w: adding auth info for scheme %q: %w", ErrNoAuth, a.scheme, err)
				return
			}
			select {
			case <-c.closing.Done():
				return
			case <-time.After(100 * time.Millisecond):
			}
		}
	}
}

// Close closes the session (its ephemeral nodes go at once), stops every
// goroutine the client started and waits for them. Pending guaranteed deletes
// are abandoned. Close is idempotent.
//
// With a container or TTL create in flight, Close first waits up to a
// second for it to be answered (see replyguard.go). Against a server that
// does not answer, it then drops the connection and ends the session over
// one of its own, and may take about three seconds longer in all: the wait,
// closing the session, and go-zookeeper's wait for a close request that can
// no longer be sent (and up to the connection timeout more if go-zookeeper's
// receive loop does not end once its connection is dropped).
func (c *Client) Close() error {
	c.mu.Lock()
	if c.closed {
		c.mu.Unlock()
		return nil
	}
	c.closed = true
	c.stopBg()
	started := c.started
	c.mu.Unlock()
	readersDone := c.replies.Close()
	c.transport.Close() // no dial from here on
	c.sm.close()
	if !started {
		c.listeners.Close()
		return nil
	}
	c.janitor.stop()
	if readersDone != nil {
		c.transport.Quiesce(readersDone)
	}
	c.conn.Close()
	c.transport.DropAll() // unblocks a handshake stuck on a silent server
	for range c.events {
	}
	c.wg.Wait()
	c.listeners.Close()
	return nil
}

// Done returns a channel that is closed once Close has begun: the client's
// session, and every ephemeral node it made, is then ending.
func (c *Client) Done() <-chan struct{} { return c.closing.Done() }

// State returns the current connection state; 0 before the first session.
func (c *Client) State() listener.ConnectionState {
	s, _ := c.sm.current()
	return s
}

// SessionID returns the id of the current session, 0 without one.
func (c *Client) SessionID() int64 {
	c.mu.Lock()
	conn := c.conn
	c.mu.Unlock()
	if conn == nil {
		return 0
	}
	return conn.SessionID()
}

// CurrentServer returns the address of the server the client is connected or
// connecting to, "" before Start.
func (c *Client) CurrentServer() string {
	c.mu.Lock()
	conn := c.conn
	c.mu.Unlock()
	if conn == nil {
		return ""
	}
	return conn.Server()
}

// SessionTimeout returns the session timeout the server granted, or the
// requested one before the first session.
func (c *Client) SessionTimeout() time.Duration {
	return c.sm.sessionTimeout()
}

// ErrorPolicy returns the error policy recipes of this client follow.
func (c *Client) ErrorPolicy() listener.ErrorPolicy { return c.cfg.errorPolicy }

// Logger returns the client's logger (it discards everything unless
// WithLogger was given), for recipes built on the client.
func (c *Client) Logger() *slog.Logger { return c.log }

// AddConnectionStateListener registers fn for every later state change and
// returns a function that removes it. Calls are made in order from one
// goroutine; fn must not call Close. A listener that blocks delays the
// listeners after it, never the client. Add listeners before Start to see
// the first Connected.
func (c *Client) AddConnectionStateListener(fn func(listener.ConnectionState)) (remove func(), err error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.closed {
		return nil, ErrClosed
	}
	return c.listeners.Add(fn), nil
}

// StateChanged returns the current state and a channel closed at the next
// state change: a way to wait on the connection in a select.
func (c *Client) StateChanged() (listener.ConnectionState, <-chan struct{}) {
	return c.sm.current()
}

// BlockUntilConnected waits until the client is connected, ctx is done or the
// client is closed.
func (c *Client) BlockUntilConnected(ctx context.Context) error {
	_, err := c.connected(ctx, 0)
	return err
}

// errNotConnected is what an attempt gets when no connection came within the
// connection timeout; it wraps zk.ErrNoServer, so the retry loop retries it.
var errNotConnected = fmt.Errorf("%w: %w (not connected within the connection timeout)", ErrConnectionLoss, zk.ErrNoServer)

// connected waits for a usable connection and returns it. A zero timeout
// waits as long as ctx allows.
func (c *Client) connected(ctx context.Context, timeout time.Duration) (*zk.Conn, error) {
	c.mu.Lock()
	conn, started, closed := c.conn, c.started, c.closed
	c.mu.Unlock()
	switch {
	case closed:
		return nil, ErrClosed
	case !started:
		return nil, ErrNotStarted
	}
	var expire <-chan time.Time
	for {
		state, changed := c.sm.current()
		if state.IsConnected() {
			select {
			case <-c.authDone:
				if c.authErr != nil {
					return nil, c.authErr
				}
				return conn, nil
			default:
			}
			changed = c.authDone
		}
		if expire == nil && timeout > 0 {
			t := time.NewTimer(timeout)
			defer t.Stop()
			expire = t.C
		}
		select {
		case <-changed:
		case <-expire:
			return nil, c.notConnected(errNotConnected)
		case <-c.closing.Done():
			return nil, ErrClosed
		case <-ctx.Done():
			return nil, c.notConnected(ctx.Err())
		}
	}
}

// onEvent is go-zookeeper's event callback: it must never block.
func (c *Client) onEvent(ev zk.Event) {
	if ev.Type != zk.EventSession {
		c.mirror.fired(ev) // before go-zookeeper's own table forgets them
		c.watches.deliver(c.cfg.namespace, ev)
		return
	}
	if ev.State == zk.StateHasSession && c.mirror.any() {
		// go-zookeeper is about to set its watches again; see
		// transport's replyGate for the data race this avoids.
		c.transport.HoldRepliesUntilSetWatches()
	}
	c.transport.Recv().OnState(ev.State)
	c.log.Debug("zookeeper session event", "state", ev.State.String(), "server", ev.Server)
	c.sm.onEvent(ev.State)
}

// readsReplyAfterClose runs f, a call to CreateContainer or CreateTTL,
// through the reply guard (see internal/transport's ReplyGuard), which
// Close asks before closing go-zookeeper's connection.
func (c *Client) readsReplyAfterClose(f func() error) error {
	if err := c.replies.Run(f); err != zkconn.ErrClosed {
		return err
	}
	return ErrClosed
}

// notConnected is err, the reason a wait for a connection gave up, with why
// the latest attempt to connect failed, if it did.
func (c *Client) notConnected(err error) error {
	if dialErr := c.transport.DialErr(); dialErr != nil {
		return fmt.Errorf("%w; the last attempt to connect failed: %w", err, dialErr)
	}
	return err
}

// isClosed reports whether Close was called.
func (c *Client) isClosed() bool {
	return c.closing.Err() != nil
}

// closedErr turns the errors a closing connection produces into ErrClosed.
// It keeps only their text: go-zookeeper's connection errors are retryable,
// and the retry loop would sleep before trying a client that is gone.
func (c *Client) closedErr(err error) error {
	if err != nil && c.isClosed() && !errors.Is(err, ErrClosed) {
		return fmt.Errorf("%w: %v", ErrClosed, err)
	}
	return err
}

// endSession closes the session id, which came back after the client had
// reported it Lost (see stateMachine.onSession): the server ends it, its
// ephemeral nodes go, and go-zookeeper, finding it expired, opens a new
// one. It runs on the state machine's caller and must not block: the close
// goes out from a goroutine of the client's, over a connection of its own
// made with the client's dialer. If it fails, the client drops its
// connection, and the session's next return ends it again.
func (c *Client) endSession(id int64) {
	c.mu.Lock()
	defer c.mu.Unlock()
	hs := c.transport.Session()
	if c.closed || hs.ID != id {
		return
	}
	c.wg.Add(1)
	go func() {
		defer c.wg.Done()
		c.log.Warn("ending a session reported lost that came back", "session", fmt.Sprintf("%#x", id))
		ctx, cancel := context.WithTimeout(c.closing, c.cfg.connectionTimeout)
		defer cancel()
		if err := c.transport.CloseSession(ctx, hs); err != nil && !c.isClosed() {
			c.log.Warn("ending a session reported lost failed; reconnecting", "session", fmt.Sprintf("%#x", id), "err", err)
			c.transport.DropAll()
		}
	}()
}
