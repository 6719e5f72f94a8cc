package zkconn

import (
	"encoding/binary"
	"testing"

	"github.com/gocurator/curator/internal/zkwire"
)

// createdPath is the reference recognition of a request frame that
// creates a node (or a multi whose first op does): a positive xid, a
// create opcode, and the path at the opcode's offset; the path's length is
// a jute int32, negative for a null string.
func createdPath(b []byte) (string, bool) {
	if len(b) < 12 || int32(binary.BigEndian.Uint32(b[4:8])) <= 0 {
		return "", false
	}
	at := 0
	switch binary.BigEndian.Uint32(b[8:12]) {
	case 1, 15, 19, 21: // create, create2, createContainer, createTTL
		at = 12
	case 14: // multi: a 9-byte op header first
		at = 21
	default:
		return "", false
	}
	if len(b) < at+4 {
		return "", false
	}
	n := int64(int32(binary.BigEndian.Uint32(b[at : at+4])))
	if n < 0 || int64(len(b)-at-4) < n {
		return "", false
	}
	return string(b[at+4 : at+4+int(n)]), true
}

// FuzzWriteWatch: whatever bytes are written, the write watch never panics
// and closes a notice exactly when the frame creates its path.
func FuzzWriteWatch(f *testing.F) {
	const path = "/ns/lock/_c_0b7e5e37-33a5-4c67-9a52-d6d8a36c2c0b-lock-"
	f.Add(frame(7, zkwire.OpCreate, false, path), path)
	f.Add(frame(7, zkwire.OpMulti, true, path), path)
	f.Add(frame(7, zkwire.OpCreateTTL, false, path), path+"x")
	f.Add(frame(-2, zkwire.OpCreate, false, path), path)
	f.Add(frame(7, 4, false, path), path)
	f.Add(frame(7, zkwire.OpCreate, false, path)[:20], path)
	f.Add(frame(7, zkwire.OpCreate, false, ""), "")
	f.Add([]byte{0, 0, 0, 0, 0, 0, 0, 1, 0, 0, 0, 1, 0xff, 0xff, 0xff, 0xff}, "")
	f.Add([]byte{0, 0, 0, 0, 0, 0, 0, 1, 0, 0, 0, 1, 0x7f, 0xff, 0xff, 0xf0}, "")
	f.Fuzz(func(t *testing.T, b []byte, path string) {
		var w writeWatch
		notice := NewWriteNotice()
		done := w.add(path, notice)
		w.written(b)
		w.written(b)
		got, ok := createdPath(b)
		want := ok && got == path
		if closed(notice) != want {
			t.Fatalf("frame %x, waiting for %q: closed %v, want %v", b, path, closed(notice), want)
		}
		done(false)
		if w.n.Load() != 0 || w.paths() != 0 {
			t.Fatalf("%d waiters left", w.n.Load())
		}
	})
}
