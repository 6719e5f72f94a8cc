package queue_test

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sync"
	"testing"

	"github.com/gocurator/curator/framework"
	"github.com/gocurator/curator/recipestest"
	"github.com/gocurator/curator/zkharness"
)

// server is the package's shared ZooKeeper; each test works in a namespace
// of its own.
var server *zkharness.Server

func TestMain(m *testing.M) { recipestest.RunWithServer(m, &server) }

// clients starts n clients, each with its own session, in one namespace.
func clients(t testing.TB, n int, opts ...framework.Option) []*framework.Client {
	t.Helper()
	return recipestest.Clients(t, server.ConnectString(), n, opts...)
}

// ctxT bounds a test's calls (see recipestest.Context).
func ctxT(t testing.TB) context.Context { return recipestest.Context(t) }

// children lists a node's children, nil if the node is gone.
func children(t testing.TB, c *framework.Client, path string) []string {
	t.Helper()
	kids, _, err := c.Children(ctxT(t), path)
	if err != nil && !errors.Is(err, framework.ErrNoNode) {
		t.Fatal(err)
	}
	slices.Sort(kids)
	return kids
}

// record collects what consumers were given, in order, and lets a test
// wait for a count.
type record[T comparable] struct {
	mu      sync.Mutex
	items   []T
	changed chan struct{}
}

func newRecord[T comparable]() *record[T] { return &record[T]{changed: make(chan struct{})} }

func (r *record[T]) add(v T) {
	r.mu.Lock()
	r.items = append(r.items, v)
	close(r.changed)
	r.changed = make(chan struct{})
	r.mu.Unlock()
}

func (r *record[T]) got() []T {
	r.mu.Lock()
	defer r.mu.Unlock()
	return slices.Clone(r.items)
}

// wait waits until at least n items were recorded.
func (r *record[T]) wait(t testing.TB, n int) []T {
	t.Helper()
	return r.waitFor(t, fmt.Sprintf("%d items", n), func(items []T) bool { return len(items) >= n })
}

// waitFor waits until done holds for the items recorded.
func (r *record[T]) waitFor(t testing.TB, what string, done func([]T) bool) []T {
	t.Helper()
	ctx := ctxT(t)
	for {
		r.mu.Lock()
		items, ch := slices.Clone(r.items), r.changed
		r.mu.Unlock()
		if done(items) {
			return items
		}
		select {
		case <-ch:
		case <-ctx.Done():
			t.Fatalf("no %s after a minute; %d recorded: %v", what, len(items), items)
		}
	}
}

// counts returns how many times each item was recorded.
func (r *record[T]) counts() map[T]int {
	m := make(map[T]int)
	for _, v := range r.got() {
		m[v]++
	}
	return m
}
