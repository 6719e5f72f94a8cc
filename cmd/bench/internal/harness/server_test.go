package harness

import (
	"context"
	"testing"
	"time"

	"github.com/gocurator/curator/zkharness"
)

// serverEnv starts a throwaway server for tb, closed when tb ends, and
// returns the env of a workload that runs on it for duration.
func serverEnv(tb testing.TB, duration time.Duration) env {
	tb.Helper()
	srv, err := zkharness.NewServer()
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { srv.Close() })
	addr := srv.ConnectString()
	return env{addr: addr, duration: duration, received: func() int64 {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		n, _ := zkharness.Received(ctx, addr)
		return n
	}}
}
