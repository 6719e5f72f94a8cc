package framework_test

import (
	"context"
	"errors"
	"slices"
	"testing"
	"time"

	"github.com/gocurator/curator/framework"
	"github.com/gocurator/curator/recipestest"
	"github.com/gocurator/curator/retry"
	"github.com/gocurator/curator/zkharness"
)

func TestDeleteVersionAndChildren(t *testing.T) {
	c := newClient(t)
	ctx := ctxT(t)
	c.Create(ctx, "/n", []byte("v0"))
	stat, err := c.Set(ctx, "/n", []byte("v1"), 0)
	if err != nil || stat.Version != 1 {
		t.Fatalf("Set: stat=%+v err=%v", stat, err)
	}
	if _, err := c.Set(ctx, "/n", []byte("v2"), 0); !errors.Is(err, framework.ErrBadVersion) {
		t.Fatalf("Set with a stale version: %v, want ErrBadVersion", err)
	}
	if err := c.Delete(ctx, "/n", framework.WithVersion(0)); !errors.Is(err, framework.ErrBadVersion) {
		t.Fatalf("Delete with a stale version: %v, want ErrBadVersion", err)
	}
	if err := c.Delete(ctx, "/n", framework.WithVersion(1)); err != nil {
		t.Fatal(err)
	}
	if err := c.Delete(ctx, "/n"); !errors.Is(err, framework.ErrNoNode) {
		t.Fatalf("Delete of a missing node: %v, want ErrNoNode", err)
	}
	if err := c.Delete(ctx, "/n", framework.Quietly()); err != nil {
		t.Fatalf("quiet Delete of a missing node: %v", err)
	}

	c.Create(ctx, "/t/a/b", nil, framework.WithParents())
	c.Create(ctx, "/t/c", nil)
	if err := c.Delete(ctx, "/t"); !errors.Is(err, framework.ErrNotEmpty) {
		t.Fatalf("Delete of a parent: %v, want ErrNotEmpty", err)
	}
	if err := c.Delete(ctx, "/t", framework.WithChildren()); err != nil {
		t.Fatal(err)
	}
	if ok, _, _ := c.Exists(ctx, "/t"); ok {
		t.Fatal("/t survived a recursive delete")
	}
}

// A guaranteed delete that fails because the server cannot be reached is
// finished in the background once it can, children first if it was asked
// to delete them.
func TestGuaranteedDeleteSurvivesDroppedConnection(t *testing.T) {
	proxy := recipestest.StartProxy(t, server.Addr())
	ns := recipestest.Namespace(t)
	c := newClientAt(t, proxy.Addr(), framework.WithNamespace(ns), framework.WithRetryPolicy(retry.RetryNTimes(0, 0)),
		framework.WithConnectionTimeout(500*time.Millisecond), framework.WithSessionTimeout(10*time.Second))
	ctx := ctxT(t)
	for _, p := range []string{"/g", "/tree/a/b"} {
		if _, err := c.Create(ctx, p, nil, framework.WithParents()); err != nil {
			t.Fatal(err)
		}
	}
	proxy.Blackhole(true)
	proxy.DropAll()
	if err := c.Delete(ctx, "/g", framework.Guaranteed()); !errors.Is(err, framework.ErrConnectionLoss) {
		t.Fatalf("Delete while cut off: %v, want ErrConnectionLoss", err)
	}
	if err := c.Delete(ctx, "/tree", framework.Guaranteed(), framework.WithChildren()); !errors.Is(err, framework.ErrConnectionLoss) {
		t.Fatalf("Delete of a tree while cut off: %v, want ErrConnectionLoss", err)
	}
	proxy.Blackhole(false)
	// The background deletes run once the client is back.
	waitGone(t, c, "/g")
	waitGone(t, c, "/tree")
}

