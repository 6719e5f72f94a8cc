package framework_test

import (
	"bytes"
	"errors"
	"net"
	"slices"
	"sync/atomic"
	"testing"
	"time"

	"github.com/gocurator/curator/framework"
	"github.com/gocurator/curator/recipestest"
	"github.com/gocurator/curator/zkharness"
)

// MultiRead answers each read in one request, in order, in the client's
// namespace: data and stat as Get gives them, children as Children does,
// and a missing node's error in its own result only.
func TestMultiRead(t *testing.T) {
	ns := recipestest.Namespace(t)
	counter := zkharness.NewCounter()
	c := newClient(t, framework.WithNamespace(ns), framework.WithDialer(counter.Dialer(nil)))
	ctx := ctxT(t)
	if _, err := c.Create(ctx, "/m/a", []byte("1"), framework.WithParents()); err != nil {
		t.Fatal(err)
	}
	for _, p := range []string{"/m/b/c", "/m/b/d"} {
		if _, err := c.Create(ctx, p, nil, framework.WithParents()); err != nil {
			t.Fatal(err)
		}
	}
	_, want, err := c.Get(ctx, "/m/a")
	if err != nil {
		t.Fatal(err)
	}
	before, all := counter.RequestsOf(zkharness.OpMultiRead), counter.Requests()
	dataBefore, childrenBefore := counter.ReadsOf(zkharness.OpGetData), counter.ReadsOf(zkharness.OpGetChildren)
	res, err := c.MultiRead(ctx,
		framework.GetOp("/m/a"),
		framework.ChildrenOp("/m/b"),
		framework.GetOp("/m/missing"),
		framework.ChildrenOp("/m/missing"),
		framework.GetOp("/m/b"),
	)
	if err != nil {
		t.Fatal(err)
	}
	if n, m := counter.RequestsOf(zkharness.OpMultiRead)-before, counter.Requests()-all; n != 1 || m != 1 {
		t.Fatalf("MultiRead sent %d requests, %d of them multiRead; want 1", m, n)
	}
	if d, c := counter.ReadsOf(zkharness.OpGetData)-dataBefore, counter.ReadsOf(zkharness.OpGetChildren)-childrenBefore; d != 3 || c != 2 {
		t.Fatalf("the multiRead carried %d data reads and %d listings, want 3 and 2", d, c)
	}
	if len(res) != 5 {
		t.Fatalf("%d results for 5 reads", len(res))
	}
	if r := res[0]; r.Err != nil || string(r.Data) != "1" || r.Stat == nil || *r.Stat != *want || r.Children != nil {
		t.Fatalf("GetOp(/m/a) = %+v, want data 1 and the stat Get gives (%+v)", r, want)
	}
	if r := res[1]; r.Err != nil || !slices.Equal(slices.Sorted(slices.Values(r.Children)), []string{"c", "d"}) || r.Stat != nil {
		t.Fatalf("ChildrenOp(/m/b) = %+v, want [c d] and no stat", r)
	}
	for _, i := range []int{2, 3} {
		var oe *framework.OpError
		if r := res[i]; !errors.Is(r.Err, framework.ErrNoNode) || !errors.As(r.Err, &oe) || oe.Path != "/m/missing" || r.Data != nil || r.Children != nil {
			t.Fatalf("read %d of a missing node = %+v; want ErrNoNode for /m/missing alone", i, r)
		}
	}
	if r := res[4]; r.Err != nil || r.Stat == nil || r.Stat.NumChildren != 2 {
		t.Fatalf("GetOp(/m/b) = %+v, want its stat with 2 children", r)
	}
}

// MultiRead refuses bad input before it sends anything.
func TestMultiReadBadInput(t *testing.T) {
	counter := zkharness.NewCounter()
	c := newClient(t, framework.WithNamespace(recipestest.Namespace(t)), framework.WithDialer(counter.Dialer(nil)))
	ctx := ctxT(t)
	if _, _, err := c.Exists(ctx, "/"); err != nil { // connected, the namespace made
		t.Fatal(err)
	}
	before := counter.Requests()
	for name, ops := range map[string][]framework.ReadOp{
		"no reads":         nil,
		"a relative path":  {framework.GetOp("/ok"), framework.GetOp("rel")},
		"a zero ReadOp":    {{}},
		"a trailing slash": {framework.ChildrenOp("/a/")},
	} {
		res, err := c.MultiRead(ctx, ops...)
		if !errors.Is(err, framework.ErrInvalidArg) && !errors.Is(err, framework.ErrInvalidPath) || res != nil {
			t.Errorf("%s: %v, %v; want ErrInvalidArg or ErrInvalidPath", name, res, err)
		}
	}
	if n := counter.Requests() - before; n != 0 {
		t.Errorf("bad input sent %d requests", n)
	}
}

// A multiRead reply longer than the client accepts fails with
// ErrReplyTooLarge, unread, and the connection goes on.
func TestMultiReadOverTheLimit(t *testing.T) {
	ns := recipestest.Namespace(t)
	var dialed atomic.Int64
	dial := func(network, addr string, timeout time.Duration) (net.Conn, error) {
		dialed.Add(1)
		return net.DialTimeout(network, addr, timeout)
	}
	small := newClient(t, framework.WithNamespace(ns), framework.WithMaxReplySize(64<<10), framework.WithDialer(dial))
	ctx := ctxT(t)
	data := bytes.Repeat([]byte("z"), 40<<10)
	for _, p := range []string{"/x", "/y"} {
		if _, err := small.Create(ctx, p, data); err != nil {
			t.Fatal(err)
		}
	}
	session, dials := small.SessionID(), dialed.Load()
	if res, err := small.MultiRead(ctx, framework.GetOp("/x"), framework.GetOp("/y")); !errors.Is(err, framework.ErrReplyTooLarge) || res != nil {
		t.Fatalf("80 KiB with a 64 KiB limit: %v, %v; want ErrReplyTooLarge", res, err)
	}
	res, err := small.MultiRead(ctx, framework.GetOp("/x"))
	if err != nil || len(res) != 1 || !bytes.Equal(res[0].Data, data) {
		t.Fatalf("40 KiB after the refusal: %v", err)
	}
	if small.SessionID() != session || dialed.Load() != dials {
		t.Fatalf("the refusal cost the connection: session %x -> %x, %d dials -> %d", session, small.SessionID(), dials, dialed.Load())
	}
}
