package framework

import (
	"context"
	"encoding/binary"
	"testing"
)

// frame encodes a request as go-zookeeper writes it: length, xid, opcode,
// then (for a multi) a 9-byte op header, then the path.
func frame(xid int32, opcode uint32, multi bool, path string) []byte {
	b := binary.BigEndian.AppendUint32(make([]byte, 4), uint32(xid))
	b = binary.BigEndian.AppendUint32(b, opcode)
	if multi {
		b = append(b, 0, 0, 0, 1, 0, 0xff, 0xff, 0xff, 0xff) // type create, not done, error -1
	}
	b = binary.BigEndian.AppendUint32(b, uint32(len(path)))
	b = append(b, path...)
	b = append(b, 0, 0, 0, 0) // the rest of the request
	binary.BigEndian.PutUint32(b, uint32(len(b)-4))
	return b
}

func TestWriteWatchKnowsItsRequest(t *testing.T) {
	const path = "/ns/lock/_c_0b7e5e37-33a5-4c67-9a52-d6d8a36c2c0b-lock-"
	for _, tc := range []struct {
		name  string
		frame []byte
		fires bool
	}{
		{"create", frame(7, wireCreate, false, path), true},
		{"create2", frame(7, wireCreate2, false, path), true},
		{"container", frame(7, wireCreateContainer, false, path), true},
		{"ttl", frame(7, wireCreateTTL, false, path), true},
		{"multi", frame(7, wireMulti, true, path), true},
		{"another path", frame(7, wireCreate, false, path+"x"), false},
		{"a prefix", frame(7, wireCreate, false, path[:len(path)-1]), false},
		{"a read of the path", frame(7, 4, false, path), false},
		{"a delete of the path", frame(7, 2, false, path), false},
		{"negative xid", frame(-8, wireCreate, false, path), false},
		{"truncated", frame(7, wireCreate, false, path)[:20], false},
	} {
		var w writeWatch
		calls := 0
		stop := w.add(path, func() { calls++ })
		w.written(tc.frame)
		w.written(tc.frame) // at most once
		if want := map[bool]int{true: 1, false: 0}[tc.fires]; calls != want {
			t.Errorf("%s: called %d times, want %d", tc.name, calls, want)
		}
		stop()
		if n := w.n.Load(); n != 0 || len(w.waiting) != 0 {
			t.Errorf("%s: %d waiters left (%v)", tc.name, n, w.waiting)
		}
	}
}

// An operation that succeeds before the send loop has called Written calls
// it as it returns; one that fails does not; and it is never called twice.
func TestTraceWrittenCalledOnSuccessIfNotYet(t *testing.T) {
	const path = "/a/lock-"
	for _, tc := range []struct {
		name      string
		sent      bool // the send loop saw the frame first
		succeeded bool
		want      int
	}{
		{"success before the send loop", false, true, 1},
		{"failure before the send loop", false, false, 0},
		{"success after the send loop", true, true, 1},
	} {
		c := &Client{}
		calls := 0
		ctx := WithTrace(context.Background(), &Trace{Written: func() { calls++ }})
		done := c.traceWritten(ctx, path)
		if tc.sent {
			c.writes.written(frame(7, wireCreate, false, path))
		}
		done(tc.succeeded)
		if calls != tc.want {
			t.Errorf("%s: Written called %d times, want %d", tc.name, calls, tc.want)
		}
		if n := c.writes.n.Load(); n != 0 {
			t.Errorf("%s: %d waiters left", tc.name, n)
		}
	}
}