func TestWatchesFireOnce(t *testing.T) {
	c := newClient(t)
	ctx := ctxT(t)
	ok, _, w, err := c.ExistsW(ctx, "/w")
	if err != nil || ok {
		t.Fatalf("ExistsW: ok=%v err=%v", ok, err)
	}
	c.Create(ctx, "/w", nil)
	ev, err := w.Wait(ctx)
	if err != nil || ev.Type != framework.EventNodeCreated || ev.Path != "/w" {
		t.Fatalf("exists watch: %+v %v", ev, err)
	}

	_, _, dw, _ := c.GetW(ctx, "/w")
	_, _, cw, _ := c.ChildrenW(ctx, "/w")
	c.Create(ctx, "/w/kid", nil)
	if ev, _ := cw.Wait(ctx); ev.Type != framework.EventNodeChildrenChanged || ev.Path != "/w" {
		t.Fatalf("children watch: %+v", ev)
	}
	c.Set(ctx, "/w", []byte("x"), -1)
	ev, _ = dw.Wait(ctx)
	if ev.Type != framework.EventNodeDataChanged || ev.Path != "/w" {
		t.Fatalf("data watch: %+v", ev)
	}
	// One-shot: what it saw stays what it saw.
	c.Set(ctx, "/w", []byte("y"), -1)
	if again, err := dw.Wait(ctx); err != nil || again != ev {
		t.Fatalf("Wait on a watch that fired, after another change: %+v %v, want %+v again", again, err, ev)
	}
	if got, ok := dw.Event(); !ok || got != ev {
		t.Fatalf("Event: %+v %v", got, ok)
	}
	// An abandoned watch blocks nothing: set one and never read it.
	if _, _, _, err := c.GetW(ctx, "/w"); err != nil {
		t.Fatal(err)
	}
	c.Set(ctx, "/w", []byte("y"), -1)
}

func TestTxnCommitsAllOrNothing(t *testing.T) {
	c := newClient(t)
	ctx := ctxT(t)
	c.Create(ctx, "/fence", nil)
	res, err := c.Txn(ctx,
		framework.CheckOp("/fence", 0),
		framework.CreateOp("/a", []byte("1"), framework.Persistent),
		framework.CreateOp("/s-", nil, framework.PersistentSequential),
		framework.SetDataOp("/fence", []byte("x"), 0),
	)
	if err != nil {
		t.Fatal(err)
	}
	if res[1].Path != "/a" || len(res[2].Path) != len("/s-0000000000") || res[3].Stat == nil || res[3].Stat.Version != 1 {
		t.Fatalf("results %+v", res)
	}
	// The fence moved on: the same check now fails and nothing else happens.
	_, err = c.Txn(ctx, framework.CreateOp("/b", nil, framework.Persistent), framework.CheckOp("/fence", 0))
	var te *framework.TxnError
	if !errors.As(err, &te) || te.Index != 1 || !errors.Is(err, framework.ErrBadVersion) {
		t.Fatalf("failed txn: %v, want TxnError at op 1 with ErrBadVersion", err)
	}
	if ok, _, _ := c.Exists(ctx, "/b"); ok {
		t.Fatal("a failed transaction created /b")
	}
	if _, err := c.Txn(ctx, framework.CreateOp("/c", nil, framework.Container)); !errors.Is(err, framework.ErrInvalidArg) {
		t.Fatalf("container in a txn: %v, want ErrInvalidArg", err)
	}
}

func TestNamespacesAreIsolated(t *testing.T) {
	a := newClient(t)
	b := newClient(t)
	ctx := ctxT(t)
	if _, err := a.Create(ctx, "/same", []byte("a")); err != nil {
		t.Fatal(err)
	}
	if _, err := b.Create(ctx, "/same", []byte("b")); err != nil {
		t.Fatalf("second namespace sees the first's node: %v", err)
	}
	da, _, _ := a.Get(ctx, "/same")
	db, _, _ := b.Get(ctx, "/same")
	if string(da) != "a" || string(db) != "b" {
		t.Fatalf("data a=%q b=%q", da, db)
	}
	kids, _, _ := a.Children(ctx, "/")
	if !slices.Equal(kids, []string{"same"}) {
		t.Fatalf("namespace root lists %v", kids)
	}
	// An un-namespaced client sees both under their namespaces.
	root := newClientAt(t, server.ConnectString())
	all, _, err := root.Children(ctx, "/")
	if err != nil || len(all) < 2 {
		t.Fatalf("root children %v %v", all, err)
	}
}

