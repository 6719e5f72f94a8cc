package leader_test

import (
	"context"
	"testing"
	"time"

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

// ctxOutage bounds the calls of a test that stops a server until a session
// is given up and waits for it to expire on the restarted server, with
// JVMs starting beside it: a minute is not enough on a loaded machine.
func ctxOutage(t testing.TB) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	t.Cleanup(cancel)
	return ctx
}
