package barrier_test

import (
	"context"
	"testing"
	"time"

	"github.com/gocurator/curator/recipestest"
	"github.com/gocurator/curator/zkharness"
)

// server is the package's shared ZooKeeper; each test works in a namespace
// of its own.
var server *zkharness.Server

func TestMain(m *testing.M) { recipestest.RunWithServer(m, &server) }

// ctxT bounds a test's calls so that a bug fails the test instead of
// hanging it; it is not a speed assertion.
func ctxT(t *testing.T) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	t.Cleanup(cancel)
	return ctx
}
