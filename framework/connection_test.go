package framework_test

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"net"
	"slices"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/gocurator/curator/framework"
	"github.com/gocurator/curator/listener"
	"github.com/gocurator/curator/recipestest"
	"github.com/gocurator/curator/retry"
	"github.com/gocurator/curator/zkharness"
)

const (
	C = listener.Connected
	S = listener.Suspended
	R = listener.Reconnected
	L = listener.Lost
)

// A server restart within the session timeout: Suspended, then Reconnected
// on the same session, and the session's ephemeral node is still there.
func TestServerRestartSuspendsAndReconnectsSameSession(t *testing.T) {
	// A session long enough for the restart on a loaded machine: a JVM that
	// took longer to come back than the session made the client rightly
	// say Lost.
	const session = 20 * time.Second
	srv, c, log, id := clientWithEphemeral(t, session, (*zkharness.Server).ConnectString)
	ctx := ctxT(t)
	if err := srv.Stop(); err != nil {
		t.Fatal(err)
	}
	log.expect(t, C, S)
	if err := srv.Restart(); err != nil {
		t.Fatal(err)
	}
	log.expect(t, C, S, R)
	if got := c.SessionID(); got != id {
		t.Fatalf("session changed from %x to %x", id, got)
	}
	if ok, _, err := c.Exists(ctx, "/eph"); err != nil || !ok {
		t.Fatalf("ephemeral node after restart: exists=%v err=%v", ok, err)
	}
}

// The server stays down past the session timeout: the client reports Lost.
// The restarted server restores the session with a fresh timeout, and the
// client ends it, as Curator injects an expiry: the ephemeral node goes, as
// the Lost said, and the client reconnects on a new session. The client
// reaches the server only through its dialer (its connect string leads
// nowhere), and ends the session through it too.
func TestSessionReportedLostIsEndedWhenItComesBack(t *testing.T) {
	var real string
	viaDialer := framework.WithDialer(func(network, _ string, timeout time.Duration) (net.Conn, error) {
		return net.DialTimeout(network, real, timeout)
	})
	srv, c, log, session := clientWithEphemeral(t, 2*time.Second, func(srv *zkharness.Server) string {
		real = srv.Addr()
		return "127.0.0.1:1"
	}, viaDialer)
	ctx := ctxT(t)
	if err := srv.Stop(); err != nil {
		t.Fatal(err)
	}
	log.expect(t, C, S, L)
	if err := srv.Restart(); err != nil {
		t.Fatal(err)
	}
	log.expect(t, C, S, L, R)
	if c.SessionID() == session {
		t.Fatal("reconnected on the session reported lost")
	}
	if ok, _, err := c.Exists(ctx, "/eph"); err != nil || ok {
		t.Fatalf("the lost session's ephemeral node: exists=%v err=%v", ok, err)
	}
}

// The server expires the session: Lost, then Reconnected on a new session,
// and the old session's ephemeral node is gone.
func TestServerSideExpiryIsLostThenReconnected(t *testing.T) {
	killer := zkharness.NewSessionKiller()
	c, log := startClient(t, server.ConnectString(), framework.WithNamespace(recipestest.Namespace(t)),
		framework.WithDialer(killer.Dialer(nil)))
	ctx := ctxT(t)
	if _, err := c.Create(ctx, "/eph", nil, framework.WithMode(framework.Ephemeral)); err != nil {
		t.Fatal(err)
	}
	old := c.SessionID()
	if err := killer.Kill(ctx); err != nil {
		t.Fatal(err)
	}
	log.waitLast(t, R)
	// The connection drops (Suspended), the server then says the session
	// expired (Lost), and a new session follows (Reconnected).
	if got := log.snapshot(); !slices.Equal(got, []listener.ConnectionState{C, S, L, R}) {
		t.Fatalf("states %v, want [C S L R]", got)
	}
	if c.SessionID() == old {
		t.Fatal("session id unchanged after expiry")
	}
	if ok, _, err := c.Exists(ctx, "/eph"); err != nil || ok {
		t.Fatalf("old session's ephemeral: exists=%v err=%v", ok, err)
	}
}

