package framework

import (
	"bytes"
	"cmp"
	"context"
	"errors"
	"fmt"
	"log/slog"
	"sync"
	"sync/atomic"
	"time"

	"github.com/gocurator/curator/internal/delivery"
	"github.com/gocurator/curator/internal/zkconn"
	"github.com/gocurator/curator/listener"
	"github.com/gocurator/curator/observe"
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
	watches   watchFeed      // AddWatchListener's functions
	holds     watchHolds     // AddWatch's persistent watches and their holders
	hooks     *observe.Hooks // WithHooks's; nil: none
	dial      func(zkconn.Config) (conn, error)

	mu        sync.Mutex
	started   bool
	closed    bool
	conn      conn
	stopAfter func() bool // stops Start's context from closing the client

	authDone chan struct{}   // closed once the auth info is on the session
	authErr  error           // set before authDone is closed: the auth info was refused
	closing  context.Context // done once Close has begun; background work runs under it
	stopBg   context.CancelFunc
	janitor  *janitor
	wg       sync.WaitGroup // the auth step, and the end of a session reported Lost
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
	hooks, err := observe.New(log, cfg.hooks...)
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrInvalidArg, err)
	}
	c := &Client{
		cfg:       cfg,
		servers:   servers,
		log:       log,
		listeners: delivery.NewContainer(delivery.DefaultLimit, delivery.FoldFlaps),
		authDone:  make(chan struct{}),
		dial:      func(cfg zkconn.Config) (conn, error) { return zkconn.Connect(cfg) },
		hooks:     hooks,
	}
	c.closing, c.stopBg = context.WithCancel(context.Background())
	c.sm = newStateMachine(cfg.sessionTimeout, cfg.errorPolicy, c.listeners.Post)
	c.sm.hooks = hooks
	c.sm.revived = c.endSession
	return c, nil
}

// Start connects in the background; use BlockUntilConnected to wait. ctx is
// the client's lifetime: once it ends, the client closes as Close does
// (pass the context your application runs under, not a timeout). Starting
// twice, or after Close, is an error.
func (c *Client) Start(ctx context.Context) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.closed {
		return ErrClosed
	}
	if c.started {
		return fmt.Errorf("%w: client already started", ErrInvalidArg)
	}
	if err := ctx.Err(); err != nil {
		return err
	}
	var onRequest func(zkconn.RequestInfo)
	if c.hooks != nil {
		onRequest = c.onRequest
	}
	conn, err := c.dial(zkconn.Config{
		Servers:        c.servers,
		SessionTimeout: c.cfg.sessionTimeout,
		Timeout:        c.cfg.connectionTimeout,
		Dialer:         c.cfg.dialer,
		TLS:            c.cfg.tls,
		Log:            c.log,
		MaxReplySize:   cmp.Or(c.cfg.maxReplySize, DefaultMaxReplySize),
		OnSession:      c.sm.onEvent,
		OnWatch:        func(ev zkconn.Event) { c.watches.deliver(c.cfg.namespace, ev) },
		OnRequest:      onRequest,
		OnLateWatch:    c.resetAfterOneShot,
	})
	if err != nil {
		return fmt.Errorf("%w: %w", ErrInvalidArg, err)
	}
	c.conn, c.started = conn, true
	c.janitor = startJanitor(c)
	c.wg.Add(1)
	go c.authenticate(conn)
	c.stopAfter = context.AfterFunc(ctx, func() { c.Close() })
	return nil
}

