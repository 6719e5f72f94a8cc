package node_test

import (
	"bytes"
	"context"
	"fmt"
	"runtime"
	"testing"
	"time"

	"github.com/gocurator/curator/framework"
	"github.com/gocurator/curator/listener"
	"github.com/gocurator/curator/recipes/node"
	"github.com/gocurator/curator/recipestest"
	"github.com/gocurator/curator/zkharness"
)

// After a session expiry the node is made again, exactly once, with the
// same name (a sequential node keeps its sequence number, twice over); an
// ephemeral one is then owned by the new session. A persistent node
// survives the session, and its listeners hear nothing.
func TestSessionExpiry(t *testing.T) {
	recipestest.LeakCheck(t)
	for _, mode := range []framework.CreateMode{framework.Ephemeral, framework.EphemeralSequential, framework.Persistent} {
		t.Run(fmt.Sprint(mode), func(t *testing.T) {
			cs := clients(t, "", 2)
			c, other := cs[0], cs[1]
			ctx := ctxT(t)
			n, _ := node.New(c, "/dir/n-", []byte("x"), node.WithMode(mode))
			r := record(t, n)
			started(t, n)
			path := only(t, other, "/dir")
			if _, name := framework.SplitPath(path); mode.IsSequential() && !framework.IsProtected(name) {
				t.Fatalf("sequential node %s is not protected", path)
			}
			want := []node.EventType{node.Created}
			rounds := 1
			if mode == framework.EphemeralSequential {
				rounds = 2
			}
			for round := range rounds {
				before := c.SessionID()
				if err := c.InjectSessionExpiration(ctx); err != nil {
					t.Fatal(err)
				}
				if mode.IsEphemeral() {
					want = append(want, node.Lost, node.Created)
					r.waitFor(t, want...)
					if c.SessionID() == before {
						t.Fatal("the session did not change")
					}
					if got, sid := owner(t, other, path), fmt.Sprintf("%#x", c.SessionID()); got != sid {
						t.Fatalf("round %d: the node is owned by %s, want the new session %s", round, got, sid)
					}
				} else {
					// Nothing to wait for but the Node's check of its node on
					// the new session: a SetData goes after it.
					if err := n.SetData(ctx, []byte(fmt.Sprint(round))); err != nil {
						t.Fatal(err)
					}
					r.waitFor(t, want...)
				}
				if got := only(t, other, "/dir"); got != path {
					t.Fatalf("round %d: the node is %s, want %s", round, got, path)
				}
			}
		})
	}
}

// proxiedWithDir returns a client through a fault proxy and one straight
// to the server, in a namespace of the test's own where /dir exists.
func proxiedWithDir(t *testing.T) (*zkharness.Proxy, *framework.Client, *framework.Client) {
	t.Helper()
	recipestest.LeakCheck(t)
	proxy := recipestest.StartProxy(t, server.Addr())
	ns := recipestest.Namespace(t)
	c := recipestest.NewClient(t, proxy.Addr(), framework.WithNamespace(ns))
	other := recipestest.NewClient(t, server.ConnectString(), framework.WithNamespace(ns))
	if _, err := other.Create(ctxT(t), "/dir", nil); err != nil {
		t.Fatal(err)
	}
	return proxy, c, other
}

// A sequential node whose create replies are lost (the first create's and
// a re-creation's) is one node with one name throughout.
func TestSequentialLostCreateRepliesLeaveOneNode(t *testing.T) {
	proxy, c, other := proxiedWithDir(t)
	ctx := ctxT(t)
	n, _ := node.New(c, "/dir/seq-", []byte("x"), node.WithMode(framework.EphemeralSequential))
	r := record(t, n)
	proxy.DropAfter(zkharness.OpCreate)
	started(t, n)
	path := only(t, other, "/dir")
	if n.Path() != path {
		t.Fatalf("Path %s, node %s", n.Path(), path)
	}
	// A re-creation whose reply is lost: the retry finds the node made.
	proxy.DropAfter(zkharness.OpCreate)
	if err := other.Delete(ctx, path); err != nil {
		t.Fatal(err)
	}
	r.waitFor(t, node.Created, node.Lost, node.Created)
	if got := only(t, other, "/dir"); got != path {
		t.Fatalf("after a lost re-create reply the node is %s, want %s", got, path)
	}
	// And a session expiry with the re-creation's reply lost.
	proxy.DropAfter(zkharness.OpCreate)
	if err := c.InjectSessionExpiration(ctx); err != nil {
		t.Fatal(err)
	}
	r.waitFor(t, node.Created, node.Lost, node.Created, node.Lost, node.Created)
	if got := only(t, other, "/dir"); got != path {
		t.Fatalf("after the expiry the node is %s, want %s", got, path)
	}
	if got, sid := owner(t, other, path), fmt.Sprintf("%#x", c.SessionID()); got != sid {
		t.Fatalf("the node is owned by %s, want %s", got, sid)
	}
}

