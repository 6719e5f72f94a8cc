package framework_test

import (
	"context"
	"errors"
	"testing"

	"github.com/gocurator/curator/framework"
	"github.com/gocurator/curator/listener"
	"github.com/gocurator/curator/recipestest"
)

// A client with digest auth reads a node only its identity may; one
// without it is refused.
func TestDigestAuth(t *testing.T) {
	ns := recipestest.Namespace(t)
	alice := newClientAt(t, server.ConnectString(), framework.WithNamespace(ns), framework.WithAuth("digest", []byte("alice:secret")))
	anon := newClientAt(t, server.ConnectString(), framework.WithNamespace(ns))
	ctx := ctxT(t)
	if _, err := alice.Create(ctx, "/private", []byte("x"), framework.WithACL(framework.DigestACL(framework.PermAll, "alice", "secret"))); err != nil {
		t.Fatal(err)
	}
	if _, _, err := alice.Get(ctx, "/private"); err != nil {
		t.Fatalf("the owner's read: %v", err)
	}
	if _, _, err := anon.Get(ctx, "/private"); !errors.Is(err, framework.ErrNoAuth) {
		t.Fatalf("a read without the identity: %v, want ErrNoAuth", err)
	}
}

// Auth info the server refuses fails every operation, as Java's
// AUTH_FAILED does, instead of letting them run without the identity.
//
// The server drops the connection that sent the refused auth info, so the
// client does not stay CONNECTED long enough for startClient to wait on.
func TestRefusedAuthFailsOperations(t *testing.T) {
	c, err := framework.New(server.ConnectString(), append(recipestest.ClientOptions(),
		framework.WithNamespace(recipestest.Namespace(t)), framework.WithAuth("no-such-scheme", []byte("x")))...)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	if err := c.Start(context.Background()); err != nil {
		t.Fatal(err)
	}
	if _, _, err := c.Exists(ctxT(t), "/x"); !errors.Is(err, framework.ErrNoAuth) {
		t.Fatalf("an operation after the server refused the auth info: %v, want ErrNoAuth", err)
	}
}

// A multiRead on a client with digest auth, sent the moment its session is
// back on a new connection, reads what the auth allows: it goes after the
// auth go-zookeeper sends again there. It went before it, and each read
// was refused (ErrNoAuth).
func TestMultiReadAfterAReconnectIsAuthenticated(t *testing.T) {
	ns := recipestest.Namespace(t)
	proxy := recipestest.StartProxy(t, server.Addr())
	c, log := startClient(t, proxy.Addr(), framework.WithNamespace(ns), framework.WithDigestAuth("alice", "secret"))
	ctx := ctxT(t)
	if _, err := c.Create(ctx, "/private", []byte("s"), framework.WithACL(framework.DigestACL(framework.PermAll, "alice", "secret"))); err != nil {
		t.Fatal(err)
	}
	for round := range 3 {
		proxy.DropAll()
		res, err := c.MultiRead(ctx, framework.GetOp("/private")) // waits for the session, and goes out as soon as it is back
		if err != nil || res[0].Err != nil || string(res[0].Data) != "s" {
			t.Fatalf("round %d: %+v, %v", round, res, err)
		}
		log.waitLast(t, listener.Reconnected)
	}
}
