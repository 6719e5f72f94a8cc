package zkconn

import (
	"context"
	"errors"
	"io"
	"net"
	"sync"
	"testing"
	"time"
)

// TestDialWaitsForASessionsClose: while a session is being closed over a
// connection of the transport's own, go-zookeeper's next dial waits; it
// goes ahead once the close has returned, and Close ends the wait.
func TestDialWaitsForASessionsClose(t *testing.T) {
	type dialed struct {
		addr string
		srv  net.Conn
	}
	dials := make(chan dialed, 4)
	tr := newTransport(transportConfig{Dialer: func(_, addr string, _ time.Duration) (net.Conn, error) {
		c, s := net.Pipe()
		t.Cleanup(func() { c.Close(); s.Close() })
		dials <- dialed{addr, s}
		return c, nil
	}})
	defer tr.stop()
	waiting := make(chan struct{}, 8)
	tr.waiting = func() { waiting <- struct{}{} }

	// A close whose server takes the request and never answers.
	ctx, cancel := context.WithCancel(context.Background())
	closed := make(chan error, 1)
	go func() { closed <- tr.closeSession(ctx, handshake{Addr: "old", ID: 1, Passwd: make([]byte, 16)}) }()
	if d := <-dials; d.addr != "old" {
		t.Fatalf("the close dialed %s", d.addr)
	} else {
		go io.Copy(io.Discard, d.srv)
	}

	var wg sync.WaitGroup
	defer wg.Wait()
	dial := func(addr string) <-chan error {
		done := make(chan error, 1)
		wg.Add(1)
		go func() {
			defer wg.Done()
			nc, err := tr.dial("tcp", addr, time.Second)
			if nc != nil {
				nc.Close()
			}
			done <- err
		}()
		return done
	}
	first := dial("new")
	select {
	case <-waiting:
	case d := <-dials:
		t.Fatalf("dialed %s while a session's close was under way", d.addr)
	}
	cancel()
	if err := <-closed; !errors.Is(err, context.Canceled) {
		t.Fatalf("the close: %v, want context.Canceled", err)
	}
	if d := <-dials; d.addr != "new" {
		t.Fatalf("dialed %s, want new", d.addr)
	}
	if err := <-first; err != nil {
		t.Fatalf("the dial after the close: %v", err)
	}

	// Close ends a dial's wait.
	ctx, cancel = context.WithCancel(context.Background())
	defer cancel()
	go func() { closed <- tr.closeSession(ctx, handshake{Addr: "old", ID: 1, Passwd: make([]byte, 16)}) }()
	if d := <-dials; d.addr != "old" {
		t.Fatalf("the close dialed %s", d.addr)
	} else {
		go io.Copy(io.Discard, d.srv)
	}
	second := dial("new")
	<-waiting
	tr.stop()
	if err := <-second; !errors.Is(err, errClosed) {
		t.Fatalf("a dial waiting at Close: %v, want errClosed", err)
	}
	cancel()
	<-closed
}
