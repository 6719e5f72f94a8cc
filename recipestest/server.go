package recipestest

import (
	"testing"

	"github.com/gocurator/curator/zkharness"
)

// StartServer starts a ZooKeeper server for one test (or benchmark) and
// closes it when the test ends.
func StartServer(tb testing.TB, opts ...zkharness.Option) *zkharness.Server {
	tb.Helper()
	s, err := zkharness.NewServer(opts...)
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { s.Close() })
	return s
}
