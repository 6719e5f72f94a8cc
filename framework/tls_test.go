package framework_test

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"net"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/gocurator/curator/framework"
	"github.com/gocurator/curator/recipes/locks"
	"github.com/gocurator/curator/recipestest"
	"github.com/gocurator/curator/zkharness"
)

// TestTLS runs every test that needs a TLS server on one: starting a
// server costs a JVM.
func TestTLS(t *testing.T) {
	srv := recipestest.StartServer(t, zkharness.WithTLS())
	t.Run("Operations", func(t *testing.T) { testTLSOperations(t, srv) })
	t.Run("Lock", func(t *testing.T) { testTLSLock(t, srv) })
	t.Run("UnknownCA", func(t *testing.T) { testTLSUnknownCA(t, srv) })
	t.Run("NoClientCertificate", func(t *testing.T) { testTLSNoClientCert(t, srv) })
	t.Run("PlainClient", func(t *testing.T) { testTLSPlainClient(t, srv) })
	t.Run("DialerAndHostName", func(t *testing.T) { testTLSDialerAndHostName(t, srv) })
}

// A client over TLS does the usual operations; the client's wrappers read
// the session handshake through TLS: the timeout the server clamped is the
// one the client reports.
func testTLSOperations(t *testing.T, srv *zkharness.Server) {
	ns := recipestest.Namespace(t)
	c := newClientAt(t, srv.SecureAddr(), framework.WithTLS(srv.TLSConfig()), framework.WithNamespace(ns),
		framework.WithSessionTimeout(time.Minute)) // the server clamps it to 20 ticks
	if got, want := c.SessionTimeout(), 4*time.Second; got != want {
		t.Errorf("session timeout %v, want the server's clamp %v (was the handshake read above TLS?)", got, want)
	}
	ctx := ctxT(t)
	if _, err := c.Create(ctx, "/a/b", []byte("one"), framework.WithParents()); err != nil {
		t.Fatal(err)
	}
	if _, err := c.Set(ctx, "/a/b", []byte("two"), -1); err != nil {
		t.Fatal(err)
	}
	data, _, err := c.Get(ctx, "/a/b")
	if err != nil || string(data) != "two" {
		t.Fatalf("get: %q, %v", data, err)
	}
	_, _, w, err := c.GetW(ctx, "/a/b")
	if err != nil {
		t.Fatal(err)
	}
	if err := c.Delete(ctx, "/a/b"); err != nil {
		t.Fatal(err)
	}
	if _, err := w.Wait(ctx); err != nil {
		t.Fatalf("the watch over TLS: %v", err)
	}
	kids, _, err := c.Children(ctx, "/a")
	if err != nil || len(kids) != 0 {
		t.Fatalf("children: %v, %v", kids, err)
	}
	// The plain port serves the same tree.
	plain := newClientAt(t, srv.ConnectString(), framework.WithNamespace(ns))
	if ok, _, err := plain.Exists(ctx, "/a"); err != nil || !ok {
		t.Fatalf("/a seen over the plain port: %v, %v", ok, err)
	}
}

