package atomic_test

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

// ctxT bounds a test's calls (see recipestest.Context).
func ctxT(t testing.TB) context.Context { return recipestest.Context(t) }
