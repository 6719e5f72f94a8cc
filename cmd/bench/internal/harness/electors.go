package harness

import (
	"context"
	"encoding/binary"
	"fmt"
	"net"
	"sync"
	"time"

	"github.com/gocurator/curator/framework"
	"github.com/gocurator/curator/internal/zkwire"
	"github.com/gocurator/curator/recipes/leader"
)

// electors returns the Go implementations of leader election whose names
// only selects: gocurator's Selector (and its Latch, as gocurator-latch,
// with it) and the floor.
func electors(only []string) []elector {
	var els []elector
	for _, name := range only {
		switch name {
		case "gocurator":
			els = append(els, elector{"gocurator", joinSelector}, elector{"gocurator-latch", joinLatch})
		case "floor":
			els = append(els, elector{"floor", joinFloor})
		}
	}
	return els
}

// joinSelector is a gocurator leader.Selector whose function runs until
// its term ends.
func joinSelector(addr, path string, id int, led func()) (*participant, error) {
	stamp := new(wireStamps)
	s, err := connectGo(addr, stamp.dialer)
	if err != nil {
		return nil, err
	}
	gs := s.(*goSession)
	sel, err := leader.NewSelector(gs.c, path, func(ctx context.Context, _ *leader.Leadership) error {
		led()
		<-ctx.Done()
		return nil
	}, leader.WithID(fmt.Sprintf("p%d", id)))
	if err == nil {
		err = sel.Start(context.Background())
	}
	if err != nil {
		s.close()
		return nil, err
	}
	return &participant{cnt: gs.cnt, closeSession: s.close, closeWritten: stamp.closeWritten, notified: stamp.lastNotified, stop: func() { _ = sel.Close() }}, nil
}

// joinLatch is a gocurator leader.Latch whose listener is told of the term.
func joinLatch(addr, path string, id int, led func()) (*participant, error) {
	stamp := new(wireStamps)
	s, err := connectGo(addr, stamp.dialer)
	if err != nil {
		return nil, err
	}
	gs := s.(*goSession)
	l, err := leader.NewLatch(gs.c, path, leader.WithID(fmt.Sprintf("p%d", id)))
	if err == nil {
		_, err = l.AddListener(func(ev leader.Event) {
			if ev.Leader {
				led()
			}
		})
	}
	if err == nil {
		err = l.Start(context.Background())
	}
	if err != nil {
		s.close()
		return nil, err
	}
	return &participant{cnt: gs.cnt, closeSession: s.close, closeWritten: stamp.closeWritten, notified: stamp.lastNotified, stop: func() { _ = l.Close() }}, nil
}

// joinFloor is the election's protocol in bare go-zookeeper calls, the
// floor's mutex: an ephemeral sequential node (with the listing sent right
// behind its create), a data watch on the predecessor, and on its
// notification one listing.
func joinFloor(addr, path string, _ int, led func()) (*participant, error) {
	stamp := new(wireStamps)
	s, err := connectZKWith(addr, true, stamp.dialer)
	if err != nil {
		return nil, err
	}
	zs := s.(*zkSession)
	q := floorLock(zs, path, "lock-", standardDecide(1))
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() {
		defer close(done)
		if _, err := q.acquire(ctx); err == nil {
			led()
		}
	}()
	return &participant{cnt: zs.cnt, closeSession: s.close, closeWritten: stamp.closeWritten, notified: stamp.lastNotified, stop: func() { cancel(); <-done }}, nil
}

// wireStamps records when a session's closeSession request was written to
// its connection, the moment the session's end leaves the client whatever
// its Close does before and after, and when its latest watch notification
// was read from the connection.
type wireStamps struct {
	mu           sync.Mutex
	closed       time.Time
	notified     time.Time
	notifiedMono int64 // the same on mono's clock
}

// closeWritten returns when closeSession was written (zero if it was not).
func (s *wireStamps) closeWritten() time.Time {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.closed
}

// lastNotified returns when the latest notification was read (zero if
// none was).
func (s *wireStamps) lastNotified() time.Time {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.notified
}

// lastNotifiedMono is lastNotified on mono's clock (zero if none was).
func (s *wireStamps) lastNotifiedMono() int64 {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.notifiedMono
}

// dialer wraps next so that its connections stamp s.
func (s *wireStamps) dialer(next framework.Dialer) framework.Dialer {
	return func(network, addr string, timeout time.Duration) (net.Conn, error) {
		c, err := next(network, addr, timeout)
		if err != nil {
			return nil, err
		}
		sc := &stampConn{Conn: c, s: s}
		sc.in.OnFrame = func(p []byte) { // xid, zxid, error, ...
			if len(p) >= 4 && int32(binary.BigEndian.Uint32(p[:4])) == zkwire.NotificationXid {
				sc.s.mu.Lock()
				sc.s.notified, sc.s.notifiedMono = sc.readAt, sc.readMono
				sc.s.mu.Unlock()
			}
		}
		return sc, nil
	}
}

// stampConn stamps a connection's closeSession and notifications. Its
// reads come from one goroutine, go-zookeeper's receive loop.
type stampConn struct {
	net.Conn
	s        *wireStamps
	in       zkwire.Splitter
	readAt   time.Time // when the bytes being split were read
	readMono int64     // the same on mono's clock
}

// Write stamps closeSession: go-zookeeper writes each request in one Write,
// the frame's length, xid and opcode first.
func (c *stampConn) Write(b []byte) (int, error) {
	if len(b) >= 12 && int32(binary.BigEndian.Uint32(b[8:12])) == zkwire.OpCloseSession {
		now := time.Now()
		c.s.mu.Lock()
		c.s.closed = now
		c.s.mu.Unlock()
	}
	return c.Conn.Write(b)
}

func (c *stampConn) Read(b []byte) (int, error) {
	n, err := c.Conn.Read(b)
	if n > 0 {
		c.readAt, c.readMono = time.Now(), mono()
		c.in.Feed(b[:n])
	}
	return n, err
}