func TestDigestACLKeepsOthersOut(t *testing.T) {
	ns := recipestest.Namespace(t)
	owner := newClientAt(t, server.ConnectString(), framework.WithNamespace(ns), framework.WithDigestAuth("alice", "secret"))
	ctx := ctxT(t)
	acl := framework.DigestACL(framework.PermAll, "alice", "secret")
	if _, err := owner.Create(ctx, "/private", []byte("s"), framework.WithACL(acl)); err != nil {
		t.Fatal(err)
	}
	if data, _, err := owner.Get(ctx, "/private"); err != nil || string(data) != "s" {
		t.Fatalf("owner read: %q %v", data, err)
	}
	stranger := newClientAt(t, server.ConnectString(), framework.WithNamespace(ns))
	if _, _, err := stranger.Get(ctx, "/private"); !errors.Is(err, framework.ErrNoAuth) {
		t.Fatalf("unauthenticated read: %v, want ErrNoAuth", err)
	}
	wrong := newClientAt(t, server.ConnectString(), framework.WithNamespace(ns), framework.WithDigestAuth("alice", "wrong"))
	if _, err := wrong.Set(ctx, "/private", nil, -1); !errors.Is(err, framework.ErrNoAuth) {
		t.Fatalf("wrong password write: %v, want ErrNoAuth", err)
	}
	got, _, err := owner.GetACL(ctx, "/private")
	if err != nil || len(got) != 1 || got[0].Scheme != "digest" {
		t.Fatalf("GetACL: %v %v", got, err)
	}
}

func TestBadInputIsRejectedBeforeAnyRequest(t *testing.T) {
	requests := zkharness.NewCounter()
	c := newClient(t, framework.WithDialer(requests.Dialer(nil)))
	ctx := ctxT(t)
	if _, _, err := c.Get(ctx, "/probe"); !errors.Is(err, framework.ErrNoNode) {
		t.Fatalf("probe: %v", err)
	}
	if requests.Requests() == 0 {
		t.Fatal("the counting dialer saw no request")
	}
	before := requests.Requests()
	for _, p := range []string{"", "relative", "/trailing/", "/a//b", "/a/./b", "/a/../b", "/nul\x00", "/ctl\x01"} {
		if _, err := c.Create(ctx, p, nil); !errors.Is(err, framework.ErrInvalidPath) {
			t.Errorf("Create(%q) = %v, want ErrInvalidPath", p, err)
		}
		if _, _, err := c.Get(ctx, p); !errors.Is(err, framework.ErrInvalidPath) {
			t.Errorf("Get(%q) = %v, want ErrInvalidPath", p, err)
		}
		if err := c.Delete(ctx, p); !errors.Is(err, framework.ErrInvalidPath) {
			t.Errorf("Delete(%q) = %v, want ErrInvalidPath", p, err)
		}
	}
	if _, err := c.Create(ctx, "/n", nil, nil); !errors.Is(err, framework.ErrInvalidArg) {
		t.Errorf("Create with a nil option: %v, want ErrInvalidArg", err)
	}
	if err := c.Delete(ctx, "/n", nil); !errors.Is(err, framework.ErrInvalidArg) {
		t.Errorf("Delete with a nil option: %v, want ErrInvalidArg", err)
	}
	if _, err := c.Txn(ctx, framework.CreateOp("/n", nil, framework.Persistent, nil)); !errors.Is(err, framework.ErrInvalidArg) {
		t.Errorf("CreateOp with a nil option: %v, want ErrInvalidArg", err)
	}
	if _, err := c.Create(ctx, "/seq/", nil, framework.WithMode(framework.PersistentSequential)); errors.Is(err, framework.ErrInvalidPath) {
		t.Errorf("a sequential path may end in /: %v", err)
	}
	if got := requests.Requests() - before; got != 1 { // the sequential create above
		t.Fatalf("%d requests for bad paths, want none", got-1)
	}
	if _, err := framework.New("127.0.0.1:2181", framework.WithNamespace("/abs")); !errors.Is(err, framework.ErrInvalidPath) {
		t.Fatalf("namespace with a leading slash: %v", err)
	}
	if _, err := framework.New("127.0.0.1:2181", framework.WithACLProvider(nil)); !errors.Is(err, framework.ErrInvalidArg) {
		t.Fatalf("nil ACL provider: %v", err)
	}
	if _, err := framework.New("127.0.0.1:2181", framework.WithErrorPolicy(nil)); !errors.Is(err, framework.ErrInvalidArg) {
		t.Fatalf("nil error policy: %v", err)
	}
	if _, err := framework.New("127.0.0.1:2181", nil); !errors.Is(err, framework.ErrInvalidArg) {
		t.Fatalf("nil option: %v", err)
	}
}

