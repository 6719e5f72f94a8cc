package zkconn

import (
	"encoding/binary"
	"io"
	"net"
	"testing"
	"time"

	"github.com/gocurator/curator/internal/zkwire"
)

// reply encodes a reply frame: length, xid, zxid, error, then body.
func reply(xid int32, body string) []byte {
	b := binary.BigEndian.AppendUint32(make([]byte, 4), uint32(xid))
	b = binary.BigEndian.AppendUint64(b, 42)
	b = binary.BigEndian.AppendUint32(b, 0)
	b = append(b, body...)
	binary.BigEndian.PutUint32(b, uint32(len(b)-4))
	return b
}

// readFrame reads one frame as go-zookeeper does: its length, then the rest.
func readFrame(t *testing.T, r io.Reader) []byte {
	t.Helper()
	var size [4]byte
	if _, err := io.ReadFull(r, size[:]); err != nil {
		t.Fatal(err)
	}
	body := make([]byte, binary.BigEndian.Uint32(size[:]))
	if _, err := io.ReadFull(r, body); err != nil {
		t.Fatal(err)
	}
	return append(size[:], body...)
}

// gatedPair returns the client's end of a connection, with a reply gate
// closed on it, and the server's end.
func gatedPair(t *testing.T) (*bufferedConn, *trackedConn, net.Conn) {
	client, srv := net.Pipe()
	t.Cleanup(func() { client.Close(); srv.Close() })
	tc := &trackedConn{Conn: client, t: newTransport(transportConfig{}), closed: make(chan struct{})}
	tc.gate.Store(newReplyGate(time.Hour)) // only setWatches opens it here
	return newBufferedConn(tc, tc, new(readClock), 0), tc, srv
}

// TestReplyGateHoldsRepliesUntilSetWatches: behind a closed gate, a
// notification and an auth request's reply pass; a reply to another
// request waits until a setWatches request is written, and everything
// behind it with it.
func TestReplyGateHoldsRepliesUntilSetWatches(t *testing.T) {
	bc, tc, srv := gatedPair(t)
	go func() { // the server: writes, in order, whatever the test reads
		for _, f := range [][]byte{reply(zkwire.NotificationXid, "watch"), reply(7, "auth"), reply(8, "data"), reply(-2, "ping")} {
			if _, err := srv.Write(f); err != nil {
				return
			}
		}
	}()
	go io.Copy(io.Discard, srv) // the requests the client writes
	if got := readFrame(t, bc); string(got[20:]) != "watch" {
		t.Fatalf("first frame %q, want the notification", got)
	}
	if _, err := tc.Write(frame(7, zkwire.OpSetAuth, false, "")); err != nil {
		t.Fatal(err)
	}
	if got := readFrame(t, bc); string(got[20:]) != "auth" {
		t.Fatalf("second frame %q, want the auth reply", got)
	}
	held := make(chan []byte)
	go func() { held <- readFrame(t, bc) }()
	select {
	case got := <-held:
		t.Fatalf("reply %q read before setWatches was written", got)
	case <-time.After(20 * time.Millisecond): // no event says "still held"; a broken gate shows up here
	}
	if _, err := tc.Write(frame(-8, zkwire.OpSetWatches, false, "")); err != nil {
		t.Fatal(err)
	}
	if got := <-held; string(got[20:]) != "data" {
		t.Fatalf("held frame %q", got)
	}
	if got := readFrame(t, bc); string(got[20:]) != "ping" {
		t.Fatalf("last frame %q", got)
	}
}

// TestFramesPassWhole: with no gate, frames go through whole, in order,
// whatever the reader's buffer size.
func TestFramesPassWhole(t *testing.T) {
	client, srv := net.Pipe()
	defer client.Close()
	defer srv.Close()
	tc := &trackedConn{Conn: client, t: newTransport(transportConfig{}), closed: make(chan struct{})}
	bc := newBufferedConn(tc, tc, new(readClock), 0)
	var want []byte
	for i := range 20 {
		want = append(want, reply(int32(i), string(make([]byte, i*37)))...)
	}
	go srv.Write(want)
	got := make([]byte, 0, len(want))
	buf := make([]byte, 13)
	for len(got) < len(want) {
		n, err := bc.Read(buf)
		if err != nil {
			t.Fatal(err)
		}
		got = append(got, buf[:n]...)
	}
	if string(got) != string(want) {
		t.Fatal("frames changed on the way through")
	}
}

// TestReplyGateOpensByItself: a gate no setWatches opens opens after its
// limit (the race detector checks the timer's side).
func TestReplyGateOpensByItself(t *testing.T) {
	g := newReplyGate(time.Millisecond)
	g.wait(nil)
	g.release() // again: harmless
}
