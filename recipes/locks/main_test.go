package locks_test

import (
	"context"
	"testing"

	"github.com/gocurator/curator/framework"
	"github.com/gocurator/curator/recipestest"
	"github.com/gocurator/curator/zkharness"
)

// server is the package's shared ZooKeeper; each test works in a namespace
// of its own.
var server *zkharness.Server

func TestMain(m *testing.M) { recipestest.RunWithServer(m, &server) }

// clients starts n clients, each with its own session, in one namespace.
func clients(t testing.TB, n int, opts ...framework.Option) []*framework.Client {
	t.Helper()
	return recipestest.Clients(t, server.ConnectString(), n, opts...)
}

func newClientAt(t testing.TB, connect string, opts ...framework.Option) *framework.Client {
	t.Helper()
	return recipestest.NewClient(t, connect, opts...)
}

// ctxT bounds a test's calls (see recipestest.Context).
func ctxT(t testing.TB) context.Context { return recipestest.Context(t) }

// children lists a node's children through c, nil if the node is gone.
func children(t testing.TB, c *framework.Client, path string) []string {
	t.Helper()
	kids, _, err := c.Children(ctxT(t), path)
	if err != nil && !isNoNode(err) {
		t.Fatal(err)
	}
	return kids
}
