package framework_test

import (
	"errors"
	"fmt"
	"regexp"
	"slices"
	"testing"
	"time"

	"github.com/gocurator/curator/framework"
	"github.com/gocurator/curator/recipestest"
	"github.com/gocurator/curator/retry"
	"github.com/gocurator/curator/zkharness"
)

func TestCreateModes(t *testing.T) {
	c := newClient(t)
	ctx := ctxT(t)
	if _, err := c.Create(ctx, "/p", []byte("data")); err != nil {
		t.Fatal(err)
	}
	data, stat, err := c.Get(ctx, "/p")
	if err != nil || string(data) != "data" || stat.EphemeralOwner != 0 {
		t.Fatalf("persistent: data=%q stat=%+v err=%v", data, stat, err)
	}

	if _, err := c.Create(ctx, "/e", nil, framework.WithMode(framework.Ephemeral)); err != nil {
		t.Fatal(err)
	}
	_, stat, _ = c.Get(ctx, "/e")
	if stat.EphemeralOwner != c.SessionID() {
		t.Fatalf("ephemeral owner %x, want session %x", stat.EphemeralOwner, c.SessionID())
	}

	p1, err := c.Create(ctx, "/seq-", nil, framework.WithMode(framework.PersistentSequential))
	if err != nil {
		t.Fatal(err)
	}
	p2, _ := c.Create(ctx, "/seq-", nil, framework.WithMode(framework.EphemeralSequential))
	if !regexp.MustCompile(`^/seq-\d{10}$`).MatchString(p1) || p2 <= p1 {
		t.Fatalf("sequential paths %q, %q", p1, p2)
	}

	if _, err := c.Create(ctx, "/ttl", nil, framework.WithMode(framework.PersistentWithTTL), framework.WithTTL(time.Minute)); err != nil {
		t.Fatalf("TTL node: %v", err)
	}
	if _, err := c.Create(ctx, "/ttl2", nil, framework.WithMode(framework.PersistentWithTTL)); !errors.Is(err, framework.ErrInvalidArg) {
		t.Fatalf("TTL mode without TTL: %v, want ErrInvalidArg", err)
	}

	if _, err := c.Create(ctx, "/p", nil); !errors.Is(err, framework.ErrNodeExists) || err.Error() != "create /p: node already exists" {
		t.Fatalf("second create: %v, want ErrNodeExists, in our words", err)
	}
	if _, err := c.Create(ctx, "/missing/child", nil); !errors.Is(err, framework.ErrNoNode) {
		t.Fatalf("create under a missing parent: %v, want ErrNoNode", err)
	}
}

func TestCreateDefaultDataIsLocalAddress(t *testing.T) {
	c := newClient(t)
	ctx := ctxT(t)
	c.Create(ctx, "/d", nil)
	data, _, _ := c.Get(ctx, "/d")
	if !regexp.MustCompile(`^\d+\.\d+\.\d+\.\d+$`).Match(data) {
		t.Fatalf("default data %q, want an IPv4 address", data)
	}
	c.Create(ctx, "/empty", []byte{})
	if data, _, _ := c.Get(ctx, "/empty"); len(data) != 0 {
		t.Fatalf("explicit empty data stored as %q", data)
	}
	c2 := newClient(t, framework.WithDefaultData([]byte("mine")))
	c2.Create(ctx, "/d", nil)
	if data, _, _ := c2.Get(ctx, "/d"); string(data) != "mine" {
		t.Fatalf("WithDefaultData: %q", data)
	}
}

func TestCreateParents(t *testing.T) {
	c := newClient(t)
	ctx := ctxT(t)
	if _, err := c.Create(ctx, "/a/b/c", nil, framework.WithContainerParents()); err != nil {
		t.Fatal(err)
	}
	if _, err := c.Create(ctx, "/x/y/z", nil, framework.WithParents()); err != nil {
		t.Fatal(err)
	}
	// Container parents disappear once the last child is gone; persistent
	// parents stay.
	if err := c.Delete(ctx, "/a/b/c"); err != nil {
		t.Fatal(err)
	}
	if err := c.Delete(ctx, "/x/y/z"); err != nil {
		t.Fatal(err)
	}
	waitGone(t, c, "/a/b")
	waitGone(t, c, "/a")
	if ok, _, _ := c.Exists(ctx, "/x/y"); !ok {
		t.Fatal("persistent parent /x/y was removed")
	}
}

