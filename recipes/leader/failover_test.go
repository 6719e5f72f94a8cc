package leader_test

import (
	"context"
	"errors"
	"fmt"
	"testing"

	"github.com/gocurator/curator/framework"
	"github.com/gocurator/curator/recipes/leader"
	"github.com/gocurator/curator/recipes/locks"
	"github.com/gocurator/curator/recipestest"
	"github.com/gocurator/curator/zkharness"
)

// floorMember is a participant of TestFailoverAtTheProtocolFloor, in a
// session of its own whose traffic is counted.
type floorMember struct {
	client *framework.Client
	cnt    *zkharness.Counter
	await  func() *leader.Leadership // waits until it leads
}

// joinFloorMember starts a latch or a selector in a counted session.
func joinFloorMember(t *testing.T, kind, ns string, i int) *floorMember {
	t.Helper()
	cnt := zkharness.NewCounter()
	c := recipestest.NewClient(t, server.ConnectString(), framework.WithNamespace(ns), framework.WithDialer(cnt.Dialer(nil)))
	m := &floorMember{client: c, cnt: cnt}
	id := leader.WithID(fmt.Sprint(i))
	switch kind {
	case "latch":
		l, err := leader.NewLatch(c, "/election", id)
		if err != nil {
			t.Fatal(err)
		}
		if err := l.Start(context.Background()); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { _ = l.Close() })
		m.await = func() *leader.Leadership {
			term, err := l.Await(ctxT(t))
			if err != nil {
				t.Fatal(err)
			}
			return term
		}
	case "selector":
		led := make(chan *leader.Leadership, 1)
		s, err := leader.NewSelector(c, "/election", func(ctx context.Context, l *leader.Leadership) error {
			led <- l
			<-ctx.Done()
			return nil
		}, id)
		if err != nil {
			t.Fatal(err)
		}
		if err := s.Start(context.Background()); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { _ = s.Close() })
		m.await = func() *leader.Leadership {
			select {
			case term := <-led:
				return term
			case <-ctxT(t).Done():
				t.Fatal("the selector did not lead")
				return nil
			}
		}
	}
	return m
}

// TestFailoverAtTheProtocolFloor: a change of leader, when the leader's
// process goes away (its session closes), costs what the protocol's floor
// costs: two requests (the old leader's closeSession and the next leader's
// listing) and one notification to the participants that stay (the next
// leader's, on its predecessor's watch). The leader's own node is watched
// from its creation, not when it starts to lead: the one notification the
// closing session is sent is that watch, the price of the protection the
// end of the test checks (a leader whose node someone else deletes learns
// it at once).
func TestFailoverAtTheProtocolFloor(t *testing.T) {
	const n = 4 // 3 changes
	for _, kind := range []string{"latch", "selector"} {
		t.Run(kind, func(t *testing.T) {
			ns := recipestest.Namespace(t)
			admin := recipestest.NewClient(t, server.ConnectString(), framework.WithNamespace(ns))
			ms := make([]*floorMember, n)
			for i := range ms {
				ms[i] = joinFloorMember(t, kind, ns, i)
				recipestest.Eventually(t, fmt.Sprintf("participant %d's node", i), func() (bool, string) {
					kids, _, err := admin.Children(ctxT(t), "/election")
					return err == nil && len(kids) == i+1, fmt.Sprint(kids, err)
				})
			}
			term := ms[0].await()
			// sync reads every live member's counters once the server has
			// answered a request sent after the traffic so far: a reply
			// comes after the notifications sent to that session before it.
			// Its own requests are counted: one a member.
			sync := func(from int) (reqs, notifs int64) {
				for _, m := range ms[from:] {
					if _, _, err := m.client.Exists(ctxT(t), "/"); err != nil {
						t.Fatal(err)
					}
					reqs += m.cnt.Requests()
					notifs += m.cnt.Notifications()
				}
				return reqs, notifs
			}
			for k := 0; k+1 < n; k++ {
				reqs0, notifs0 := sync(k + 1)
				oldReqs, oldNotifs := ms[k].cnt.Requests(), ms[k].cnt.Notifications()
				ms[k].client.Close() // the leader's process goes: its session closes, not its recipe
				next := ms[k+1].await()
				if next.Node() == term.Node() {
					t.Fatalf("change %d: the old term's node %s leads again", k+1, next.Node())
				}
				term = next
				reqs, notifs := sync(k + 1)
				reqs += ms[k].cnt.Requests() - oldReqs - int64(n-k-1) // less sync's own
				closing := ms[k].cnt.Notifications() - oldNotifs
				t.Logf("change %d: %d requests, %d notifications to the participants that stay, %d to the closing one", k+1, reqs-reqs0, notifs-notifs0, closing)
				if reqs-reqs0 != 2 || notifs-notifs0 != 1 {
					t.Errorf("change %d: %d requests and %d notifications to the participants that stay, want 2 and 1 (the floor's)", k+1, reqs-reqs0, notifs-notifs0)
				}
				if closing > 1 {
					t.Errorf("change %d: the closing leader was sent %d notifications, want at most its own node's watch", k+1, closing)
				}
			}

			// The protection the watch from creation gives: someone else
			// deletes the leader's node, and its term ends.
			if err := admin.Delete(ctxT(t), term.Node()); err != nil {
				t.Fatal(err)
			}
			select {
			case <-term.Done():
			case <-ctxT(t).Done():
				t.Fatal("the leader did not see its node deleted")
			}
			if err := term.Err(); !errors.Is(err, leader.ErrLost) || !errors.Is(err, locks.ErrLockLost) {
				t.Fatalf("term ended with %v, want a loss of its deleted node", err)
			}
		})
	}
}
