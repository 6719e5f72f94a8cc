package leader_test

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/gocurator/curator/recipes/leader"
	"github.com/gocurator/curator/recipestest"
)

// startLatches starts one latch per client at /election, with ids p0, p1...
// in that order, each joining after the one before has its node.
func startLatches(t *testing.T, n int, opts ...leader.Option) []*leader.Latch {
	t.Helper()
	cs := clients(t, n)
	ls := make([]*leader.Latch, n)
	for i, c := range cs {
		l, err := leader.NewLatch(c, "/election", append([]leader.Option{leader.WithID(fmt.Sprintf("p%d", i))}, opts...)...)
		if err != nil {
			t.Fatal(err)
		}
		if err := l.Start(); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { _ = l.Close() })
		ls[i] = l
		waitParticipants(t, l, i+1)
	}
	return ls
}

func waitParticipants(t *testing.T, l interface {
	Participants(ctx context.Context) ([]leader.Participant, error)
}, n int) []leader.Participant {
	t.Helper()
	var ps []leader.Participant
	recipestest.Eventually(t, fmt.Sprintf("%d participants", n), func() (bool, string) {
		var err error
		ps, err = l.Participants(ctxT(t))
		return err == nil && len(ps) == n, fmt.Sprint(ps, err)
	})
	return ps
}

func ids(ps []leader.Participant) string {
	var s []string
	for _, p := range ps {
		id := p.ID
		if p.IsLeader {
			id += "*"
		}
		s = append(s, id)
	}
	return strings.Join(s, " ")
}

func TestLatchElectsInJoinOrder(t *testing.T) {
	ls := startLatches(t, 3)
	first, err := ls[0].Await(ctxT(t))
	if err != nil {
		t.Fatal(err)
	}
	if got := ids(waitParticipants(t, ls[2], 3)); got != "p0* p1 p2" {
		t.Fatalf("participants %q, want p0* p1 p2", got)
	}
	for i, l := range ls[1:] {
		if l.HasLeadership() {
			t.Fatalf("latch p%d leads beside p0", i+1)
		}
	}
	if err := ls[0].Close(); err != nil {
		t.Fatal(err)
	}
	if !errors.Is(first.Err(), leader.ErrClosed) {
		t.Fatalf("closed term's Err = %v, want ErrClosed", first.Err())
	}
	select {
	case <-first.Done():
	default:
		t.Fatal("Done not closed after Close")
	}
	second, err := ls[1].Await(ctxT(t))
	if err != nil {
		t.Fatal(err)
	}
	if ls[2].HasLeadership() {
		t.Fatal("p2 leads beside p1")
	}
	p, err := ls[2].Leader(ctxT(t))
	if err != nil || p.ID != "p1" || !p.IsLeader || p.Node != second.Node() {
		t.Fatalf("Leader = %+v, %v; want p1 at %s", p, err, second.Node())
	}
	if got := ids(waitParticipants(t, ls[2], 2)); got != "p1* p2" {
		t.Fatalf("participants %q, want p1* p2", got)
	}
	if err := ls[0].Close(); !errors.Is(err, leader.ErrClosed) {
		t.Fatalf("second Close = %v, want ErrClosed", err)
	}
	if _, err := ls[0].Await(ctxT(t)); !errors.Is(err, leader.ErrClosed) {
		t.Fatalf("Await after Close = %v, want ErrClosed", err)
	}
	if slices.Contains([]bool{ls[0].HasLeadership()}, true) {
		t.Fatal("closed latch leads")
	}
}
