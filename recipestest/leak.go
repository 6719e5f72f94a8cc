package recipestest

import (
	"fmt"
	"os"
	"testing"

	"go.uber.org/goleak"

	"github.com/gocurator/curator/framework"
)

// VerifyTestMain runs a package's tests, then cleanup (closing a shared
// server, say; it may be nil), then fails the run if any goroutine is left.
// It calls os.Exit.
func VerifyTestMain(m *testing.M, cleanup func(), opts ...goleak.Option) {
	code := m.Run()
	if cleanup != nil {
		cleanup()
	}
	if code == 0 {
		if err := goleak.Find(opts...); err != nil {
			fmt.Fprintln(os.Stderr, "goroutines leaked:", err)
			code = 1
		}
	}
	os.Exit(code)
}

// VerifyNone fails tb if any goroutine other than tb's own is running.
//
// The kit closes what it made for a test (clients, servers, proxies) in
// tb's cleanups, which run after the test function's deferred calls: so
// `defer recipestest.VerifyNone(t)` runs while the kit's clients are still
// open, and reports their goroutines as leaks. Use LeakCheck instead, or
// call VerifyNone from a cleanup registered before the kit's.
func VerifyNone(tb testing.TB, opts ...goleak.Option) {
	tb.Helper()
	goleak.VerifyNone(tb, opts...)
}

// LeakCheck arranges for VerifyNone to run at the very end of the test:
// call it first, before the test makes anything, and it runs after every
// cleanup registered after it (cleanups run last in, first out), the kit's
// included.
func LeakCheck(tb testing.TB, opts ...goleak.Option) {
	tb.Helper()
	tb.Cleanup(func() { VerifyNone(tb, opts...) })
}

// IgnoreClients returns an option for VerifyNone that ignores every
// goroutine running now, taken once each client has had a request
// answered. A client reports its session before its connection's send and
// receive goroutines have all started, so a snapshot taken as soon as it
// connects can miss them, and a later check report them as leaks. It is for
// tests that check a recipe stops its own goroutines while its clients
// stay open.
func IgnoreClients(tb testing.TB, clients ...*framework.Client) goleak.Option {
	tb.Helper()
	for _, c := range clients {
		if _, _, err := c.Exists(Context(tb), "/"); err != nil {
			tb.Fatalf("recipestest: a request before the goroutine snapshot: %v", err)
		}
	}
	return goleak.IgnoreCurrent()
}
