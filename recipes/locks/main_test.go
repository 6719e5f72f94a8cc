package locks_test

import (
	"context"
	"fmt"
	"os"
	"testing"
	"time"

	"github.com/gocurator/curator/framework"
	"github.com/gocurator/curator/recipestest"
	"github.com/gocurator/curator/retry"
)

// server is the package's shared ZooKeeper; each test works in a namespace
// of its own.
var server *recipestest.Server

func TestMain(m *testing.M) {
	srv, err := recipestest.NewServer()
	if err != nil {
		fmt.Fprintln(os.Stderr, "starting ZooKeeper:", err)
		os.Exit(1)
	}
	server = srv
	recipestest.VerifyTestMain(m, func() { srv.Close() })
}

// clients starts n clients, each with its own session, in one namespace.
func clients(t testing.TB, n int, opts ...framework.Option) []*framework.Client {
	t.Helper()
	ns := recipestest.Namespace(t)
	cs := make([]*framework.Client, n)
	for i := range cs {
		cs[i] = newClientAt(t, server.ConnectString(), append([]framework.Option{framework.WithNamespace(ns)}, opts...)...)
	}
	return cs
}

func newClientAt(t testing.TB, connect string, opts ...framework.Option) *framework.Client {
	t.Helper()
	base := []framework.Option{
		framework.WithSessionTimeout(4 * time.Second),
		framework.WithConnectionTimeout(2 * time.Second),
		framework.WithRetryPolicy(retry.ExponentialBackoffRetry(20*time.Millisecond, 5)),
	}
	c, err := framework.New(connect, append(base, opts...)...)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	if err := c.Start(); err != nil {
		t.Fatal(err)
	}
	if err := c.BlockUntilConnected(ctxT(t)); err != nil {
		t.Fatal(err)
	}
	return c
}

// ctxT bounds a test's calls so that a bug fails the test instead of
// hanging it; it is not a speed assertion.
func ctxT(t testing.TB) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	t.Cleanup(cancel)
	return ctx
}

// children lists a node's children through c, nil if the node is gone.
func children(t testing.TB, c *framework.Client, path string) []string {
	t.Helper()
	kids, _, err := c.Children(ctxT(t), path)
	if err != nil && !isNoNode(err) {
		t.Fatal(err)
	}
	return kids
}