// Cut off by a proxy that forwards nothing: the server never says the session
// expired, yet the client reports Lost once Suspended has lasted the
// negotiated session timeout (Curator's rule).
func TestSuspendedForSessionTimeoutIsLost(t *testing.T) {
	proxy := recipestest.StartProxy(t, server.Addr())
	c, log := startClient(t, proxy.Addr(), framework.WithSessionTimeout(2*time.Second))
	proxy.Blackhole(true)
	log.expect(t, C, S, L)
	if got := c.SessionTimeout(); got != 2*time.Second {
		t.Fatalf("negotiated timeout %v, want 2s", got)
	}
	proxy.Blackhole(false)
	proxy.DropAll()
	log.expect(t, C, S, L, R)
}

func TestBlockUntilConnectedHonoursContext(t *testing.T) {
	c, err := framework.New("127.0.0.1:1") // nothing listens there
	if err != nil {
		t.Fatal(err)
	}
	if err := c.Start(context.Background()); err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if err := c.BlockUntilConnected(ctx); !errors.Is(err, context.Canceled) {
		t.Fatalf("BlockUntilConnected = %v, want context.Canceled", err)
	}
}

// A call blocked on a silent server returns as soon as its context is
// cancelled.
func TestCancelFreesBlockedCall(t *testing.T) {
	proxy := recipestest.StartProxy(t, server.Addr())
	c := newClientAt(t, proxy.Addr(), framework.WithNamespace(recipestest.Namespace(t)))
	proxy.Blackhole(true)
	ctx, cancel := context.WithCancel(context.Background())
	errc := make(chan error, 1)
	go func() {
		_, _, err := c.Get(ctx, "/x")
		errc <- err
	}()
	cancel()
	if err := <-errc; !errors.Is(err, context.Canceled) {
		t.Fatalf("Get = %v, want context.Canceled", err)
	}
	proxy.Blackhole(false)
}

// With a 3-node ensemble, losing one member moves the client to another
// without Lost; losing quorum gives Suspended and then Lost.
func TestEnsembleMemberLossAndQuorumLoss(t *testing.T) {
	ens, err := zkharness.StartEnsemble(3)
	if err != nil {
		t.Fatal(err)
	}
	defer ens.Close()
	c, log := startClient(t, ens.ConnectString(), framework.WithSessionTimeout(4*time.Second))
	ctx := ctxT(t)
	if _, err := c.Create(ctx, "/before", nil); err != nil {
		t.Fatal(err)
	}
	connected := memberOf(t, ens, c)
	if err := ens.Kill(connected); err != nil {
		t.Fatal(err)
	}
	if _, err := c.Create(ctx, "/after-one", nil); err != nil {
		t.Fatalf("create after losing one member: %v", err)
	}
	for _, s := range log.snapshot() {
		if s == L {
			t.Fatalf("Lost after losing one of three members: %v", log.snapshot())
		}
	}
	// Kill a second member: no quorum is left.
	for i := range 3 {
		if i != connected {
			if err := ens.Kill(i); err != nil {
				t.Fatal(err)
			}
			break
		}
	}
	log.waitLast(t, L)
	got := log.snapshot()
	if got[len(got)-2] != S {
		t.Fatalf("states %v, want Suspended then Lost", got)
	}
}

// memberOf returns the index of the ensemble member c is connected to.
func memberOf(t *testing.T, ens *zkharness.Ensemble, c *framework.Client) int {
	t.Helper()
	cur := c.CurrentServer()
	for i := range 3 {
		if ens.Member(i) == cur {
			return i
		}
	}
	t.Fatalf("connected to %q, not an ensemble member", cur)
	return -1
}

// clientWithEphemeral starts a server of the test's own and a client of it
// at connect(server) with sessionTimeout and opts, whose session has made
// the ephemeral node /eph.
func clientWithEphemeral(t *testing.T, sessionTimeout time.Duration, connect func(*zkharness.Server) string, opts ...framework.Option) (*zkharness.Server, *framework.Client, *stateLog, int64) {
	t.Helper()
	// The server grants the session asked for: its default bound (20 ticks,
	// 4 s) would cut a longer one short.
	srv, err := zkharness.NewServer(zkharness.WithSessionTimeouts(sessionTimeout, sessionTimeout))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { srv.Close() })
	c, log := startClient(t, connect(srv), append([]framework.Option{framework.WithSessionTimeout(sessionTimeout)}, opts...)...)
	if _, err := c.Create(ctxT(t), "/eph", nil, framework.WithMode(framework.Ephemeral)); err != nil {
		t.Fatal(err)
	}
	return srv, c, log, c.SessionID()
}

