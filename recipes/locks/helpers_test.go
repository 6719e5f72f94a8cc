package locks_test

import (
	"context"
	"errors"
	"sync/atomic"
	"testing"
	"time"

	"github.com/gocurator/curator/framework"
	"github.com/gocurator/curator/recipes/locks"
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

type atomicCounter struct{ n atomic.Int64 }

func (c *atomicCounter) add() { c.n.Add(1) }

func isLost(err error) bool { return errors.Is(err, locks.ErrLockLost) }

// holdLock acquires the mutex at /lock on c, or fails the test.
func holdLock(ctx context.Context, t testing.TB, c *framework.Client) *locks.Hold {
	t.Helper()
	m, _ := locks.NewMutex(c, "/lock")
	h, err := m.Acquire(ctx)
	if err != nil {
		t.Fatal(err)
	}
	return h
}

// acquireRetrying acquires, trying again after errors a failover causes
// (the retry policy can run out while the ensemble elects a leader).
func acquireRetrying(ctx context.Context, m *locks.Mutex) (*locks.Hold, error) {
	for {
		h, err := m.Acquire(ctx)
		if err == nil || ctx.Err() != nil || !errors.Is(err, framework.ErrConnectionLoss) && !errors.Is(err, framework.ErrSessionExpired) {
			return h, err
		}
	}
}

// waitNoChildren polls until path has no children (the client's background
// deletes run on their own schedule).
func waitNoChildren(t testing.TB, c *framework.Client, path string) {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for {
		kids, _, err := c.Children(ctxT(t), path)
		if isNoNode(err) || err == nil && len(kids) == 0 {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("%s still has children %v (%v)", path, kids, err)
		}
		time.Sleep(20 * time.Millisecond)
	}
}
