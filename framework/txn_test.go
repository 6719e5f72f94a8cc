package framework_test

import (
	"context"
	"errors"
	"fmt"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/gocurator/curator/framework"
	"github.com/gocurator/curator/recipestest"
	"github.com/gocurator/curator/retry"
	"github.com/gocurator/curator/zkharness"
)

var protectedSeq = regexp.MustCompile(`^_c_[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}-n-\d{10}$`)

// A transaction's create may be protected and make its missing parents as
// containers, as Create's may.
func TestTxnProtectedCreateMakesContainerParents(t *testing.T) {
	c := newClient(t)
	ctx := ctxT(t)
	c.Create(ctx, "/old", nil)
	res, err := c.Txn(ctx,
		framework.CreateOp("/a/b/n-", []byte("x"), framework.EphemeralSequential, framework.WithProtection(), framework.WithContainerParents()),
		framework.DeleteOp("/old", -1))
	if err != nil {
		t.Fatal(err)
	}
	parent, name := framework.SplitPath(res[0].Path)
	if parent != "/a/b" || !protectedSeq.MatchString(name) {
		t.Fatalf("created %q", res[0].Path)
	}
	if ok, _, _ := c.Exists(ctx, "/old"); ok {
		t.Fatal("/old survived the transaction")
	}
	_, err = c.Txn(ctx,
		framework.CreateOp("/a/p-", nil, framework.EphemeralSequential, framework.WithProtection()),
		framework.CreateOp("/a/s-", nil, framework.EphemeralSequential))
	if !errors.Is(err, framework.ErrInvalidArg) {
		t.Fatalf("an unprotected sequential create beside a protected one: %v, want ErrInvalidArg", err)
	}
	if _, err := c.Txn(ctx, framework.CreateOp("/m", nil, framework.Persistent, framework.WithMode(framework.Ephemeral))); !errors.Is(err, framework.ErrInvalidArg) {
		t.Fatalf("WithMode in CreateOp: %v, want ErrInvalidArg", err)
	}
	// Without a parents option a missing parent fails the transaction.
	_, err = c.Txn(ctx, framework.CreateOp("/none/n-", nil, framework.EphemeralSequential, framework.WithProtection()))
	var te *framework.TxnError
	if !errors.As(err, &te) || te.Index != 0 || !errors.Is(err, framework.ErrNoNode) {
		t.Fatalf("create under a missing parent: %v, want TxnError at op 0 with ErrNoNode", err)
	}
	if msg := err.Error(); !strings.Contains(msg, "transaction op 0: create /none/n-:") {
		t.Fatalf("the error %q does not name the failing op and its path", msg)
	}
}

// A transaction cannot create the root, as Create cannot: in a namespace a
// sequential or protected create of "/" would name a node beside the
// namespace, at the server's root.
func TestTxnRefusesToCreateTheRoot(t *testing.T) {
	ns := recipestest.Namespace(t)
	c := newClient(t, framework.WithNamespace(ns))
	root := newClientAt(t, server.ConnectString())
	ctx := ctxT(t)
	for _, op := range []framework.Op{
		framework.CreateOp("/", nil, framework.PersistentSequential),
		framework.CreateOp("/", nil, framework.Persistent, framework.WithProtection()),
	} {
		if res, err := c.Txn(ctx, op); !errors.Is(err, framework.ErrInvalidPath) {
			t.Errorf("a transaction's create of the root: %v, %v; want ErrInvalidPath", res, err)
		}
	}
	kids, _, err := root.Children(ctx, "/")
	if err != nil {
		t.Fatal(err)
	}
	for _, k := range kids {
		if k != ns && strings.HasPrefix(k, ns) || strings.HasSuffix(k, "-"+ns) {
			t.Errorf("node /%s beside the namespace %q", k, ns)
			root.Delete(ctx, "/"+k)
		}
	}
}

// A lost reply: the retry finds the protected node, so the transaction is
// applied once and its results name the node.
func TestProtectedTxnWithLostReplyCommitsOnce(t *testing.T) {
	proxy := recipestest.StartProxy(t, server.Addr())
	c := newClientAt(t, proxy.Addr(), framework.WithNamespace(recipestest.Namespace(t)))
	ctx := ctxT(t)
	c.Create(ctx, "/q", nil)
	c.Create(ctx, "/gone", nil)
	proxy.DropAfter(zkharness.OpMulti)
	res, err := c.Txn(ctx,
		framework.CreateOp("/q/n-", nil, framework.EphemeralSequential, framework.WithProtection()),
		framework.DeleteOp("/gone", -1))
	if err != nil {
		t.Fatalf("protected transaction across a lost reply: %v", err)
	}
	children, _, _ := c.Children(ctx, "/q")
	if _, name := framework.SplitPath(res[0].Path); !slices.Equal(children, []string{name}) {
		t.Fatalf("children %v, result %q: want exactly the result", children, res[0].Path)
	}
}

// A protected transaction that fails for good after it committed leaves
// nothing it created: the client deletes the node in the background.
func TestFailedProtectedTxnIsCleanedUp(t *testing.T) {
	proxy := recipestest.StartProxy(t, server.Addr())
	ns := recipestest.Namespace(t)
	c := newClientAt(t, proxy.Addr(), framework.WithNamespace(ns), framework.WithRetryPolicy(retry.RetryNTimes(0, 0)))
	observer := newClientAt(t, server.ConnectString(), framework.WithNamespace(ns))
	ctx := ctxT(t)
	c.Create(ctx, "/q", nil)
	proxy.DropAfter(zkharness.OpMulti)
	_, err := c.Txn(ctx, framework.CreateOp("/q/n-", nil, framework.PersistentSequential, framework.WithProtection()))
	if !errors.Is(err, framework.ErrConnectionLoss) {
		t.Fatalf("transaction with its reply lost and no retries: %v, want ErrConnectionLoss", err)
	}
	waitNoChildren(t, observer, "/q")
}