// A call in flight when the client closes returns ErrClosed at once, not
// after a sleep of the retry policy's: the connection's error it got is not
// retried.
func TestCallInFlightAtCloseIsNotRetried(t *testing.T) {
	proxy := recipestest.StartProxy(t, server.Addr())
	c := newClientAt(t, proxy.Addr(), framework.WithNamespace(recipestest.Namespace(t)),
		framework.WithRetryPolicy(retry.RetryNTimes(3, time.Hour)))
	ctx := ctxT(t)
	if _, err := c.Create(ctx, "/dir", nil); err != nil {
		t.Fatal(err)
	}
	proxy.Blackhole(true)
	tctx, sent := framework.NotifyWritten(ctx)
	done := make(chan error, 1)
	go func() {
		_, err := c.Create(tctx, "/dir/n", nil)
		done <- err
	}()
	<-sent
	c.Close()
	err := <-done
	if !errors.Is(err, framework.ErrClosed) || ctx.Err() != nil {
		t.Fatalf("call in flight at Close: %v (test context: %v), want ErrClosed at once", err, ctx.Err())
	}
}

// Close ends a call's retry loop in its sleep: the call returns ErrClosed,
// not after the policy's hour.
func TestCloseEndsTheRetrySleep(t *testing.T) {
	proxy := recipestest.StartProxy(t, server.Addr())
	sleeping := make(chan struct{})
	var once sync.Once
	policy := retry.PolicyFunc(func(retries int, _ time.Duration) (time.Duration, bool) {
		once.Do(func() { close(sleeping) })
		return time.Hour, retries < 3
	})
	c, log := startClient(t, proxy.Addr(), framework.WithNamespace(recipestest.Namespace(t)),
		framework.WithConnectionTimeout(200*time.Millisecond), framework.WithRetryPolicy(policy))
	proxy.Blackhole(true)
	defer proxy.Blackhole(false)
	log.waitLast(t, S)
	done := make(chan error, 1)
	go func() {
		_, _, err := c.Get(context.Background(), "/x") // no deadline of its own
		done <- err
	}()
	<-sleeping // an attempt failed (the server is silent), and the loop sleeps
	c.Close()
	select {
	case err := <-done:
		if !errors.Is(err, framework.ErrClosed) {
			t.Fatalf("call whose retry loop slept at Close: %v, want ErrClosed", err)
		}
	case <-ctxT(t).Done():
		t.Fatal("the call slept on after Close")
	}
}

// Close with a container create in flight, its reply arriving as Close
// runs: go-zookeeper reads that call's reply even after Close (see
// replyguard.go), so this is a data race under -race unless Close lets the
// create finish, or ends the receive loop first. The session must still end
// with Close, and the create either succeeds or returns ErrClosed.
func TestCloseWithContainerCreateInFlight(t *testing.T) {
	ns := recipestest.Namespace(t)
	proxy := recipestest.StartProxy(t, server.Addr())
	observer := newClient(t, framework.WithNamespace(ns))
	for i := range 20 {
		c := newClientAt(t, proxy.Addr(), framework.WithNamespace(ns))
		eph, done := silentContainerCreate(t, c, proxy, i)
		proxy.Blackhole(false)
		c.Close()
		if err := <-done; err != nil && !errors.Is(err, framework.ErrClosed) {
			t.Fatalf("round %d: container create in flight at Close: %v, want success or ErrClosed", i, err)
		}
		assertGone(t, observer, eph)
	}
}

// Close with a container create in flight on a server that answers lets the
// create finish and closes as usual, over the session's own connection: the
// path that cuts the create off (a new connection to close the session) is
// for a silent server. Cutting off here made Close wait a second, now and
// then, for go-zookeeper's close request, sent when its loop had gone.
func TestCloseWaitsForAnsweredContainerCreate(t *testing.T) {
	ns := recipestest.Namespace(t)
	observer := newClient(t, framework.WithNamespace(ns))
	ctx := ctxT(t)
	for i := range 5 {
		var dials atomic.Int32
		var armed atomic.Bool
		gate := make(chan struct{})
		held := make(chan struct{})
		dialer := func(network, addr string, timeout time.Duration) (net.Conn, error) {
			dials.Add(1)
			nc, err := net.DialTimeout(network, addr, timeout)
			if err != nil {
				return nil, err
			}
			return &holdConn{Conn: nc, op: zkharness.OpCreateContainer, armed: &armed, held: held, gate: gate}, nil
		}
		c := newClientAt(t, server.ConnectString(), framework.WithNamespace(ns), framework.WithDialer(dialer))
		eph := fmt.Sprintf("/eph-%d", i)
		if _, err := c.Create(ctx, eph, nil, framework.WithMode(framework.Ephemeral)); err != nil {
			t.Fatal(err)
		}
		armed.Store(true)
		done := make(chan error, 1)
		go func() {
			_, err := c.Create(ctx, fmt.Sprintf("/box-%d", i), nil, framework.WithMode(framework.Container))
			done <- err
		}()
		<-held // the create is in flight, its request held back
		go func() { <-c.Done(); close(gate) }()
		c.Close()
		if err := <-done; err != nil {
			t.Fatalf("round %d: container create answered during Close: %v, want success", i, err)
		}
		if n := dials.Load(); n != 1 {
			t.Fatalf("round %d: %d connections, want 1 (the session closed over its own)", i, n)
		}
		assertGone(t, observer, eph)
	}
}