// authenticate queues the auth info before any operation may run; the
// connection sends it again on every reconnect once it has succeeded.
func (c *Client) authenticate(conn conn) {
	defer c.wg.Done()
	defer close(c.authDone)
	for _, a := range c.cfg.auth {
		for {
			err := conn.AddAuth(c.closing, a.scheme, a.auth)
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
// are abandoned. Close is idempotent, and may be called before Start (which
// then fails).
//
// With a container or TTL create in flight, Close first waits up to a
// second for it to be answered. Against a server that does not answer, it
// then drops the connection and ends the session over one of its own, and
// may take about three seconds longer in all: the wait, closing the
// session, and go-zookeeper's wait for a close request that can no longer
// be sent (and up to the connection timeout more if go-zookeeper's receive
// loop does not end once its connection is dropped).
func (c *Client) Close() error {
	c.mu.Lock()
	if c.closed {
		c.mu.Unlock()
		return nil
	}
	c.closed = true
	c.stopBg()
	started, stopAfter := c.started, c.stopAfter
	c.mu.Unlock()
	if stopAfter != nil {
		stopAfter()
	}
	c.sm.close()
	if started {
		c.janitor.stop()
		c.conn.Close()
		c.wg.Wait()
	}
	c.listeners.Close()
	c.hooks.Close()
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

// SessionID returns the id of the current ZooKeeper session, 0 without one.
func (c *Client) SessionID() int64 {
	if conn := c.connOrNil(); conn != nil {
		return conn.SessionID()
	}
	return 0
}

// CurrentServer returns the address of the server the client is connected or
// connecting to, "" before Start.
func (c *Client) CurrentServer() string {
	if conn := c.connOrNil(); conn != nil {
		return conn.Server()
	}
	return ""
}

func (c *Client) connOrNil() conn {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.conn
}

// SessionTimeout returns the session timeout the server granted, or the
// requested one before the first session.
func (c *Client) SessionTimeout() time.Duration {
	return c.sm.sessionTimeout()
}

// ErrorPolicy returns the error policy recipes of this client follow.
func (c *Client) ErrorPolicy() listener.ErrorPolicy { return c.cfg.errorPolicy }

// DefaultData returns a copy of the data a Create given nil data writes
// (WithDefaultData; the local IP address by default, as Curator's), for
// recipes that write it with more of their own.
func (c *Client) DefaultData() []byte { return bytes.Clone(c.cfg.defaultData) }

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
// connection timeout; the retry loop retries it.
var errNotConnected = fmt.Errorf("%w: not connected within the connection timeout", ErrConnectionLoss)

// connected waits for a usable connection and returns it. A zero timeout
// waits as long as ctx allows.
func (c *Client) connected(ctx context.Context, timeout time.Duration) (conn, error) {
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

// notConnected is err, the reason a wait for a connection gave up, with why
// the latest attempt to connect failed, if it did.
func (c *Client) notConnected(err error) error {
	if dialErr := c.conn.DialErr(); dialErr != nil {
		return fmt.Errorf("%w; the last attempt to connect failed: %w", err, dialErr)
	}
	return err
}

// isClosed reports whether Close was called.
func (c *Client) isClosed() bool {
	return c.closing.Err() != nil
}

// closedErr turns the errors a closing connection produces into ErrClosed.
// It keeps only their text: connection errors are retryable, and the retry
// loop would sleep before trying a client that is gone.
func (c *Client) closedErr(err error) error {
	if err != nil && c.isClosed() && !errors.Is(err, ErrClosed) {
		return fmt.Errorf("%w: %v", ErrClosed, err)
	}
	return err
}

// endSession closes the session id, which came back after the client had
// reported it Lost (see stateMachine.onSession): the server ends it, its
// ephemeral nodes go, and the connection, finding it expired, opens a new
// one. It runs on the state machine's caller and must not block: the close
// goes out from a goroutine of the client's, over a connection of its own
// made with the client's dialer. If it fails, the connection is dropped,
// and the session's next return ends it again.
func (c *Client) endSession(id int64) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.closed || c.conn == nil {
		return
	}
	conn := c.conn
	c.wg.Add(1)
	go func() {
		defer c.wg.Done()
		c.log.Warn("ending a session reported lost that came back", "session", fmt.Sprintf("%#x", id))
		ctx, cancel := context.WithTimeout(c.closing, c.cfg.connectionTimeout)
		defer cancel()
		if err := conn.EndSession(ctx, id); err != nil && !c.isClosed() {
			c.log.Warn("ending a session reported lost failed; reconnecting", "session", fmt.Sprintf("%#x", id), "err", err)
		}
	}()
}

// InjectSessionExpiration ends the client's current session on the server,
// as Curator's ZooKeeper.injectSessionExpiration does, for tests of a
// client already running: the session is closed over a connection of the
// client's own (with the password its handshake gave), the server deletes
// its ephemeral nodes, and the client finds the session expired, reports
// Lost, and goes on with a new one (Reconnected). It returns once the
// server has closed the session.
func (c *Client) InjectSessionExpiration(ctx context.Context) error {
	conn := c.connOrNil()
	if conn == nil || c.isClosed() {
		return fmt.Errorf("%w: no session to expire", ErrNotStarted)
	}
	return conn.ExpireSession(ctx)
}