// When only the parent is missing, as after the server reaped a lock's
// container, the create makes it again with one request, not one for each
// ancestor.
func TestCreateRemakesOnlyMissingParents(t *testing.T) {
	requests := zkharness.NewCounter()
	c := newClient(t, framework.WithDialer(requests.Dialer(nil)))
	ctx := ctxT(t)
	if _, err := c.Create(ctx, "/x/y/z", nil, framework.WithParents()); err != nil {
		t.Fatal(err)
	}
	if err := c.Delete(ctx, "/x/y", framework.WithChildren()); err != nil {
		t.Fatal(err)
	}
	before := requests.Requests()
	if _, err := c.Create(ctx, "/x/y/z", nil, framework.WithParents()); err != nil {
		t.Fatal(err)
	}
	// create /x/y/z (no parent), create /x/y, create /x/y/z.
	if got := requests.Requests() - before; got != 3 {
		t.Fatalf("%d requests, want 3", got)
	}
	if ok, _, _ := c.Exists(ctx, "/x/y/z"); !ok {
		t.Fatal("/x/y/z is missing")
	}
}

// waitGone polls until the server has removed path (the container reaper
// runs on its own schedule, so there is no event to wait on).
func waitGone(t *testing.T, c *framework.Client, path string) {
	t.Helper()
	recipestest.Eventually(t, path+" gone", func() (bool, string) {
		ok, _, err := c.Exists(ctxT(t), path)
		return err == nil && !ok, fmt.Sprint("exists ", ok, err)
	})
}

var protectedName = regexp.MustCompile(`^_c_[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}-lock-\d{10}$`)

func TestProtectedCreateNamesLikeCurator(t *testing.T) {
	c := newClient(t)
	ctx := ctxT(t)
	p, err := c.Create(ctx, "/locks/lock-", nil, framework.WithProtection(), framework.WithContainerParents(),
		framework.WithMode(framework.EphemeralSequential))
	if err != nil {
		t.Fatal(err)
	}
	parent, name := framework.SplitPath(p)
	if parent != "/locks" || !protectedName.MatchString(name) {
		t.Fatalf("protected path %q", p)
	}
	if got := framework.StripProtectedPrefix(name); !regexp.MustCompile(`^lock-\d{10}$`).MatchString(got) {
		t.Fatalf("StripProtectedPrefix(%q) = %q", name, got)
	}
}

// The create reaches the server but its reply is lost with the connection:
// the retry finds the node it made instead of making a second one.
func TestProtectedCreateWithLostReplyLeavesOneNode(t *testing.T) {
	proxy := recipestest.StartProxy(t, server.Addr())
	ns := recipestest.Namespace(t)
	c := newClientAt(t, proxy.Addr(), framework.WithNamespace(ns))
	ctx := ctxT(t)
	if _, err := c.Create(ctx, "/q", nil); err != nil {
		t.Fatal(err)
	}
	proxy.DropAfter(zkharness.OpCreate)
	p, err := c.Create(ctx, "/q/n-", nil, framework.WithProtection(), framework.WithMode(framework.EphemeralSequential))
	if err != nil {
		t.Fatalf("protected create across a lost reply: %v", err)
	}
	children, _, err := c.Children(ctx, "/q")
	if err != nil {
		t.Fatal(err)
	}
	_, name := framework.SplitPath(p)
	if !slices.Equal(children, []string{name}) {
		t.Fatalf("children %v, want exactly [%s]", children, name)
	}
}

// Without protection the same lost reply makes the retry create a second
// node: the reason protection exists.
func TestUnprotectedCreateWithLostReplyDuplicates(t *testing.T) {
	proxy := recipestest.StartProxy(t, server.Addr())
	c := newClientAt(t, proxy.Addr(), framework.WithNamespace(recipestest.Namespace(t)))
	ctx := ctxT(t)
	c.Create(ctx, "/q", nil)
	proxy.DropAfter(zkharness.OpCreate)
	if _, err := c.Create(ctx, "/q/n-", nil, framework.WithMode(framework.EphemeralSequential)); err != nil {
		t.Fatal(err)
	}
	if children, _, _ := c.Children(ctx, "/q"); len(children) != 2 {
		t.Fatalf("children %v, want 2 (the lost reply's node and the retry's)", children)
	}
}

