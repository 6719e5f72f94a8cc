package leader_test

import (
	"context"
	"errors"
	"testing"

	"github.com/gocurator/curator/framework"
	"github.com/gocurator/curator/recipes/leader"
)

// Nodes whose names are not a participant's (the lock name and a sequence
// number) neither lead nor block an election, though Curator sorts these
// first: a latch and a selector lead at once, Leader and Participants leave
// them out, and Observe reports the real leader, or none while only they
// are left.
func TestCraftedNodesNeitherLeadNorBlock(t *testing.T) {
	cs := clients(t, 1)
	c := cs[0]
	ctx := ctxT(t)
	for _, dir := range []string{"/latch", "/selector"} {
		for _, n := range []string{"x-latch-", "x-lock-", "x-lock--1", "!"} {
			if _, err := c.Create(ctx, dir+"/"+n, []byte("evil"), framework.WithParents()); err != nil {
				t.Fatal(err)
			}
		}
	}
	obs, cancel := context.WithCancel(ctx)
	defer cancel()
	seen, err := leader.Observe(obs, c, "/selector")
	if err != nil {
		t.Fatal(err)
	}
	if p := <-seen; p.Node != "" {
		t.Fatalf("Observe with only crafted nodes reported %+v, want no leader", p)
	}

	l, err := leader.NewLatch(c, "/latch", leader.WithID("L"))
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	if err := l.Start(ctx); err != nil {
		t.Fatal(err)
	}
	if _, err := l.Await(ctx); err != nil {
		t.Fatalf("the latch with crafted nodes ahead: %v, want it leading", err)
	}
	if p, err := l.Leader(ctx); err != nil || p.ID != "L" {
		t.Errorf("the latch's Leader: %+v, %v; want L", p, err)
	}
	if ps, err := l.Participants(ctx); err != nil || len(ps) != 1 || ps[0].ID != "L" || !ps[0].IsLeader {
		t.Errorf("the latch's Participants: %+v, %v; want L alone, leading", ps, err)
	}

	leading := make(chan struct{})
	s, err := leader.NewSelector(c, "/selector", func(ctx context.Context, _ *leader.Leadership) error {
		close(leading)
		<-ctx.Done()
		return nil
	}, leader.WithID("S"))
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if err := s.Start(ctx); err != nil {
		t.Fatal(err)
	}
	select {
	case <-leading:
	case <-ctx.Done():
		t.Fatal("the selector with crafted nodes ahead never led")
	}
	for p := range seen {
		if p.Node != "" {
			if p.ID != "S" {
				t.Errorf("Observe reported %+v, want S", p)
			}
			break
		}
	}
	if _, err := s.Leader(ctx); err != nil {
		t.Error(err)
	}
	s.Close()
	l.Close()
	if _, err := l.Leader(ctx); !errors.Is(err, leader.ErrNoLeader) {
		t.Errorf("Leader with only crafted nodes left: %v, want ErrNoLeader", err)
	}
}
