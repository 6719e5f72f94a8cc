package leader_test

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/gocurator/curator/framework"
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
		if err := l.Start(context.Background()); err != nil {
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
	if err := ls[0].Close(); err != nil {
		t.Fatalf("second Close = %v, want nil: Close is idempotent", err)
	}
	if _, err := ls[0].Await(ctxT(t)); !errors.Is(err, leader.ErrClosed) {
		t.Fatalf("Await after Close = %v, want ErrClosed", err)
	}
	if slices.Contains([]bool{ls[0].HasLeadership()}, true) {
		t.Fatal("closed latch leads")
	}
}

// events collects a latch's listener events.
func events(t *testing.T, l *leader.Latch) <-chan leader.Event {
	t.Helper()
	ch := make(chan leader.Event, 16)
	if _, err := l.AddListener(func(ev leader.Event) { ch <- ev }); err != nil {
		t.Fatal(err)
	}
	return ch
}

func nextEvent(t *testing.T, ch <-chan leader.Event) leader.Event {
	t.Helper()
	select {
	case ev := <-ch:
		return ev
	case <-ctxT(t).Done():
		t.Fatal("no listener event")
		return leader.Event{}
	}
}

func TestLatchListenersAndCloseModes(t *testing.T) {
	for _, mode := range []leader.CloseMode{leader.Silent, leader.NotifyLeader} {
		t.Run(fmt.Sprint(mode), func(t *testing.T) {
			cs := clients(t, 1)
			l, err := leader.NewLatch(cs[0], "/election", leader.WithCloseMode(mode))
			if err != nil {
				t.Fatal(err)
			}
			ch := events(t, l)
			if err := l.Start(context.Background()); err != nil {
				t.Fatal(err)
			}
			ev := nextEvent(t, ch)
			if !ev.Leader || ev.Leadership == nil || ev.Leadership.Err() != nil {
				t.Fatalf("first event %+v, want the start of a live term", ev)
			}
			// The session ends: the term ends, and the latch joins again
			// with a new node once the client has a new session.
			if err := cs[0].InjectSessionExpiration(ctxT(t)); err != nil {
				t.Fatal(err)
			}
			ended := nextEvent(t, ch)
			if ended.Leader || ended.Leadership != ev.Leadership || !errors.Is(ended.Leadership.Err(), leader.ErrLost) {
				t.Fatalf("second event %+v (Err %v), want the end of the first term, lost", ended, ended.Leadership.Err())
			}
			again := nextEvent(t, ch)
			if !again.Leader || again.Leadership.Node() == ev.Leadership.Node() {
				t.Fatalf("third event %+v, want a new term on a new node", again)
			}
			if err := l.Close(); err != nil {
				t.Fatal(err)
			}
			select {
			case ev := <-ch:
				if mode == leader.Silent || ev.Leader || ev.Leadership != again.Leadership {
					t.Fatalf("mode %v: event %+v after Close", mode, ev)
				}
			default:
				if mode == leader.NotifyLeader {
					t.Fatal("NotifyLeader: no event after Close")
				}
			}
			if !errors.Is(again.Leadership.Err(), leader.ErrClosed) {
				t.Fatalf("closed term's Err = %v", again.Leadership.Err())
			}
			kids, _, err := cs[0].Children(ctxT(t), "/election")
			if err != nil && !errors.Is(err, framework.ErrNoNode) || len(kids) != 0 {
				t.Fatalf("after Close the election has %v, %v", kids, err)
			}
		})
	}
}

// TestAwaitAfterTheClientClosed: once the client closes under a latch, no
// term can come: Await returns ErrClosed (and framework.ErrClosed) at once.
func TestAwaitAfterTheClientClosed(t *testing.T) {
	cs := clients(t, 2)
	ls := make([]*leader.Latch, 2)
	for i, c := range cs {
		l, err := leader.NewLatch(c, "/election")
		if err != nil {
			t.Fatal(err)
		}
		if err := l.Start(context.Background()); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { _ = l.Close() })
		ls[i] = l
		waitParticipants(t, l, i+1)
	}
	if err := cs[1].Close(); err != nil {
		t.Fatal(err)
	}
	if _, err := ls[1].Await(ctxT(t)); !errors.Is(err, leader.ErrClosed) || !errors.Is(err, framework.ErrClosed) {
		t.Fatalf("Await after the client closed = %v", err)
	}
}
