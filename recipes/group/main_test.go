package group_test

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/gocurator/curator/framework"
	"github.com/gocurator/curator/recipes/group"
	"github.com/gocurator/curator/recipestest"
	"github.com/gocurator/curator/zkharness"
)

// server is the package's shared ZooKeeper; each test works in a namespace
// of its own.
var server *zkharness.Server

func TestMain(m *testing.M) { recipestest.RunWithServer(m, &server) }

// clients starts n clients, each with its own session, in namespace ns on
// connect.
func clients(t testing.TB, connect, ns string, n int) []*framework.Client {
	t.Helper()
	cs := make([]*framework.Client, n)
	for i := range cs {
		cs[i] = recipestest.NewClient(t, connect, framework.WithNamespace(ns))
	}
	return cs
}

// ctxT bounds a test's calls so that a bug fails the test instead of
// hanging it; it is not a speed assertion.
func ctxT(t testing.TB) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	t.Cleanup(cancel)
	return ctx
}

// member returns an unstarted member of the group at /group.
func member(t testing.TB, c *framework.Client, id, data string) *group.Member {
	t.Helper()
	m, err := group.New(c, "/group", id, []byte(data))
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// start starts m for the test and closes it when the test ends.
func start(t testing.TB, m *group.Member) *group.Member {
	t.Helper()
	if err := m.Start(context.Background()); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { m.Close() })
	return m
}

// show writes a membership as "id=data ...", sorted by id.
func show(members map[string][]byte) string {
	var parts []string
	for _, id := range slices.Sorted(maps.Keys(members)) {
		parts = append(parts, id+"="+string(members[id]))
	}
	return strings.Join(parts, " ")
}

// sees waits until m's view is want.
func sees(t testing.TB, m *group.Member, want string) {
	t.Helper()
	recipestest.Eventually(t, fmt.Sprintf("%s to see %q", m.ID(), want), func() (bool, string) {
		got := show(m.Members())
		return got == want, got
	})
}

// log keeps the events a member's listener heard, as "Type id=data".
type log struct {
	mu     sync.Mutex
	events []string
}

func listen(t testing.TB, m *group.Member) *log {
	t.Helper()
	l := &log{}
	if _, err := m.AddListener(func(ev group.Event) {
		l.mu.Lock()
		defer l.mu.Unlock()
		if ev.Type == group.Initialized {
			l.events = append(l.events, "Initialized")
			return
		}
		l.events = append(l.events, fmt.Sprintf("%v %s=%s", ev.Type, ev.ID, ev.Data))
	}); err != nil {
		t.Fatal(err)
	}
	return l
}

// all returns the events heard so far.
func (l *log) all() []string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return slices.Clone(l.events)
}

// inOrder reports whether want appear among got in this order.
func inOrder(got, want []string) bool {
	i := 0
	for _, g := range got {
		if i < len(want) && g == want[i] {
			i++
		}
	}
	return i == len(want)
}