// holdConn holds back the first request with opcode op written once armed,
// until gate is closed; held is closed when it does.
type holdConn struct {
	net.Conn
	op    int32
	armed *atomic.Bool
	held  chan struct{}
	gate  <-chan struct{}
	once  sync.Once
}

func (h *holdConn) Write(b []byte) (int, error) {
	if h.armed.Load() && len(b) >= 12 && int32(binary.BigEndian.Uint32(b[8:12])) == h.op {
		h.once.Do(func() {
			close(h.held)
			<-h.gate
		})
	}
	return h.Conn.Write(b)
}

// Close with a container create in flight on a silent server cuts the
// create off once the reply has not come within a grace: it drops the
// connection, waits for go-zookeeper's receive loop to end, and closes the
// session over a connection of its own. The create returns ErrClosed and
// the session's ephemeral node is gone when Close returns.
func TestCloseCutsOffContainerCreateOnSilentServer(t *testing.T) {
	ns := recipestest.Namespace(t)
	proxy := recipestest.StartProxy(t, server.Addr())
	observer := newClient(t, framework.WithNamespace(ns))
	for i := range 2 {
		var dials atomic.Int32
		closing := make(chan struct{}) // the dial that closes the session
		dialer := func(network, addr string, timeout time.Duration) (net.Conn, error) {
			if dials.Add(1) == 2 {
				close(closing)
			}
			return net.DialTimeout(network, addr, timeout)
		}
		c := newClientAt(t, proxy.Addr(), framework.WithNamespace(ns), framework.WithDialer(dialer))
		eph, done := silentContainerCreate(t, c, proxy, i)
		closed := make(chan struct{})
		go func() { c.Close(); close(closed) }()
		<-closing
		proxy.Blackhole(false) // lets the session's close through
		<-closed
		if err := <-done; !errors.Is(err, framework.ErrClosed) {
			t.Fatalf("round %d: container create cut off by Close: %v, want ErrClosed", i, err)
		}
		if n := dials.Load(); n != 2 {
			t.Fatalf("round %d: %d connections, want 2 (the session's, and one to close it)", i, n)
		}
		assertGone(t, observer, eph)
	}
}

// silentContainerCreate makes the ephemeral node eph on c, silences proxy,
// and starts a container create on c; it returns once the create's request
// is written, with the create's result to come on done.
func silentContainerCreate(t *testing.T, c *framework.Client, proxy *zkharness.Proxy, round int) (eph string, done <-chan error) {
	t.Helper()
	ctx := ctxT(t)
	eph = fmt.Sprintf("/eph-%d", round)
	if _, err := c.Create(ctx, eph, nil, framework.WithMode(framework.Ephemeral)); err != nil {
		t.Fatal(err)
	}
	proxy.Blackhole(true)
	tctx, sent := framework.NotifyWritten(ctx)
	result := make(chan error, 1)
	go func() {
		_, err := c.Create(tctx, fmt.Sprintf("/box-%d", round), nil, framework.WithMode(framework.Container))
		result <- err
	}()
	<-sent
	return eph, result
}

// assertGone fails the test if path exists: the ephemeral node of a closed
// session.
func assertGone(t *testing.T, observer *framework.Client, path string) {
	t.Helper()
	if ok, _, err := observer.Exists(ctxT(t), path); err != nil || ok {
		t.Fatalf("ephemeral node %s after Close: exists=%v err=%v, want gone", path, ok, err)
	}
}
