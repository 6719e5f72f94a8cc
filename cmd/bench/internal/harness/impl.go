package harness

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"net"
	"strings"
	"sync"
	"time"

	"github.com/go-zookeeper/zk"

	"github.com/gocurator/curator/framework"
	"github.com/gocurator/curator/internal/zkwire"
	"github.com/gocurator/curator/recipes/locks"
	"github.com/gocurator/curator/retry"
	"github.com/gocurator/curator/zkharness"
)

// release gives a hold back.
type release func(ctx context.Context) error

// acquirer takes one lock (or lease) for one client.
type acquirer func(ctx context.Context) (release, error)

// session is one client's connection, whatever library drives it.
type session interface {
	counter() *zkharness.Counter
	close()
}

// impl is one Go implementation under test.
type impl interface {
	name() string
	connect(addr string) (session, error)
	// mutex, semaphore, read and write return acquirers for a session, or
	// nil if the implementation has no such lock.
	mutex(s session, path string) acquirer
	semaphore(s session, path string, leases int) acquirer
	readWrite(s session, path string, write bool) acquirer
}

// --- gocurator ---

// curatorGo is gocurator's recipes, on clients with the hooks of its set
// (nil: none).
type curatorGo struct{ hooks *HookSet }

type goSession struct {
	c   *framework.Client
	cnt *zkharness.Counter
}

func (s *goSession) counter() *zkharness.Counter { return s.cnt }
func (s *goSession) close()                      { s.c.Close() }

// name is gocurator, or gocurator+NAME with the hooks NAME.
func (g curatorGo) name() string {
	if g.hooks == nil {
		return "gocurator"
	}
	return "gocurator+" + g.hooks.Name
}

func (g curatorGo) connect(addr string) (session, error) {
	if g.hooks == nil {
		return connectGo(addr, nil)
	}
	hook, err := g.hooks.New()
	if err != nil {
		return nil, fmt.Errorf("hooks %s: %w", g.hooks.Name, err)
	}
	return connectGo(addr, nil, framework.WithHooks(hook))
}

