package framework_test

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"net"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/gocurator/curator/framework"
	"github.com/gocurator/curator/recipestest"
)

// These tests specify WithMaxReplySize: replies are read within a limit,
// ZooKeeper's jute.maxbuffer by default, as Java's client reads them.

// A reply longer than the limit fails the request it answers with an error
// wrapping ErrReplyTooLarge that says the limit, at once rather than after
// retries that could only fetch it again; the client goes on working, and a
// client with a larger limit reads the node.
func TestReplyOverTheLimitFailsClearly(t *testing.T) {
	ns := recipestest.Namespace(t)
	small := newClientAt(t, server.ConnectString(), framework.WithNamespace(ns), framework.WithMaxReplySize(64<<10))
	big := newClientAt(t, server.ConnectString(), framework.WithNamespace(ns))
	ctx := ctxT(t)
	data := bytes.Repeat([]byte("z"), 200<<10)
	if _, err := big.Create(ctx, "/big", data); err != nil {
		t.Fatal(err)
	}
	if _, err := small.Create(ctx, "/small", []byte("s")); err != nil {
		t.Fatal(err)
	}
	_, _, err := small.Get(ctx, "/big")
	if !errors.Is(err, framework.ErrReplyTooLarge) || !strings.Contains(err.Error(), strconv.Itoa(64<<10)) || ctx.Err() != nil {
		t.Fatalf("getting 200 KiB with a 64 KiB limit: %v; want an error wrapping ErrReplyTooLarge that says the limit, before the context ends", err)
	}
	if got, _, err := small.Get(ctx, "/small"); err != nil || string(got) != "s" {
		t.Fatalf("a small read after the refusal: %q, %v", got, err)
	}
	if got, _, err := big.Get(ctx, "/big"); err != nil || len(got) != len(data) {
		t.Fatalf("the default limit (1 MiB) reads 200 KiB: %d bytes, %v", len(got), err)
	}
}

// The default limit is Java's: a listing of children longer than 1 MiB is
// refused, as Java's client refuses it ("Packet len ... is out of range"),
// and read with a limit raised for it.
func TestDefaultReplyLimitIsJutesMaxBuffer(t *testing.T) {
	ns := recipestest.Namespace(t)
	maker := newClientAt(t, server.ConnectString(), framework.WithNamespace(ns))
	ctx := ctxT(t)
	if _, err := maker.Create(ctx, "/many", nil); err != nil {
		t.Fatal(err)
	}
	name := strings.Repeat("n", 90)
	const n = 12000 // 12,000 names of ~100 bytes: 1.2 MB of listing
	for i := 0; i < n; i += 1000 {
		ops := make([]framework.Op, 1000)
		for j := range ops {
			ops[j] = framework.CreateOp(fmt.Sprintf("/many/%s%06d", name, i+j), []byte{}, framework.Ephemeral)
		}
		if _, err := maker.Txn(ctx, ops...); err != nil {
			t.Fatal(err)
		}
	}
	dflt := newClientAt(t, server.ConnectString(), framework.WithNamespace(ns))
	if _, _, err := dflt.Children(ctx, "/many"); !errors.Is(err, framework.ErrReplyTooLarge) {
		t.Fatalf("listing 1.2 MB of names with the default limit: %v, want ErrReplyTooLarge", err)
	}
	raised := newClientAt(t, server.ConnectString(), framework.WithNamespace(ns), framework.WithMaxReplySize(4<<20))
	if kids, _, err := raised.Children(ctx, "/many"); err != nil || len(kids) != n {
		t.Fatalf("listing with a 4 MiB limit: %d names, %v", len(kids), err)
	}
	if err := maker.Close(); err != nil { // its ephemeral nodes go with it
		t.Fatal(err)
	}
}

// A reply that claims to be longer than the limit is not allocated: here a
// length prefix of 256 MiB slipped into the stream between two real
// replies. The read waits for bytes that never come until the connection's
// deadline drops it, and the client works again on the next.
func TestReplyLengthClaimIsNotAllocated(t *testing.T) {
	var inj injector
	c := newClient(t, framework.WithDialer(inj.dial), framework.WithMaxReplySize(1<<20))
	ctx := ctxT(t)
	if _, _, err := c.Exists(ctx, "/x"); err != nil {
		t.Fatal(err)
	}
	const claim = 256 << 20
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	inj.arm(claim)
	// The reader waits on the next reply's length already: that reply (this
	// request's, or a ping's) passes, and the claim goes in after it, before
	// the next.
	c.Exists(ctx, "/x")
	c.Exists(ctx, "/x") // how it fails is the client's affair
	runtime.ReadMemStats(&after)
	if grew := after.TotalAlloc - before.TotalAlloc; grew > claim/4 {
		t.Fatalf("the client allocated %d MiB after a reply claimed %d MiB (its limit is 1 MiB)", grew>>20, claim>>20)
	}
	if !inj.injected() {
		t.Fatal("no claim was injected")
	}
	recipestest.Eventually(t, "the client works again", func() (bool, string) {
		_, _, err := c.Exists(ctx, "/x")
		return err == nil, fmt.Sprint(err)
	})
}

// injector dials TCP and, once armed, slips a length prefix claiming more
// than there is into the reply stream of the latest connection, at the
// boundary between two replies.
type injector struct {
	fired atomic.Bool // a claim went in
	mu    sync.Mutex
	last  *injectConn
}

func (in *injector) dial(network, address string, timeout time.Duration) (net.Conn, error) {
	conn, err := net.DialTimeout(network, address, timeout)
	if err != nil {
		return nil, err
	}
	ic := &injectConn{Conn: conn, fired: &in.fired}
	in.mu.Lock()
	in.last = ic
	in.mu.Unlock()
	return ic, nil
}

func (in *injector) arm(claim uint32) {
	in.mu.Lock()
	defer in.mu.Unlock()
	in.last.claim.Store(claim)
}

func (in *injector) injected() bool { return in.fired.Load() }

// injectConn reads the server's frames one at a time (length, then body),
// so that a claim can go in between two of them.
type injectConn struct {
	net.Conn
	claim atomic.Uint32 // the length to claim at the next boundary; 0: none
	fired *atomic.Bool  // the injector's: set when the claim goes in

	mu      sync.Mutex
	header  [4]byte
	inHead  int // bytes of the current frame's length read
	left    int // bytes of the current frame's body still to read
	pending []byte
}

func (c *injectConn) Read(p []byte) (int, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if len(c.pending) > 0 {
		n := copy(p, c.pending)
		c.pending = c.pending[n:]
		return n, nil
	}
	if c.inHead == 0 && c.left == 0 {
		if claim := c.claim.Swap(0); claim != 0 {
			c.fired.Store(true)
			c.pending = binary.BigEndian.AppendUint32(nil, claim)
			n := copy(p, c.pending)
			c.pending = c.pending[n:]
			return n, nil
		}
	}
	if c.left == 0 { // the length: read it whole, then hand it on
		n, err := io.ReadFull(c.Conn, c.header[c.inHead:])
		c.inHead += n
		if err != nil {
			return 0, err
		}
		c.inHead = 0
		c.left = int(binary.BigEndian.Uint32(c.header[:]))
		c.pending = append([]byte(nil), c.header[:]...)
		n = copy(p, c.pending)
		c.pending = c.pending[n:]
		return n, nil
	}
	if len(p) > c.left {
		p = p[:c.left]
	}
	n, err := c.Conn.Read(p)
	c.left -= n
	return n, err
}
