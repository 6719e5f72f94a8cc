package prometheus_test

import (
	"context"
	"fmt"
	"testing"

	"github.com/gocurator/curator/framework"
	"github.com/gocurator/curator/recipes/leader"
	"github.com/gocurator/curator/recipestest"
)

// Two latches hand a term over: the hook hears it from the recipes
// themselves. The first term ends cleanly (cause none) and the second
// starts with a gap; one term is live.
func TestLeaderTermsFromLatches(t *testing.T) {
	m := newMetrics(t)
	ns := recipestest.Namespace(t)
	ctx := recipestest.Context(t)
	var latches []*leader.Latch
	for _, id := range []string{"a", "b"} {
		c := recipestest.NewClient(t, server.ConnectString(), framework.WithNamespace(ns), framework.WithHooks(m.hook))
		l, err := leader.NewLatch(c, "/election", leader.WithID(id), leader.WithLabel("jobs"))
		if err != nil {
			t.Fatal(err)
		}
		if err := l.Start(context.Background()); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { _ = l.Close() })
		latches = append(latches, l)
		recipestest.Eventually(t, id+"'s node", func() (bool, string) {
			kids, _, err := c.Children(ctx, "/election")
			return err == nil && len(kids) == len(latches), fmt.Sprint(kids, err)
		})
	}
	if _, err := latches[0].Await(ctx); err != nil {
		t.Fatal(err)
	}
	if err := latches[0].Close(); err != nil {
		t.Fatal(err)
	}
	if _, err := latches[1].Await(ctx); err != nil {
		t.Fatal(err)
	}
	m.await(t, 1, "gocurator_leader_term_duration_seconds", "cause=none", "label=jobs", "recipe=latch")
	m.await(t, 1, "gocurator_leader_gap_duration_seconds", "label=jobs", "recipe=latch")
	m.await(t, 1, "gocurator_leader_terms", "label=jobs", "recipe=latch")
	m.conventions(t)
}
