package recipestest

import (
	"fmt"
	"os"
	"testing"

	"go.uber.org/goleak"
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
func VerifyNone(tb testing.TB, opts ...goleak.Option) {
	tb.Helper()
	goleak.VerifyNone(tb, opts...)
}