func TestClosedAndUnstartedClientsFailClearly(t *testing.T) {
	c, err := framework.New(server.ConnectString())
	if err != nil {
		t.Fatal(err)
	}
	ctx := ctxT(t)
	if _, _, err := c.Get(ctx, "/x"); !errors.Is(err, framework.ErrNotStarted) {
		t.Fatalf("before Start: %v, want ErrNotStarted", err)
	}
	cancelled, cancel := context.WithCancel(ctx)
	cancel()
	if err := c.Delete(cancelled, "/x", framework.Guaranteed()); err == nil {
		t.Fatal("guaranteed delete before Start with a cancelled context: no error")
	}
	c.Start(context.Background())
	c.BlockUntilConnected(ctx)
	select {
	case <-c.Done():
		t.Fatal("Done closed before Close")
	default:
	}
	c.Close()
	select {
	case <-c.Done():
	default:
		t.Fatal("Done still open after Close")
	}
	if _, _, err := c.Get(ctx, "/x"); !errors.Is(err, framework.ErrClosed) {
		t.Fatalf("after Close: %v, want ErrClosed", err)
	}
	if err := c.Start(context.Background()); !errors.Is(err, framework.ErrClosed) {
		t.Fatalf("Start after Close: %v", err)
	}
	if err := c.Close(); err != nil {
		t.Fatalf("second Close: %v", err)
	}
}

// Close stops every goroutine the client started, including calls abandoned
// on a silent server.
func TestCloseLeavesNoGoroutines(t *testing.T) {
	proxy := recipestest.StartProxy(t, server.Addr())
	c, err := framework.New(proxy.Addr(), framework.WithSessionTimeout(4*time.Second))
	if err != nil {
		t.Fatal(err)
	}
	c.Start(context.Background())
	ctx := ctxT(t)
	c.BlockUntilConnected(ctx)
	proxy.Blackhole(true)
	short, cancel := context.WithCancel(ctx)
	done := make(chan struct{})
	go func() { c.Get(short, "/x"); close(done) }()
	cancel()
	<-done
	c.Close()
	proxy.Close()
	recipestest.VerifyNone(t)
}

