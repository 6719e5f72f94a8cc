package recipestest

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/gocurator/curator/zkharness"
)

// WatchedPaths returns the paths under prefix (a server path, the
// namespace included) on which the server at addr holds a watch, as its
// wchp command lists them. A recipe that watches a node gone already with
// an exists leaves a watch for the node's creation there until its session
// ends: a test of the recipe's watches looks for what is left.
func WatchedPaths(tb testing.TB, addr, prefix string) []string {
	tb.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	out, err := zkharness.FourLetter(ctx, addr, "wchp")
	if err != nil {
		tb.Fatalf("wchp: %v", err)
	}
	var paths []string
	for _, line := range strings.Split(out, "\n") {
		if strings.HasPrefix(line, prefix) {
			paths = append(paths, line)
		}
	}
	return paths
}
