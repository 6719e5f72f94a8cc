package locks_test

import (
	"context"
	"testing"
	"time"

	"github.com/gocurator/curator/framework"
)

type participants interface {
	Participants(ctx context.Context) ([]string, error)
}

// waitParticipants polls until the lock has n nodes: a waiter's node shows
// up on the server, with no event of ours to wait on.
func waitParticipants(t testing.TB, l participants, n int) {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for {
		p, err := l.Participants(ctxT(t))
		if err == nil && len(p) == n {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("participants %v (%v), want %d", p, err, n)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// waitGone polls until path is gone (the container reaper runs on its own
// schedule).
func waitGone(t testing.TB, c *framework.Client, path string) {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for {
		ok, _, err := c.Exists(ctxT(t), path)
		if err == nil && !ok {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("%s still exists", path)
		}
		time.Sleep(50 * time.Millisecond)
	}
}
