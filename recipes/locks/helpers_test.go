package locks_test

import (
	"context"
	"errors"
	"fmt"
	"sync/atomic"
	"testing"

	"github.com/gocurator/curator/framework"
	"github.com/gocurator/curator/recipes/locks"
	"github.com/gocurator/curator/recipestest"
)

type participants interface {
	Participants(ctx context.Context) ([]string, error)
}

// waitParticipants polls until the lock has n nodes: a waiter's node shows
// up on the server, with no event of ours to wait on.
func waitParticipants(t testing.TB, l participants, n int) {
	t.Helper()
	recipestest.Eventually(t, fmt.Sprintf("%d participants", n), func() (bool, string) {
		p, err := l.Participants(ctxT(t))
		return err == nil && len(p) == n, fmt.Sprint(p, err)
	})
}

// waitGone polls until path is gone (the container reaper runs on its own
// schedule).
func waitGone(t testing.TB, c *framework.Client, path string) {
	t.Helper()
	recipestest.Eventually(t, path+" gone", func() (bool, string) {
		ok, _, err := c.Exists(ctxT(t), path)
		return err == nil && !ok, fmt.Sprint("exists ", ok, err)
	})
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
	recipestest.Eventually(t, "no children of "+path, func() (bool, string) {
		kids, _, err := c.Children(ctxT(t), path)
		return isNoNode(err) || err == nil && len(kids) == 0, fmt.Sprint(kids, err)
	})
}
