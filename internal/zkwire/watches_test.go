package zkwire

import (
	"bytes"
	"encoding/binary"
	"testing"
)

// TestWatchRequests: addWatch and removeWatches frames are a length, the
// xid and opcode, the path (an int32 length and its bytes) and the mode or
// type; ReplyHeader reads a reply's xid, zxid and code.
func TestWatchRequests(t *testing.T) {
	for _, c := range []struct {
		frame   []byte
		op, arg int32
	}{
		{AddWatchRequest(OwnXidLimit-1, "/a/b", AddWatchPersistentRecursive), OpAddWatch, AddWatchPersistentRecursive},
		{RemoveWatchesRequest(OwnXidLimit-1, "/a/b", WatcherData), OpRemoveWatches, WatcherData},
	} {
		f := c.frame
		if n := int(binary.BigEndian.Uint32(f)); n != len(f)-4 {
			t.Fatalf("length %d, frame %d", n, len(f))
		}
		xid, op, ok := RequestHeader(f)
		if !ok || xid != OwnXidLimit-1 || op != c.op {
			t.Fatalf("header %d %d %v", xid, op, ok)
		}
		want := binary.BigEndian.AppendUint32(nil, 4)
		want = append(want, "/a/b"...)
		want = binary.BigEndian.AppendUint32(want, uint32(c.arg))
		if !bytes.Equal(f[12:], want) {
			t.Fatalf("body %x, want %x", f[12:], want)
		}
	}
	for _, op := range []int32{OpExists, OpGetChildren} {
		f := WatchingReadRequest(OwnXidLimit-2, op, "/a")
		if n := int(binary.BigEndian.Uint32(f)); n != len(f)-4 {
			t.Fatalf("length %d, frame %d", n, len(f))
		}
		if xid, got, ok := RequestHeader(f); !ok || xid != OwnXidLimit-2 || got != op {
			t.Fatalf("header %d %d %v", xid, got, ok)
		}
		if want := []byte{0, 0, 0, 2, '/', 'a', 1}; !bytes.Equal(f[12:], want) {
			t.Fatalf("body %x, want %x", f[12:], want)
		}
	}
	reply := []byte{0, 0, 0, 16, 0xff, 0xef, 0xff, 0xff, 0, 0, 0, 0, 0, 0, 0, 9, 0xff, 0xff, 0xff, 0x87}
	if xid, zxid, code, ok := ReplyHeader(reply); !ok || xid != -1<<20-1 || zxid != 9 || code != -121 {
		t.Fatalf("ReplyHeader: %d %d %d %v", xid, zxid, code, ok)
	}
	if _, _, _, ok := ReplyHeader(reply[:19]); ok {
		t.Fatal("a short reply read")
	}
}
