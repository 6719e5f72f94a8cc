package recipestest

import (
	"context"
	"fmt"
	"os"
	"testing"
	"time"

	"github.com/gocurator/curator/framework"
	"github.com/gocurator/curator/retry"
)

// NewClient starts a framework.Client on connect for one test, with
// test-friendly timeouts (4 s sessions, 2 s connection timeout, quick
// retries) that opts may override, waits until it is connected, and closes
// it when the test ends.
func NewClient(tb testing.TB, connect string, opts ...framework.Option) *framework.Client {
	tb.Helper()
	base := []framework.Option{
		framework.WithSessionTimeout(4 * time.Second),
		framework.WithConnectionTimeout(2 * time.Second),
		framework.WithRetryPolicy(retry.ExponentialBackoffRetry(20*time.Millisecond, 5)),
	}
	c, err := framework.New(connect, append(base, opts...)...)
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { c.Close() })
	if err := c.Start(); err != nil {
		tb.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if err := c.BlockUntilConnected(ctx); err != nil {
		tb.Fatalf("client did not connect to %s: %v", connect, err)
	}
	return c
}

// RunWithServer is a TestMain for packages that share one server: it starts
// the server, stores it in *srv, runs the tests, closes the server and
// checks for leaked goroutines. It calls os.Exit.
func RunWithServer(m *testing.M, srv **Server, opts ...Option) {
	s, err := NewServer(opts...)
	if err != nil {
		fmt.Fprintln(os.Stderr, "recipestest:", err)
		os.Exit(1)
	}
	*srv = s
	VerifyTestMain(m, func() { s.Close() })
}
