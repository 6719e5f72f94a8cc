package framework_test

import (
	"errors"
	"slices"
	"testing"

	"github.com/gocurator/curator/framework"
	"github.com/gocurator/curator/recipestest"
)

// A connect string with a chroot puts every path of the client under it,
// and a namespace under the chroot; paths come back without either. The
// client never creates the chroot node: without it, a create fails.
func TestChrootConnectString(t *testing.T) {
	plain := newClientAt(t, server.ConnectString())
	ctx := ctxT(t)
	chroot := "/" + recipestest.Namespace(t)
	if _, err := plain.Create(ctx, chroot, nil); err != nil {
		t.Fatal(err)
	}

	c := newClientAt(t, server.ConnectString()+chroot)
	p, err := c.Create(ctx, "/a", []byte("x"), framework.WithMode(framework.EphemeralSequential))
	if err != nil {
		t.Fatal(err)
	}
	if kids, _, err := plain.Children(ctx, chroot); err != nil || len(kids) != 1 || "/"+kids[0] != p {
		t.Fatalf("under the chroot: %v (%v); the client made %s", kids, err, p)
	}
	if kids, _, err := c.Children(ctx, "/"); err != nil || !slices.Contains(kids, p[1:]) {
		t.Fatalf("the chroot client's root: %v (%v), want %s in it", kids, err, p)
	}

	ns := newClientAt(t, server.ConnectString()+chroot, framework.WithNamespace("app"))
	if _, err := ns.Create(ctx, "/b", nil); err != nil {
		t.Fatal(err)
	}
	if ok, _, err := plain.Exists(ctx, chroot+"/app/b"); !ok || err != nil {
		t.Fatalf("%s/app/b: exists %v (%v): the namespace goes under the chroot", chroot, ok, err)
	}

	if err := c.Delete(ctx, "/", framework.WithChildren()); !errors.Is(err, framework.ErrInvalidPath) {
		t.Fatalf("deleting the chroot: %v, want ErrInvalidPath (as Java's BadArguments)", err)
	}
	if _, err := c.Txn(ctx, framework.DeleteOp("/", -1)); !errors.Is(err, framework.ErrInvalidPath) {
		t.Fatalf("deleting the chroot in a transaction: %v, want ErrInvalidPath", err)
	}

	missing := newClientAt(t, server.ConnectString()+chroot+"-missing")
	if _, err := missing.Create(ctx, "/c", nil, framework.WithContainerParents()); !errors.Is(err, framework.ErrNoNode) {
		t.Fatalf("create under a missing chroot: %v, want ErrNoNode", err)
	}
	if ok, _, _ := plain.Exists(ctx, chroot+"-missing"); ok {
		t.Fatal("the client created its chroot node")
	}
}

// A connect string's chroot must be a valid path; "/" is none. Bad ones
// fail at New, which sends nothing.
func TestChrootConnectStringValidation(t *testing.T) {
	for _, tc := range []struct {
		connect string
		ok      bool
	}{
		{"127.0.0.1:2181/", true},
		{"127.0.0.1:2181/app", true},
		{"a:1,b:2/app/x", true},
		{"127.0.0.1:2181/app/", false},
		{"127.0.0.1:2181//app", false},
		{"127.0.0.1:2181/app/../x", false},
		{"/app", false},
		{"host", true},  // Java's default port, 2181
		{"host:", true}, // likewise
		{"[::1]:2181", true},
		{"127.0.0.1:abc", false},
		{"127.0.0.1:99999", false},
		{"127.0.0.1:-1", false},
		{":2181", false},
		{"", false},
		{" , ", false},
	} {
		c, err := framework.New(tc.connect)
		if ok := err == nil; ok != tc.ok || (!ok && !errors.Is(err, framework.ErrInvalidArg)) {
			t.Errorf("New(%q): %v; want ok=%v, or ErrInvalidArg", tc.connect, err, tc.ok)
		}
		if c != nil {
			c.Close()
		}
	}
}
