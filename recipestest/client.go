package recipestest

import (
	"context"
	"errors"
	"fmt"
	"os"
	"testing"
	"time"

	"github.com/gocurator/curator/framework"
	"github.com/gocurator/curator/retry"
	"github.com/gocurator/curator/zkharness"
)

// NewClient starts a framework.Client on connect for one test, with
// test-friendly timeouts (4 s sessions, 2 s connection timeout, quick
// retries) that opts may override, waits until it is connected, and closes
// it when the test ends.
func NewClient(tb testing.TB, connect string, opts ...framework.Option) *framework.Client {
	tb.Helper()
	c, err := framework.New(connect, append(ClientOptions(), opts...)...)
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { c.Close() })
	if err := c.Start(context.Background()); err != nil {
		tb.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if err := c.BlockUntilConnected(ctx); err != nil {
		tb.Fatalf("client did not connect to %s: %v", connect, err)
	}
	return c
}

// Clients starts n clients on connect with NewClient, each with its own
// session, all in one fresh namespace (Namespace) with opts.
func Clients(tb testing.TB, connect string, n int, opts ...framework.Option) []*framework.Client {
	tb.Helper()
	opts = append([]framework.Option{framework.WithNamespace(Namespace(tb))}, opts...)
	cs := make([]*framework.Client, n)
	for i := range cs {
		cs[i] = NewClient(tb, connect, opts...)
	}
	return cs
}

// Context returns a context for a test's calls, cancelled when the test
// ends, with a deadline a minute away: a bug then fails the test instead of
// hanging it. It is not a speed assertion.
func Context(tb testing.TB) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	tb.Cleanup(cancel)
	return ctx
}

// ClientOptions are NewClient's test-friendly defaults, for tests that build
// their clients themselves.
func ClientOptions() []framework.Option {
	return []framework.Option{
		framework.WithSessionTimeout(4 * time.Second),
		framework.WithConnectionTimeout(2 * time.Second),
		framework.WithRetryPolicy(retry.ExponentialBackoffRetry(20*time.Millisecond, 5)),
	}
}

// StartProxy starts a fault proxy in front of target for one test and closes
// it when the test ends.
func StartProxy(tb testing.TB, target string) *zkharness.Proxy {
	tb.Helper()
	p, err := zkharness.NewProxy(target)
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { p.Close() })
	return p
}

// ConnectEnv is the environment variable RunWithServer sets to its server's
// address.
const ConnectEnv = "ZOOKEEPER_CONNECT"

// RunWithServer is a TestMain for packages that share one server: it starts
// the server, stores it in *srv, sets $ZOOKEEPER_CONNECT to its address (so
// that runnable examples connect as a user's code would, with
// os.Getenv("ZOOKEEPER_CONNECT")), runs the tests, closes the server and
// checks for leaked goroutines. It calls os.Exit.
//
// Where no ZooKeeper can run (zkharness.ErrNoZooKeeper: no Java, say), it
// says so and runs the tests with *srv nil: the tests that need no server
// (a package's unit tests) pass, and any test that uses the server fails.
func RunWithServer(m *testing.M, srv **zkharness.Server, opts ...zkharness.Option) {
	s, err := zkharness.NewServer(opts...)
	switch {
	case errors.Is(err, zkharness.ErrNoZooKeeper):
		fmt.Fprintf(os.Stderr, "%v: running without a server; only tests that need none can pass\n", err)
		VerifyTestMain(m, func() {})
		return
	case err != nil:
		fmt.Fprintln(os.Stderr, "recipestest:", err)
		os.Exit(1)
	}
	*srv = s
	os.Setenv(ConnectEnv, s.ConnectString())
	VerifyTestMain(m, func() { s.Close() })
}
