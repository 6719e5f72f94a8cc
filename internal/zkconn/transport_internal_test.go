package zkconn

import (
	"bytes"
	"context"
	"encoding/binary"
	"errors"
	"io"
	"net"
	"sync"
	"testing"
	"time"

	"github.com/gocurator/curator/internal/zkwire"
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

// The handshake's request carries the highest zxid the client has seen,
// own requests' replies included (go-zookeeper counts only its own), so a
// server behind what a multiRead read refuses the client; the first write
// alone is the handshake's.
func TestHandshakeCarriesTheOwnRepliesZxid(t *testing.T) {
	connect := func(lastZxid int64) []byte {
		b := binary.BigEndian.AppendUint32(nil, 44)
		b = binary.BigEndian.AppendUint32(b, 0) // protocolVersion
		b = binary.BigEndian.AppendUint64(b, uint64(lastZxid))
		return append(b, make([]byte, 36)...)
	}
	tr := &transport{}
	client, server := net.Pipe()
	defer client.Close()
	defer server.Close()
	tc := &trackedConn{Conn: client, t: tr, closed: make(chan struct{})}
	tr.ownZxid.Store(70)
	sent := connect(50)
	got := make([]byte, len(sent))
	for i, want := range []int64{70, 50} { // the handshake raised; a later frame as written
		go func() { _, _ = tc.Write(sent) }()
		if _, err := io.ReadFull(server, got); err != nil {
			t.Fatal(err)
		}
		if z := int64(binary.BigEndian.Uint64(got[8:])); z != want {
			t.Errorf("write %d carried lastZxidSeen %d, want %d", i, z, want)
		}
	}
	if z := int64(binary.BigEndian.Uint64(sent[8:])); z != 50 {
		t.Errorf("go-zookeeper's buffer was changed: %d", z)
	}
	if r := raiseLastZxid(connect(90), 70); int64(binary.BigEndian.Uint64(r[8:])) != 90 {
		t.Error("a lastZxidSeen above the own replies' was lowered")
	}
}

// A run of replies to own requests is taken off the stream in one Read,
// each handed to its request, the highest zxid among them kept for the
// next handshake; go-zookeeper reads the frame after them.
func TestOwnRepliesAreTakenOffTheStream(t *testing.T) {
	tr := &transport{}
	client, server := net.Pipe()
	defer client.Close()
	defer server.Close()
	tc := &trackedConn{Conn: client, t: tr, closed: make(chan struct{})}
	b := newBufferedConn(client, tc, new(readClock), 1<<20)
	frame := func(xid int32, zxid int64) []byte {
		p := binary.BigEndian.AppendUint32(nil, 16)
		p = binary.BigEndian.AppendUint32(p, uint32(xid))
		p = binary.BigEndian.AppendUint64(p, uint64(zxid))
		return binary.BigEndian.AppendUint32(p, 0)
	}
	var stream []byte
	var waits []chan []byte
	for i, zxid := range []int64{40, 90, 60} {
		xid := zkwire.OwnXidLimit - int32(i)
		waits = append(waits, tc.own.expect(xid))
		stream = append(stream, frame(xid, zxid)...)
	}
	theirs := frame(7, 95)
	stream = append(stream, theirs...)
	go func() { _, _ = server.Write(stream) }()
	got := make([]byte, len(theirs))
	if _, err := io.ReadFull(b, got); err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, theirs) {
		t.Fatalf("go-zookeeper read %x, want its own reply %x", got, theirs)
	}
	for i, w := range waits {
		select {
		case f := <-w:
			if len(f) != 20 {
				t.Errorf("own request %d got %d bytes", i, len(f))
			}
		default:
			t.Errorf("own request %d got no reply", i)
		}
	}
	if z := tr.ownZxid.Load(); z != 90 {
		t.Errorf("the own replies' highest zxid is %d, want 90", z)
	}
}