// A listing sent once NotifyWritten's channel is closed is answered after
// the create, so it always shows the created node. (Closed when the create
// was merely about to be handed to go-zookeeper, the channel let the
// listing overtake the create about once in a hundred.)
func TestNotifyWrittenOrdersLaterRequests(t *testing.T) {
	c := newClient(t)
	ctx := ctxT(t)
	const rounds = 50
	for _, kind := range []string{"create", "txn"} {
		t.Run(kind, func(t *testing.T) {
			dir := "/" + kind
			c.Create(ctx, dir, nil)
			for i := range rounds {
				tctx, written := framework.NotifyWritten(ctx)
				type result struct {
					path string
					err  error
				}
				created := make(chan result, 1)
				go func() {
					var r result
					if kind == "create" {
						r.path, r.err = c.Create(tctx, dir+"/n-", nil, framework.WithMode(framework.EphemeralSequential), framework.WithProtection())
					} else {
						var res []framework.OpResult
						if res, r.err = c.Txn(tctx, framework.CreateOp(dir+"/n-", nil, framework.EphemeralSequential, framework.WithProtection())); r.err == nil {
							r.path = res[0].Path
						}
					}
					created <- r
				}()
				var early *result // the create returned first: it closed written as it returned
				select {
				case <-written:
				case r := <-created:
					select {
					case <-written:
						early = &r
					default:
						t.Fatalf("round %d: the %s returned (%v) with written still open", i, kind, r.err)
					}
				}
				kids, _, err := c.Children(ctx, dir)
				if err != nil {
					t.Fatal(err)
				}
				var r result
				if early != nil {
					r = *early
				} else {
					r = <-created
				}
				if r.err != nil {
					t.Fatal(r.err)
				}
				p := r.path
				if _, name := framework.SplitPath(p); !slices.Contains(kids, name) {
					t.Fatalf("round %d: a listing sent once written was closed lacks %s: %v", i, p, kids)
				}
				c.Delete(ctx, p)
			}
		})
	}
	// A create the server never sees is never written.
	tctx, written := framework.NotifyWritten(ctx)
	if _, err := c.Create(tctx, "/create/bad//name", nil); !errors.Is(err, framework.ErrInvalidPath) {
		t.Fatalf("Create of a bad path: %v", err)
	}
	select {
	case <-written:
		t.Fatal("written closed for a create that was never sent")
	default:
	}
}

// A fresh namespace's root is made before the client's first operation, as
// Curator makes it: a transaction and a listing at the root work without a
// create first.
func TestFreshNamespaceRootIsMadeForAnyOperation(t *testing.T) {
	ns := recipestest.Namespace(t)
	ctx := ctxT(t)
	lister := newClientAt(t, server.ConnectString(), framework.WithNamespace(ns+"-listed"))
	if kids, _, err := lister.Children(ctx, "/"); err != nil || len(kids) != 0 {
		t.Fatalf("listing a fresh namespace: %v, %v; want none", kids, err)
	}
	c := newClientAt(t, server.ConnectString(), framework.WithNamespace(ns))
	if _, err := c.Txn(ctx, framework.CreateOp("/a", nil, framework.Persistent)); err != nil {
		t.Fatalf("a transaction in a fresh namespace: %v", err)
	}
	root := newClientAt(t, server.ConnectString())
	if _, stat, err := root.Get(ctx, "/"+ns); err != nil || stat.EphemeralOwner != 0 || stat.NumChildren != 1 {
		t.Fatalf("namespace root: %+v, %v", stat, err)
	}
}

// Exists on a missing node returns no stat, as Curator's checkExists
// returns null; on a node that exists, its stat.
func TestExistsStat(t *testing.T) {
	c := newClient(t)
	ctx := ctxT(t)
	if ok, stat, err := c.Exists(ctx, "/missing"); ok || stat != nil || err != nil {
		t.Fatalf("Exists of a missing node: %v, %+v, %v; want false, nil, nil", ok, stat, err)
	}
	if _, err := c.Create(ctx, "/here", []byte("abc")); err != nil {
		t.Fatal(err)
	}
	if ok, stat, err := c.Exists(ctx, "/here"); !ok || stat == nil || stat.DataLength != 3 || err != nil {
		t.Fatalf("Exists of a node: %v, %+v, %v", ok, stat, err)
	}
}
