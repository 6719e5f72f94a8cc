package leader_test

import (
	"context"
	"fmt"
	"sync"
	"testing"

	"github.com/gocurator/curator/framework"
	"github.com/gocurator/curator/recipes/leader"
	"github.com/gocurator/curator/recipestest"
	"github.com/gocurator/curator/zkharness"
)

// TestHundredLatchesOneLeaderNoHerd: 100 latches elect exactly one leader,
// and each change of leader wakes exactly one participant: the next in line
// (counted on the wire, over every participant that stays).
func TestHundredLatchesOneLeaderNoHerd(t *testing.T) {
	const n, changes = 100, 5
	ns := recipestest.Namespace(t)
	counters := make([]*zkharness.Counter, n)
	latches := make([]*leader.Latch, n)
	clients := make([]*framework.Client, n)
	var (
		mu      sync.Mutex
		overlap string // a term that began while another was live
		began   []int  // the latches whose terms began, in order
	)
	for i := range latches {
		counters[i] = zkharness.NewCounter()
		c := recipestest.NewClient(t, server.ConnectString(), framework.WithNamespace(ns), framework.WithDialer(counters[i].Dialer(nil)))
		clients[i] = c
		l, err := leader.NewLatch(c, "/election", leader.WithID(fmt.Sprint(i)))
		if err != nil {
			t.Fatal(err)
		}
		latches[i] = l
		if _, err := l.AddListener(func(ev leader.Event) {
			if !ev.Leader {
				return
			}
			mu.Lock()
			defer mu.Unlock()
			began = append(began, i)
			for j, other := range latches {
				if j != i && other != nil && other.Leadership() != nil {
					overlap = fmt.Sprintf("latch %d began a term while latch %d led", i, j)
				}
			}
		}); err != nil {
			t.Fatal(err)
		}
	}
	for i, l := range latches {
		if err := l.Start(context.Background()); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { _ = l.Close() })
		recipestest.Eventually(t, fmt.Sprintf("latch %d's node", i), func() (bool, string) {
			kids, _, err := clients[i].Children(ctxT(t), "/election")
			return err == nil && len(kids) == i+1, fmt.Sprint(len(kids), err)
		})
	}

	// notifications counts what the participants from `from` on have been
	// sent so far: a request's reply comes after the notifications the
	// server sent that client before it.
	notifications := func(from int) int64 {
		var sum int64
		for i := from; i < n; i++ {
			if _, _, err := clients[i].Exists(ctxT(t), "/"); err != nil {
				t.Fatal(err)
			}
			sum += counters[i].Notifications()
		}
		return sum
	}
	for k := range changes {
		before := notifications(k + 1)
		if err := latches[k].Close(); err != nil {
			t.Fatal(err)
		}
		term, err := latches[k+1].Await(ctxT(t))
		if err != nil {
			t.Fatal(err)
		}
		leading := 0
		for _, l := range latches[k+1:] {
			if l.HasLeadership() {
				leading++
			}
		}
		if leading != 1 || term.Err() != nil {
			t.Fatalf("change %d: %d latches lead", k+1, leading)
		}
		ps := waitParticipants(t, latches[n-1], n-k-1)
		if got := notifications(k + 1); got-before != 1 {
			t.Fatalf("change %d woke %d participants, want 1", k+1, got-before)
		}
		if ps[0].ID != fmt.Sprint(k+1) {
			t.Fatalf("change %d: leader %q, want %d", k+1, ps[0].ID, k+1)
		}
	}
	mu.Lock()
	defer mu.Unlock()
	if overlap != "" {
		t.Fatal(overlap)
	}
	if fmt.Sprint(began) != "[0 1 2 3 4 5]" {
		t.Fatalf("terms began in order %v, want [0 1 2 3 4 5]", began)
	}
}