// SetData called while the first create is in flight waits for the data to
// be written and reports no error: the write after the create goes to the
// path the create made.
func TestSetDataDuringTheFirstCreate(t *testing.T) {
	proxy, c, other := proxiedWithDir(t)
	ctx := ctxT(t)
	n, _ := node.New(c, "/dir/n", []byte("v1"))
	held := proxy.HoldReply(zkharness.OpCreate)
	if err := n.Start(context.Background()); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { n.Close() })
	select {
	case <-held.Arrived():
	case <-ctx.Done():
		t.Fatal("the create was not sent")
	}
	set := make(chan error, 1)
	go func() { set <- n.SetData(ctx, []byte("v2")) }()
	for !bytes.Equal(n.Data(), []byte("v2")) { // SetData has taken the data, and waits
		runtime.Gosched()
	}
	held.Deliver()
	if err := <-set; err != nil {
		t.Fatalf("SetData during the first create: %v", err)
	}
	if got, _, err := other.Get(ctx, "/dir/n"); err != nil || string(got) != "v2" {
		t.Fatalf("the node holds %q, %v; want v2", got, err)
	}
}

// A first create whose reply is lost finds its own node on its retry, and
// the Node takes it over. A Close while it reads that node deletes it: the
// node is the Node's from the moment it is found.
func TestCloseWhileAdoptingDeletesTheNode(t *testing.T) {
	proxy, c, other := proxiedWithDir(t)
	ctx := ctxT(t)
	n, _ := node.New(c, "/dir/n", []byte("x"))
	proxy.DropAfter(zkharness.OpCreate)
	held := proxy.HoldReply(zkharness.OpGetData)
	if err := n.Start(context.Background()); err != nil {
		t.Fatal(err)
	}
	select {
	case <-held.Arrived(): // the retried create found the node; the Node reads it
	case <-ctx.Done():
		t.Fatal("the node found was not read")
	}
	deleted := proxy.Arrival(zkharness.OpDelete)
	closed := make(chan struct{})
	go func() { n.Close(); close(closed) }()
	select {
	case <-deleted:
	case <-closed: // without a delete: the test fails below
	}
	held.Deliver()
	<-closed
	if ok, _, err := other.Exists(ctx, "/dir/n"); err != nil || ok {
		t.Fatalf("after Close the node exists: %v, %v", ok, err)
	}
}

// A server restart, its sessions' expiry included: the node is there,
// once, owned by the client's session, when the client is back.
func TestServerRestart(t *testing.T) {
	recipestest.LeakCheck(t)
	srv := recipestest.StartServer(t)
	cs := clients(t, srv.ConnectString(), 2)
	c, other := cs[0], cs[1]
	ctx := ctxT(t)
	n, _ := node.New(c, "/dir/n-", []byte("x"), node.WithMode(framework.EphemeralSequential))
	r := record(t, n)
	started(t, n)
	path := n.Path()
	lost := make(chan struct{})
	remove, _ := c.AddConnectionStateListener(func(s listener.ConnectionState) {
		if s == listener.Lost {
			select {
			case <-lost:
			default:
				close(lost)
			}
		}
	})
	defer remove()
	if err := srv.Stop(); err != nil {
		t.Fatal(err)
	}
	select { // down past the session timeout: the client gives its session up
	case <-lost:
	case <-ctx.Done():
		t.Fatal("the client never reported Lost")
	}
	if err := srv.Restart(); err != nil {
		t.Fatal(err)
	}
	r.waitFor(t, node.Created, node.Lost, node.Created)
	recipestest.Eventually(t, "one node owned by the client's session", func() (bool, string) {
		kids, _, err := other.Children(ctx, "/dir")
		if err != nil || len(kids) != 1 || framework.JoinPath("/dir", kids[0]) != path {
			return false, fmt.Sprint(kids, err)
		}
		ok, st, err := other.Exists(ctx, path)
		return ok && err == nil && st.EphemeralOwner == c.SessionID(), fmt.Sprint(ok, st, err)
	})
}

