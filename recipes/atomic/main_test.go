package atomic_test

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

// clients starts n clients in one fresh namespace.
func clients(t *testing.T, n int, opts ...framework.Option) []*framework.Client {
	t.Helper()
	ns := recipestest.Namespace(t)
	cs := make([]*framework.Client, n)
	for i := range cs {
		cs[i] = recipestest.NewClient(t, server.ConnectString(), append([]framework.Option{framework.WithNamespace(ns)}, opts...)...)
	}
	return cs
}

// ctxT bounds a test's calls so that a bug fails the test instead of
// hanging it; it is not a speed assertion.
func ctxT(t *testing.T) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	t.Cleanup(cancel)
	return ctx
}