// connectGo opens a gocurator session with opts; wrap, if not nil, wraps
// its counted dialer.
func connectGo(addr string, wrap func(framework.Dialer) framework.Dialer, opts ...framework.Option) (session, error) {
	cnt := zkharness.NewCounter()
	dial := cnt.Dialer(nil)
	if wrap != nil {
		dial = wrap(dial)
	}
	c, err := framework.New(addr, append([]framework.Option{framework.WithDialer(dial), framework.WithSessionTimeout(10 * time.Second),
		framework.WithRetryPolicy(retry.ExponentialBackoffRetry(10*time.Millisecond, 10))}, opts...)...)
	if err != nil {
		return nil, err
	}
	if err := c.Start(context.Background()); err != nil {
		return nil, err
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if err := c.BlockUntilConnected(ctx); err != nil {
		c.Close()
		return nil, err
	}
	return &goSession{c, cnt}, nil
}

func holdAcquirer(acquire func(context.Context) (*locks.Hold, error)) acquirer {
	return func(ctx context.Context) (release, error) {
		h, err := acquire(ctx)
		if err != nil {
			return nil, err
		}
		return h.Release, nil
	}
}

func (curatorGo) mutex(s session, path string) acquirer {
	m, err := locks.NewMutex(s.(*goSession).c, path)
	if err != nil {
		panic(err)
	}
	return holdAcquirer(m.Acquire)
}

func (curatorGo) semaphore(s session, path string, leases int) acquirer {
	sem, err := locks.NewSemaphore(s.(*goSession).c, path, leases)
	if err != nil {
		panic(err)
	}
	return holdAcquirer(sem.Acquire)
}

func (curatorGo) readWrite(s session, path string, write bool) acquirer {
	rw, err := locks.NewReadWriteLock(s.(*goSession).c, path)
	if err != nil {
		panic(err)
	}
	if write {
		return holdAcquirer(rw.WriteLock().Acquire)
	}
	return holdAcquirer(rw.ReadLock().Acquire)
}

// --- bare go-zookeeper sessions, for the floor and zk.Lock ---

type zkSession struct {
	conn *zk.Conn
	cnt  *zkharness.Counter
	sent *writeSignals // a create or multi request was written (see createThenList)
}

// sentIn returns the channel signalled when a create (or a multi whose
// first op is a create) of a node in dir has been written.
func (s *zkSession) sentIn(dir string) <-chan struct{} { return s.sent.in(dir) }

func (s *zkSession) counter() *zkharness.Counter { return s.cnt }
func (s *zkSession) close()                      { s.conn.Close() }

type quietLogger struct{}

func (quietLogger) Printf(string, ...any) {}

// connectZK opens a bare go-zookeeper session to addr, a connect string of
// one or more comma-separated members. With buffered set its connection
// reads through a buffer, as gocurator's client does.
func connectZK(addr string, buffered bool) (session, error) {
	return connectZKWith(addr, buffered, nil)
}

// connectZKWith is connectZK with wrap, if not nil, around its counted
// dialer.
func connectZKWith(addr string, buffered bool, wrap func(framework.Dialer) framework.Dialer) (session, error) {
	cnt := zkharness.NewCounter()
	sent := &writeSignals{}
	dial := cnt.Dialer(net.DialTimeout)
	if wrap != nil {
		dial = wrap(dial)
	}
	dial = signalCreates(sent, dial)
	if buffered {
		dial = bufferReads(dial)
	}
	conn, events, err := zk.Connect(strings.Split(addr, ","), 10*time.Second, zk.WithDialer(zk.Dialer(dial)),
		zk.WithLogInfo(false), zk.WithLogger(quietLogger{}))
	if err != nil {
		return nil, err
	}
	deadline := time.After(30 * time.Second)
	for {
		select {
		case ev := <-events:
			if ev.State == zk.StateHasSession {
				go func() { // drain, so go-zookeeper never blocks on it
					for range events {
					}
				}()
				return &zkSession{conn, cnt, sent}, nil
			}
		case <-deadline:
			conn.Close()
			return nil, errors.New("bench: no session")
		}
	}
}

// signalCreates wraps next so that writing a create or multi request
// signals the node's directory in sent. In the throughput workloads a floor
// session has at most one such request in flight per directory (the
// many-locks workload's goroutines share a session, each with a directory
// of its own); in the memory workload, with many acquirers of one lock on
// a session, a signal may be taken by another's listing, which is then made
// again (memory counts no requests).
func signalCreates(sent *writeSignals, next framework.Dialer) framework.Dialer {
	return func(network, addr string, timeout time.Duration) (net.Conn, error) {
		c, err := next(network, addr, timeout)
		if err != nil {
			return nil, err
		}
		return signalConn{c, sent}, nil
	}
}

// bufferReads wraps next so that reads go through a buffer, as in
// gocurator's client (framework's bufferedConn): go-zookeeper reads every
// frame in two reads, its length and its body.
func bufferReads(next framework.Dialer) framework.Dialer {
	return func(network, addr string, timeout time.Duration) (net.Conn, error) {
		c, err := next(network, addr, timeout)
		if err != nil {
			return nil, err
		}
		return bufferedConn{c, bufio.NewReaderSize(c, 16<<10)}, nil
	}
}

type bufferedConn struct {
	net.Conn
	r *bufio.Reader
}

func (c bufferedConn) Read(b []byte) (int, error) { return c.r.Read(b) }

type signalConn struct {
	net.Conn
	sent *writeSignals
}

// Write signals once the request is written, as gocurator's connection
// does: go-zookeeper's send loop takes the next request only after Write
// returns, so a request queued now goes after this one.
func (c signalConn) Write(b []byte) (int, error) {
	n, err := c.Conn.Write(b)
	if p, ok := zkwire.CreatedPath(b); err == nil && ok {
		c.sent.signal(string(p))
	}
	return n, err
}

// writeSignals is a session's channels of written creates, one per
// directory a create was asked about (see createThenList).
type writeSignals struct{ chans sync.Map } // directory → chan struct{} (buffered 1)

// in returns dir's channel.
func (w *writeSignals) in(dir string) <-chan struct{} {
	ch, _ := w.chans.LoadOrStore(dir, make(chan struct{}, 1))
	return ch.(chan struct{})
}

// signal tells the waiter on the created path's directory, if any.
func (w *writeSignals) signal(path string) {
	dir := path[:max(strings.LastIndexByte(path, '/'), 0)]
	if ch, ok := w.chans.Load(dir); ok {
		select {
		case ch.(chan struct{}) <- struct{}{}:
		default:
		}
	}
}

// --- go-zookeeper's zk.Lock ---

type zkLock struct{}

func (zkLock) name() string                             { return "zk.Lock" }
func (zkLock) connect(addr string) (session, error)     { return connectZK(addr, false) }
func (zkLock) semaphore(session, string, int) acquirer  { return nil }
func (zkLock) readWrite(session, string, bool) acquirer { return nil }

func (zkLock) mutex(s session, path string) acquirer {
	l := zk.NewLock(s.(*zkSession).conn, path, openACL)
	return func(ctx context.Context) (release, error) {
		if err := l.Lock(); err != nil {
			return nil, err
		}
		return func(context.Context) error { return l.Unlock() }, nil
	}
}