// A transaction its caller gave up on, that commits afterwards, has its
// sequential node deleted: the caller could never learn that node's name.
func TestAbandonedTxnIsUndone(t *testing.T) {
	proxy := recipestest.StartProxy(t, server.Addr())
	ns := recipestest.Namespace(t)
	c := newClientAt(t, proxy.Addr(), framework.WithNamespace(ns))
	observer := newClientAt(t, server.ConnectString(), framework.WithNamespace(ns))
	ctx := ctxT(t)
	c.Create(ctx, "/q", nil)
	_, before, err := observer.Children(ctx, "/q")
	if err != nil {
		t.Fatal(err)
	}
	proxy.Blackhole(true) // the request waits in the proxy
	short, cancel := context.WithTimeout(ctx, 200*time.Millisecond)
	defer cancel()
	_, err = c.Txn(short, framework.CreateOp("/q/n-", nil, framework.EphemeralSequential))
	if !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("transaction past its deadline: %v", err)
	}
	proxy.Blackhole(false) // now it commits, and its answer comes back late
	// Created and deleted: two changes to /q's children, none left.
	recipestest.Eventually(t, "a create and a delete under /q", func() (bool, string) {
		kids, stat, err := observer.Children(ctx, "/q")
		return err == nil && len(kids) == 0 && stat.Cversion == before.Cversion+2, fmt.Sprint(kids, stat, err, " (cversion was ", before.Cversion, ")")
	})
}

// An abandoned fenced transaction that committed has its ephemeral nodes
// undone even once the fence is gone: they are the session's own, and a
// recipe often ends the fence itself before the answer comes (a semaphore
// releases the lock its lease transaction checked). Persistent nodes stay
// (TestNoUndoOfAFencedWriteOnceTheFenceFails in recipes/locks).
func TestAbandonedFencedTxnUndoesItsEphemeralNodes(t *testing.T) {
	proxy := recipestest.StartProxy(t, server.Addr())
	ns := recipestest.Namespace(t)
	c := newClientAt(t, proxy.Addr(), framework.WithNamespace(ns))
	observer := newClientAt(t, server.ConnectString(), framework.WithNamespace(ns))
	ctx := ctxT(t)
	for _, p := range []string{"/fence", "/q"} {
		if _, err := c.Create(ctx, p, nil); err != nil {
			t.Fatal(err)
		}
	}
	held := proxy.HoldReply(zkharness.OpMulti)
	short, cancel := context.WithCancel(ctx)
	done := make(chan error, 1)
	go func() {
		_, err := c.Txn(short, framework.CheckOp("/fence", -1), framework.CreateOp("/q/e-", nil, framework.EphemeralSequential, framework.WithProtection()))
		done <- err
	}()
	<-held.Arrived() // committed
	proxy.Blackhole(true)
	cancel()
	if err := <-done; !errors.Is(err, context.Canceled) || !errors.Is(err, framework.ErrOutcomeUnknown) {
		t.Fatalf("abandoned transaction: %v", err)
	}
	if err := observer.Delete(ctx, "/fence"); err != nil { // the caller's own clean-up ends the fence
		t.Fatal(err)
	}
	held.Deliver()
	proxy.Blackhole(false)
	waitNoChildren(t, observer, "/q")
}

// A transaction with an ephemeral protected create and a persistent one,
// whose reply is lost with its session: the retry finds the persistent
// node, which outlives the session, and reports the commit instead of
// making the nodes again.
func TestTxnRetryFindsItsPersistentNodeAcrossSessions(t *testing.T) {
	proxy := recipestest.StartProxy(t, server.Addr())
	ns := recipestest.Namespace(t)
	killer := zkharness.NewSessionKiller()
	c := newClientAt(t, proxy.Addr(), framework.WithNamespace(ns), framework.WithDialer(killer.Dialer(nil)))
	observer := newClientAt(t, server.ConnectString(), framework.WithNamespace(ns))
	ctx := ctxT(t)
	for _, p := range []string{"/e", "/p"} {
		if _, err := c.Create(ctx, p, nil); err != nil {
			t.Fatal(err)
		}
	}
	held := proxy.HoldReply(zkharness.OpMulti)
	type result struct {
		res []framework.OpResult
		err error
	}
	done := make(chan result, 1)
	go func() {
		res, err := c.Txn(ctx,
			framework.CreateOp("/e/n-", nil, framework.EphemeralSequential, framework.WithProtection()),
			framework.CreateOp("/p/n-", nil, framework.PersistentSequential, framework.WithProtection()))
		done <- result{res, err}
	}()
	<-held.Arrived() // committed
	proxy.Blackhole(true)
	if err := killer.KillAt(ctx, server.Addr()); err != nil { // the ephemeral node goes with the session
		t.Fatal(err)
	}
	held.Drop()
	proxy.Blackhole(false)
	r := <-done
	if r.err != nil {
		t.Fatalf("a committed transaction retried on a new session: %v", r.err)
	}
	kids, _, err := observer.Children(ctx, "/p")
	if err != nil {
		t.Fatal(err)
	}
	if len(kids) != 1 || r.res[1].Path != "/p/"+kids[0] {
		t.Fatalf("persistent nodes %v, result %q: want the one node, found again", kids, r.res[1].Path)
	}
}
