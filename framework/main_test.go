package framework_test

import (
	"context"
	"fmt"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/gocurator/curator/framework"
	"github.com/gocurator/curator/listener"
	"github.com/gocurator/curator/recipestest"
	"github.com/gocurator/curator/zkharness"
)

// server is the package's shared ZooKeeper; tests isolate themselves with a
// namespace each.
var server *zkharness.Server

func TestMain(m *testing.M) { recipestest.RunWithServer(m, &server) }

// newClient starts a client on the shared server in a fresh namespace and
// waits until it is connected.
func newClient(t testing.TB, opts ...framework.Option) *framework.Client {
	t.Helper()
	return newClientAt(t, server.ConnectString(), append([]framework.Option{framework.WithNamespace(recipestest.Namespace(t))}, opts...)...)
}

func newClientAt(t testing.TB, connect string, opts ...framework.Option) *framework.Client {
	t.Helper()
	c, _ := startClient(t, connect, opts...)
	return c
}

// startClient starts a client that records its connection states from the
// start, and waits until it is connected.
func startClient(t testing.TB, connect string, opts ...framework.Option) (*framework.Client, *stateLog) {
	t.Helper()
	c, err := framework.New(connect, append(recipestest.ClientOptions(), opts...)...)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	log := watchStates(t, c)
	if err := c.Start(context.Background()); err != nil {
		t.Fatal(err)
	}
	log.waitLast(t, listener.Connected)
	return c, log
}

// stateLog records the states a client reports, and lets a test wait for one.
type stateLog struct {
	mu     sync.Mutex
	states []listener.ConnectionState
	cond   chan struct{} // closed and replaced on every state
}

func watchStates(t testing.TB, c *framework.Client) *stateLog {
	t.Helper()
	l := &stateLog{cond: make(chan struct{})}
	remove, err := c.AddConnectionStateListener(func(s listener.ConnectionState) {
		l.mu.Lock()
		l.states = append(l.states, s)
		close(l.cond)
		l.cond = make(chan struct{})
		l.mu.Unlock()
	})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(remove)
	return l
}

// expect waits until the log holds len(want) states and fails unless they
// are want.
func (l *stateLog) expect(t testing.TB, want ...listener.ConnectionState) {
	t.Helper()
	l.wait(t, fmt.Sprint(want), func(got []listener.ConnectionState) bool { return len(got) >= len(want) })
	if got := l.snapshot(); !slices.Equal(got, want) {
		t.Fatalf("states %v, want %v", got, want)
	}
}

// waitLast waits until the last state logged is s.
func (l *stateLog) waitLast(t testing.TB, s listener.ConnectionState) {
	t.Helper()
	l.wait(t, "last "+s.String(), func(got []listener.ConnectionState) bool { return len(got) > 0 && got[len(got)-1] == s })
}

// wait waits until done(states) holds; 60 s bounds a hung test, not a speed.
func (l *stateLog) wait(t testing.TB, what string, done func([]listener.ConnectionState) bool) {
	t.Helper()
	deadline := time.After(60 * time.Second)
	for {
		l.mu.Lock()
		got := append([]listener.ConnectionState(nil), l.states...)
		cond := l.cond
		l.mu.Unlock()
		if done(got) {
			return
		}
		select {
		case <-cond:
		case <-deadline:
			t.Fatalf("timed out waiting for %s; saw %v", what, got)
		}
	}
}

func (l *stateLog) snapshot() []listener.ConnectionState {
	l.mu.Lock()
	defer l.mu.Unlock()
	return append([]listener.ConnectionState(nil), l.states...)
}

// ctxT bounds a test's calls (see recipestest.Context).
func ctxT(t testing.TB) context.Context { return recipestest.Context(t) }

// waitNoChildren polls until path has no children: the client's background
// janitor works on its own schedule, with no event of ours to wait on.
func waitNoChildren(t testing.TB, observer *framework.Client, path string) {
	t.Helper()
	recipestest.Eventually(t, "no children of "+path, func() (bool, string) {
		kids, _, err := observer.Children(ctxT(t), path)
		return err == nil && len(kids) == 0, fmt.Sprint(kids, err)
	})
}
