package framework

import (
	"context"
	"encoding/binary"
	"testing"

	"github.com/gocurator/curator/internal/zkwire"
)

// createFrame is a create request frame for path, as go-zookeeper writes it.
func createFrame(xid int32, path string) []byte {
	b := binary.BigEndian.AppendUint32(make([]byte, 4), uint32(xid))
	b = binary.BigEndian.AppendUint32(b, uint32(zkwire.OpCreate))
	b = binary.BigEndian.AppendUint32(b, uint32(len(path)))
	b = append(b, path...)
	b = append(b, 0, 0, 0, 0) // the rest of the request
	binary.BigEndian.PutUint32(b, uint32(len(b)-4))
	return b
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
			c.writes.Written(createFrame(7, path))
		}
		done(tc.succeeded)
		if calls != tc.want {
			t.Errorf("%s: Written called %d times, want %d", tc.name, calls, tc.want)
		}
		if n := c.writes.Pending(); n != 0 {
			t.Errorf("%s: %d waiters left", tc.name, n)
		}
	}
}