// Two clients over TLS exclude each other with a mutex.
func testTLSLock(t *testing.T, srv *zkharness.Server) {
	ns := recipestest.Namespace(t)
	opts := []framework.Option{framework.WithTLS(srv.TLSConfig()), framework.WithNamespace(ns)}
	a := newClientAt(t, srv.SecureAddr(), opts...)
	b := newClientAt(t, srv.SecureAddr(), opts...)
	ctx := ctxT(t)
	ma, _ := locks.NewMutex(a, "/lock")
	mb, _ := locks.NewMutex(b, "/lock")
	ha, err := ma.Acquire(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := mb.TryAcquire(ctx); !errors.Is(err, locks.ErrBusy) {
		t.Fatalf("b's try while a holds: %v, want ErrBusy", err)
	}
	got := make(chan error, 1)
	go func() {
		hb, err := mb.Acquire(ctx)
		if err == nil {
			err = hb.Release(ctx)
		}
		got <- err
	}()
	waitParticipantsOf(t, ma, 2)
	if err := ha.Release(ctx); err != nil {
		t.Fatal(err)
	}
	if err := <-got; err != nil {
		t.Fatalf("b's acquire once a released: %v", err)
	}
}

// waitParticipantsOf polls until the mutex has n nodes (a waiter's node
// shows up on the server with no event of ours to wait on).
func waitParticipantsOf(t *testing.T, m *locks.Mutex, n int) {
	t.Helper()
	ctx := ctxT(t)
	for {
		p, err := m.Participants(ctx)
		if err == nil && len(p) == n {
			return
		}
		if ctx.Err() != nil {
			t.Fatalf("participants %v (%v), want %d", p, err, n)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// A client that does not trust the server's CA never connects; waiting for
// it ends with the context and says why: the certificate did not verify.
func testTLSUnknownCA(t *testing.T, srv *zkharness.Server) {
	cfg := srv.TLSConfig()
	cfg.RootCAs = x509.NewCertPool()
	err := failedConnect(t, srv.SecureAddr(), framework.WithTLS(cfg))
	var verr *tls.CertificateVerificationError
	if !errors.Is(err, framework.ErrTLSHandshake) || !errors.As(err, &verr) {
		t.Fatalf("connecting with the wrong CA: %v, want ErrTLSHandshake and a *tls.CertificateVerificationError", err)
	}
}

// The server requires a client certificate (ssl.clientAuth=need): a client
// without one is refused in the handshake.
func testTLSNoClientCert(t *testing.T, srv *zkharness.Server) {
	cfg := srv.TLSConfig()
	cfg.Certificates = nil
	err := failedConnect(t, srv.SecureAddr(), framework.WithTLS(cfg))
	var verr *tls.CertificateVerificationError
	if !errors.Is(err, framework.ErrTLSHandshake) || errors.As(err, &verr) || !strings.Contains(err.Error(), "bad certificate") {
		t.Fatalf("connecting without a client certificate: %v, want ErrTLSHandshake for the server's bad-certificate alert", err)
	}
	if !strings.Contains(err.Error(), "no client certificate was offered") {
		t.Fatalf("connecting without a client certificate: %v, want the error to say none was offered", err)
	}
}

// A plain client on a TLS port is told why it cannot connect: the server
// did not answer its session handshake, and the port may be TLS.
func testTLSPlainClient(t *testing.T, srv *zkharness.Server) {
	err := failedConnectLogging(t, "authentication failed", srv.SecureAddr())
	if msg := err.Error(); !strings.Contains(msg, "did not answer the session handshake") || !strings.Contains(msg, "connect with TLS") {
		t.Fatalf("a plain client on the TLS port: %v, want it to say the handshake went unanswered and the port may be TLS", err)
	}
}

// failedConnect starts a client that cannot connect, waits until its first
// attempt has failed (go-zookeeper logs it), then ends BlockUntilConnected's
// context and returns its error, which must be the context's.
func failedConnect(t *testing.T, addr string, opts ...framework.Option) error {
	t.Helper()
	return failedConnectLogging(t, "failed to connect", addr, opts...)
}

// failedConnectLogging is failedConnect for an attempt that fails after the
// dial, where go-zookeeper logs logged.
func failedConnectLogging(t *testing.T, logged, addr string, opts ...framework.Option) error {
	t.Helper()
	ctx, cancel := context.WithCancel(ctxT(t))
	defer cancel()
	logger, failed := recipestest.LogSignal(logged)
	go func() { // ends with ctx, which the deferred cancel ends at the latest
		select {
		case <-failed:
			cancel()
		case <-ctx.Done():
		}
	}()
	c, err := framework.New(addr, append(append(recipestest.ClientOptions(), framework.WithLogger(logger)), opts...)...)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	if err := c.Start(context.Background()); err != nil {
		t.Fatal(err)
	}
	err = c.BlockUntilConnected(ctx)
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("BlockUntilConnected: %v, want context.Canceled", err)
	}
	t.Logf("error: %v", err)
	return err
}

// With WithDialer, TLS runs over the dialer's connection: the dialer's
// first bytes are a TLS record, not ZooKeeper's handshake. The server is
// verified as the host the connect string names, not the address dialled.
func testTLSDialerAndHostName(t *testing.T, srv *zkharness.Server) {
	_, port, _ := net.SplitHostPort(srv.SecureAddr())
	var mu sync.Mutex
	var dialled, names []string
	var first []byte
	dialer := func(network, addr string, timeout time.Duration) (net.Conn, error) {
		nc, err := net.DialTimeout(network, addr, timeout)
		if err != nil {
			return nil, err
		}
		mu.Lock()
		dialled = append(dialled, addr)
		mu.Unlock()
		return &firstWrite{Conn: nc, fn: func(b []byte) {
			mu.Lock()
			if first == nil {
				first = append([]byte(nil), b...)
			}
			mu.Unlock()
		}}, nil
	}
	cfg := srv.TLSConfig()
	cfg.VerifyConnection = func(cs tls.ConnectionState) error {
		mu.Lock()
		names = append(names, cs.ServerName)
		mu.Unlock()
		return nil
	}
	c := newClientAt(t, "localhost:"+port, framework.WithTLS(cfg), framework.WithDialer(dialer),
		framework.WithNamespace(recipestest.Namespace(t)))
	if _, err := c.Create(ctxT(t), "/x", nil); err != nil {
		t.Fatal(err)
	}
	mu.Lock()
	defer mu.Unlock()
	if len(first) == 0 || first[0] != 0x16 { // a TLS handshake record
		t.Errorf("the dialer's connection first carried % x, want a TLS handshake record (16 ...)", first[:min(len(first), 8)])
	}
	for _, a := range dialled {
		if host, _, _ := net.SplitHostPort(a); net.ParseIP(host) == nil {
			t.Errorf("the dialer was given %q, want an address", a)
		}
	}
	for _, n := range names {
		if n != "localhost" {
			t.Errorf("the server was verified as %q, want the connect string's host, localhost", n)
		}
	}
	if len(names) == 0 {
		t.Error("no server was verified")
	}
}

// firstWrite calls fn with every buffer written.
type firstWrite struct {
	net.Conn
	fn func([]byte)
}

func (f *firstWrite) Write(b []byte) (int, error) {
	f.fn(b)
	return f.Conn.Write(b)
}

// A TLS config that cannot work is refused when the client is made.
func TestWithTLSRefusesBadConfig(t *testing.T) {
	for name, cfg := range map[string]*tls.Config{
		"nil":                     nil,
		"min above max":           {MinVersion: tls.VersionTLS13, MaxVersion: tls.VersionTLS12},
		"certificate without key": {Certificates: []tls.Certificate{{Certificate: [][]byte{{1}}}}},
		"key without certificate": {Certificates: []tls.Certificate{{PrivateKey: struct{}{}}}},
	} {
		if _, err := framework.New("127.0.0.1:"+strconv.Itoa(1), framework.WithTLS(cfg)); !errors.Is(err, framework.ErrInvalidArg) {
			t.Errorf("%s: %v, want ErrInvalidArg", name, err)
		}
	}
}

// A server that accepts the connection and never answers the TLS handshake
// holds neither the caller, whose wait ends with its context, nor Close,
// however long the connection timeout.
func TestTLSHandshakeWithSilentServer(t *testing.T) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	accepted := make(chan net.Conn, 1)
	go func() { // ends when l closes
		for {
			nc, err := l.Accept()
			if err != nil {
				return
			}
			defer nc.Close()
			select {
			case accepted <- nc:
			default:
			}
		}
	}()
	c, err := framework.New(l.Addr().String(), append(recipestest.ClientOptions(),
		framework.WithConnectionTimeout(time.Hour), framework.WithTLS(&tls.Config{}))...)
	if err != nil {
		t.Fatal(err)
	}
	if err := c.Start(context.Background()); err != nil {
		t.Fatal(err)
	}
	<-accepted // the handshake is under way, and will get no answer
	ctx, cancel := context.WithCancel(ctxT(t))
	cancel()
	if err := c.BlockUntilConnected(ctx); !errors.Is(err, context.Canceled) {
		t.Fatalf("waiting during the handshake: %v, want context.Canceled", err)
	}
	c.Close() // returns: the handshake ends with the client
}