// A protected create that fails for good after its request committed (no
// retries allowed, reply lost) leaves nothing: the client finds its node by
// the protected id and deletes it in the background.
func TestFailedProtectedCreateIsCleanedUp(t *testing.T) {
	proxy := recipestest.StartProxy(t, server.Addr())
	ns := recipestest.Namespace(t)
	c := newClientAt(t, proxy.Addr(), framework.WithNamespace(ns), framework.WithRetryPolicy(retry.RetryNTimes(0, 0)))
	observer := newClientAt(t, server.ConnectString(), framework.WithNamespace(ns))
	ctx := ctxT(t)
	if _, err := c.Create(ctx, "/q", nil); err != nil {
		t.Fatal(err)
	}
	proxy.DropAfter(zkharness.OpCreate)
	_, err := c.Create(ctx, "/q/n-", nil, framework.WithProtection(), framework.WithMode(framework.PersistentSequential))
	if !errors.Is(err, framework.ErrConnectionLoss) {
		t.Fatalf("create with its reply lost and no retries: %v, want ErrConnectionLoss", err)
	}
	// The node was created (the request committed) and is then removed.
	waitNoChildren(t, observer, "/q")
}

// The undo of an abandoned create deletes an ephemeral node with a unique
// name even if a peer wrote to it meanwhile (Curator's Revoker writes to
// lock nodes); a persistent node, or an ephemeral one whose name another
// session could have taken since, is left alone once written to.
func TestUndoOfAbandonedCreate(t *testing.T) {
	c := newClientAt(t, server.ConnectString()) // no namespace: UndoCreate takes server paths
	ctx := ctxT(t)
	dir := "/" + recipestest.Namespace(t)
	for _, tc := range []struct {
		mode   framework.CreateMode
		unique bool
		kept   bool
	}{
		{framework.EphemeralSequential, true, false},
		{framework.Ephemeral, true, false}, // protected
		{framework.Ephemeral, false, true},
		{framework.PersistentSequential, true, true},
	} {
		p, err := c.Create(ctx, dir+"/n", nil, framework.WithMode(tc.mode), framework.WithParents())
		if err != nil {
			t.Fatal(err)
		}
		if _, err := c.Set(ctx, p, []byte("__REVOKE__"), -1); err != nil {
			t.Fatal(err)
		}
		c.UndoCreate(p, tc.mode, tc.unique)
		if ok, _, err := c.Exists(ctx, p); err != nil || ok != tc.kept {
			t.Fatalf("mode %d, unique %v: node exists %v (%v) after the undo, want %v", tc.mode, tc.unique, ok, err, tc.kept)
		}
		c.Delete(ctx, p, framework.Quietly())
	}
}

// The search a protected create's retry makes neither returns nor deletes an
// ephemeral node another session owns, even one named with its id: deleted
// by path, it could take the node the retry makes under that name.
func TestFindProtectedLeavesOtherSessionsNodes(t *testing.T) {
	a := newClientAt(t, server.ConnectString()) // no namespace: FindProtected takes server paths
	b := newClientAt(t, server.ConnectString())
	ctx := ctxT(t)
	dir := "/" + recipestest.Namespace(t)
	const id = "0f8fad5b-d9cb-469f-a165-70867728950e"
	p, err := b.Create(ctx, dir+"/"+framework.ProtectedPrefix+id+"-n", nil, framework.WithMode(framework.Ephemeral), framework.WithParents())
	if err != nil {
		t.Fatal(err)
	}
	found, err := a.FindProtected(ctx, dir, id, framework.Ephemeral)
	if err != nil || found != "" {
		t.Fatalf("FindProtected: %q, %v; want nothing", found, err)
	}
	for a.JanitorPending() > 0 { // let a queued delete run, if any
		time.Sleep(10 * time.Millisecond)
	}
	if ok, _, err := b.Exists(ctx, p); err != nil || !ok {
		t.Fatalf("the other session's node after the search: exists %v (%v)", ok, err)
	}
}