// On a 3-member ensemble the member the client is connected to is killed:
// the client moves to another member, and the node stays, once; when the
// session then expires, it is made again on the new one, once.
func TestEnsembleMemberKilled(t *testing.T) {
	recipestest.LeakCheck(t)
	ens, err := zkharness.StartEnsemble(3)
	if err != nil {
		t.Fatal(err)
	}
	defer ens.Close()
	cs := clients(t, ens.ConnectString(), 2, framework.WithSessionTimeout(4*time.Second))
	c, other := cs[0], cs[1]
	ctx := ctxT(t)
	n, _ := node.New(c, "/dir/n-", []byte("x"), node.WithMode(framework.EphemeralSequential))
	r := record(t, n)
	started(t, n)
	path := n.Path()
	for round := range 2 {
		on := -1
		for i := range ens.Size() {
			if ens.Member(i) == c.CurrentServer() {
				on = i
			}
		}
		if on < 0 {
			t.Fatalf("the client is on %q, no member", c.CurrentServer())
		}
		if err := ens.Kill(on); err != nil {
			t.Fatal(err)
		}
		// The client moves to another member; a write goes through once it has.
		if err := n.SetData(ctx, []byte(fmt.Sprint(round))); err != nil {
			t.Fatal(err)
		}
		if round == 1 { // and on the next session, the node comes back
			before := c.SessionID()
			if err := c.InjectSessionExpiration(ctx); err != nil {
				t.Fatal(err)
			}
			r.waitFor(t, node.Created, node.Lost, node.Created)
			if c.SessionID() == before {
				t.Fatal("the session did not change")
			}
		}
		if got := only(t, other, "/dir"); got != path {
			t.Fatalf("round %d: the node is %s, want %s", round, got, path)
		}
		if got, sid := owner(t, other, path), fmt.Sprintf("%#x", c.SessionID()); got != sid {
			t.Fatalf("round %d: owned by %s, want %s", round, got, sid)
		}
		if err := ens.Restart(on); err != nil {
			t.Fatal(err)
		}
	}
	if got := r.types(); len(got) != 3 {
		t.Fatalf("events %v", got)
	}
}

// Close while the connection is down does not wait for it: the client
// deletes a persistent node once it is back.
func TestCloseWhileDisconnected(t *testing.T) {
	recipestest.LeakCheck(t)
	proxy := recipestest.StartProxy(t, server.Addr())
	ns := recipestest.Namespace(t)
	c := recipestest.NewClient(t, proxy.Addr(), framework.WithNamespace(ns), framework.WithSessionTimeout(20*time.Second))
	other := recipestest.NewClient(t, server.ConnectString(), framework.WithNamespace(ns))
	ctx := ctxT(t)
	suspended := make(chan struct{}, 1)
	remove, _ := c.AddConnectionStateListener(func(s listener.ConnectionState) {
		if s == listener.Suspended {
			select {
			case suspended <- struct{}{}:
			default:
			}
		}
	})
	defer remove()
	n, _ := node.New(c, "/p", []byte("x"), node.WithMode(framework.Persistent))
	started(t, n)
	proxy.Blackhole(true)
	select {
	case <-suspended:
	case <-ctx.Done():
		t.Fatal("the client never reported Suspended")
	}
	closed := make(chan struct{})
	go func() {
		n.Close()
		close(closed)
	}()
	select {
	case <-closed:
	case <-ctx.Done():
		t.Fatal("Close waited for the connection")
	}
	if ok, _, _ := other.Exists(ctx, "/p"); !ok {
		t.Fatal("the node went while the client was cut off")
	}
	proxy.Blackhole(false)
	recipestest.Eventually(t, "the client to delete the node once it is back", func() (bool, string) {
		ok, _, err := other.Exists(ctx, "/p")
		return !ok && err == nil, fmt.Sprint(ok, err)
	})
}
