package leader_test

import (
	"context"
	"fmt"
	"testing"

	"github.com/gocurator/curator/framework"
	"github.com/gocurator/curator/recipes/leader"
	"github.com/gocurator/curator/recipestest"
	"github.com/gocurator/curator/zkharness"
)

func nextLeader(t *testing.T, ch <-chan leader.Participant) leader.Participant {
	t.Helper()
	select {
	case p, ok := <-ch:
		if !ok {
			t.Fatal("observer channel closed")
		}
		return p
	case <-ctxT(t).Done():
		t.Fatal("no leader change observed")
		return leader.Participant{}
	}
}

// TestObserveFollowsLeadersHerdFree: an observer sees no leader, then each
// leader in turn; participants joining behind the leader wake it not at
// all, a change of leader exactly once.
func TestObserveFollowsLeadersHerdFree(t *testing.T) {
	ns := recipestest.Namespace(t)
	latches := make([]*leader.Latch, 3)
	startLatch := func(i int) {
		c := recipestest.NewClient(t, server.ConnectString(), framework.WithNamespace(ns))
		l, err := leader.NewLatch(c, "/election", leader.WithID(fmt.Sprintf("p%d", i)))
		if err != nil {
			t.Fatal(err)
		}
		if err := l.Start(context.Background()); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { _ = l.Close() })
		latches[i] = l
		waitParticipants(t, l, i+1)
	}
	startLatch(0)
	counter := zkharness.NewCounter()
	oc := recipestest.NewClient(t, server.ConnectString(), framework.WithNamespace(ns), framework.WithDialer(counter.Dialer(nil)))
	ctx, cancel := context.WithCancel(ctxT(t))
	ch, err := leader.Observe(ctx, oc, "/election")
	if err != nil {
		t.Fatal(err)
	}
	if p := nextLeader(t, ch); p.ID != "p0" || !p.IsLeader {
		t.Fatalf("observed %+v, want p0", p)
	}
	sync := func() int64 { // replies come after the notifications sent before them
		if _, _, err := oc.Exists(ctxT(t), "/"); err != nil {
			t.Fatal(err)
		}
		return counter.Notifications()
	}
	startLatch(1)
	startLatch(2)
	if n := sync(); n != 0 {
		t.Fatalf("%d notifications for two joins behind the leader, want 0", n)
	}
	if err := latches[0].Close(); err != nil {
		t.Fatal(err)
	}
	term, err := latches[1].Await(ctxT(t))
	if err != nil {
		t.Fatal(err)
	}
	if p := nextLeader(t, ch); p.ID != "p1" || p.Node != term.Node() {
		t.Fatalf("observed %+v, want p1 at %s", p, term.Node())
	}
	if n := sync(); n != 1 {
		t.Fatalf("%d notifications for one change of leader, want 1", n)
	}

	// A receiver that stops reading holds nothing up; it then gets the
	// leaders in order, the latest last, each once.
	if err := latches[1].Close(); err != nil {
		t.Fatal(err)
	}
	if err := latches[2].Close(); err != nil {
		t.Fatal(err)
	}
	for p := nextLeader(t, ch); p != (leader.Participant{}); p = nextLeader(t, ch) {
		if p.ID != "p2" {
			t.Fatalf("observed %+v after p1, want p2 or none", p)
		}
	}
	cancel()
	for range ch { // closed once ctx ends
	}
}

// TestObserveEmptyElection: an election with no participant (its path
// absent) is reported as a zero Participant, then its first leader.
func TestObserveEmptyElection(t *testing.T) {
	cs := clients(t, 2)
	ch, err := leader.Observe(ctxT(t), cs[0], "/election")
	if err != nil {
		t.Fatal(err)
	}
	if p := nextLeader(t, ch); p != (leader.Participant{}) {
		t.Fatalf("first value %+v, want none: the election is empty", p)
	}
	l, err := leader.NewLatch(cs[1], "/election", leader.WithID("first"))
	if err != nil {
		t.Fatal(err)
	}
	if err := l.Start(context.Background()); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = l.Close() })
	if p := nextLeader(t, ch); p.ID != "first" {
		t.Fatalf("observed %+v, want first", p)
	}
}

func TestObserveClosesWithTheClient(t *testing.T) {
	c := clients(t, 1)[0]
	ch, err := leader.Observe(ctxT(t), c, "/election")
	if err != nil {
		t.Fatal(err)
	}
	nextLeader(t, ch)
	if err := c.Close(); err != nil {
		t.Fatal(err)
	}
	for range ch {
	}
}
