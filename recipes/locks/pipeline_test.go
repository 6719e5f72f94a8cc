package locks_test

import (
	"encoding/binary"
	"net"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/gocurator/curator/framework"
	"github.com/gocurator/curator/recipes/locks"
	"github.com/gocurator/curator/recipestest"
)

// opRecorder keeps the opcodes of the requests a client writes, pings left
// out, in the order they go on the wire.
type opRecorder struct {
	mu  sync.Mutex
	ops []int32
}

func (r *opRecorder) dial(network, addr string, timeout time.Duration) (net.Conn, error) {
	c, err := net.DialTimeout(network, addr, timeout)
	if err != nil {
		return nil, err
	}
	return &recordingConn{Conn: c, r: r}, nil
}

func (r *opRecorder) take() []int32 {
	r.mu.Lock()
	defer r.mu.Unlock()
	ops := r.ops
	r.ops = nil
	return ops
}

type recordingConn struct {
	net.Conn
	r *opRecorder
}

// Write sees one request per call (go-zookeeper's send loop writes each
// whole): length, xid, opcode.
func (c *recordingConn) Write(b []byte) (int, error) {
	if len(b) >= 12 && int32(binary.BigEndian.Uint32(b[4:8])) > 0 {
		c.r.mu.Lock()
		c.r.ops = append(c.r.ops, int32(binary.BigEndian.Uint32(b[8:12])))
		c.r.mu.Unlock()
	}
	return c.Conn.Write(b)
}

// The listing an acquire pipelines behind its create goes on the wire after
// the create, every time: no cycle's listing follows the previous cycle's
// delete. (When it was sent as soon as the create was handed to
// go-zookeeper, about 1 cycle in 100 listed first and listed again.)
func TestMutexListingFollowsItsCreate(t *testing.T) {
	const (
		opDelete   = 2
		opChildren = 12
	)
	rec := &opRecorder{}
	ns := recipestest.Namespace(t)
	c := newClientAt(t, server.ConnectString(), framework.WithNamespace(ns), framework.WithDialer(rec.dial))
	ctx := ctxT(t)
	m, _ := locks.NewMutex(c, "/m")
	rec.take()
	const cycles = 300
	for range cycles {
		h, err := m.Acquire(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if err := h.Release(ctx); err != nil {
			t.Fatal(err)
		}
	}
	ops := rec.take()
	for i := 1; i < len(ops); i++ {
		if ops[i-1] == opDelete && ops[i] == opChildren {
			t.Fatalf("a listing went out before its create: %v", ops[max(0, i-6):min(len(ops), i+6)])
		}
	}
	if n := len(ops); n < 3*cycles {
		t.Fatalf("%d requests for %d cycles", n, cycles)
	}
	if slices.Index(ops, opChildren) < 0 {
		t.Fatal("no listing recorded")
	}
}
