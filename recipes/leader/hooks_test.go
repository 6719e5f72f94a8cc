package leader_test

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"testing"

	"github.com/gocurator/curator/framework"
	"github.com/gocurator/curator/listener"
	"github.com/gocurator/curator/observe"
	"github.com/gocurator/curator/recipes/leader"
	"github.com/gocurator/curator/recipestest"
	"github.com/gocurator/curator/zkharness"
)

// hookRecorder is a LeaderHook that keeps what it hears, in order.
type hookRecorder struct {
	mu     sync.Mutex
	events []any // observe.TermStart and observe.TermEnd
}

func (r *hookRecorder) OnTermStart(e observe.TermStart) { r.add(e) }
func (r *hookRecorder) OnTermEnd(e observe.TermEnd)     { r.add(e) }

func (r *hookRecorder) add(e any) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.events = append(r.events, e)
}

// await waits until the recorder has heard n events and returns them.
func (r *hookRecorder) await(t *testing.T, n int) []any {
	t.Helper()
	var got []any
	recipestest.Eventually(t, fmt.Sprintf("%d term events", n), func() (bool, string) {
		r.mu.Lock()
		defer r.mu.Unlock()
		got = append([]any(nil), r.events...)
		return len(got) >= n, fmt.Sprintf("%+v", got)
	})
	return got
}

// hookedParticipant starts a latch or a selector (whose function runs
// until its term ends) on c, labelled "jobs", and returns its Close and a
// wait for its next term.
func hookedParticipant(t *testing.T, kind string, c *framework.Client, id string) (closeFn func() error, await func() *leader.Leadership) {
	t.Helper()
	opts := []leader.Option{leader.WithID(id), leader.WithLabel("jobs")}
	switch kind {
	case "latch":
		l, err := leader.NewLatch(c, "/election", opts...)
		if err != nil {
			t.Fatal(err)
		}
		if err := l.Start(context.Background()); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { _ = l.Close() })
		return l.Close, func() *leader.Leadership {
			term, err := l.Await(ctxT(t))
			if err != nil {
				t.Fatal(err)
			}
			return term
		}
	default:
		led := make(chan *leader.Leadership, 1)
		s, err := leader.NewSelector(c, "/election", func(ctx context.Context, l *leader.Leadership) error {
			led <- l
			<-ctx.Done()
			return nil
		}, opts...)
		if err != nil {
			t.Fatal(err)
		}
		if err := s.Start(context.Background()); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { _ = s.Close() })
		return s.Close, func() *leader.Leadership {
			select {
			case term := <-led:
				return term
			case <-ctxT(t).Done():
				t.Fatal("the selector did not lead")
				return nil
			}
		}
	}
}

// TestHooksHearTermsChangeHands: a participant's clean Close ends its term
// with a nil cause, and the next participant's term starts after it, with
// the gap it saw the election without a leader; the events carry the
// recipe, the label, the election's path and the ids.
func TestHooksHearTermsChangeHands(t *testing.T) {
	for _, kind := range []string{"latch", "selector"} {
		t.Run(kind, func(t *testing.T) {
			ns := recipestest.Namespace(t)
			rec := &hookRecorder{}
			cs := clients(t, 2, framework.WithNamespace(ns), framework.WithHooks(rec))
			closeA, awaitA := hookedParticipant(t, kind, cs[0], "a")
			awaitA()
			_, awaitB := hookedParticipant(t, kind, cs[1], "b")
			recipestest.Eventually(t, "b's node", func() (bool, string) {
				kids, _, err := cs[1].Children(ctxT(t), "/election")
				return err == nil && len(kids) == 2, fmt.Sprint(kids, err)
			})
			if err := closeA(); err != nil {
				t.Fatal(err)
			}
			awaitB()
			evs := rec.await(t, 3)
			startA, ok1 := evs[0].(observe.TermStart)
			endA, ok2 := evs[1].(observe.TermEnd)
			startB, ok3 := evs[2].(observe.TermStart)
			if !ok1 || !ok2 || !ok3 || len(evs) != 3 {
				t.Fatalf("events %+v, want a's start and end, then b's start", evs)
			}
			for _, e := range []struct{ recipe, label, path, id, want string }{
				{startA.Recipe, startA.Label, startA.Path, startA.ID, "a"},
				{endA.Recipe, endA.Label, endA.Path, endA.ID, "a"},
				{startB.Recipe, startB.Label, startB.Path, startB.ID, "b"},
			} {
				if e.recipe != kind || e.label != "jobs" || e.path != "/election" || e.id != e.want {
					t.Fatalf("event for %s says %s %q %s %q", e.want, e.recipe, e.label, e.path, e.id)
				}
			}
			if startA.Gap != 0 {
				t.Errorf("the first term's gap is %v, want 0 (no term ended before it)", startA.Gap)
			}
			if endA.Cause != nil || endA.Length <= 0 || !endA.Time.After(startA.Time) {
				t.Errorf("a's clean Close: cause %v, length %v", endA.Cause, endA.Length)
			}
			if startB.Gap <= 0 || startB.Time.Before(endA.Time) || startB.Gap > startB.Time.Sub(endA.Time) {
				t.Errorf("b's term starts at %v with gap %v; a's ended at %v: want a gap within the span between them",
					startB.Time, startB.Gap, endA.Time)
			}
		})
	}
}

// TestHooksAndErrorsOnALoss: a term lost to a session expiry (the Session
// error policy: the term lasts through the disconnect and ends once the
// client learns its session is gone) and one lost to a suspended
// connection (the Standard policy) end with a cause errors.Is matches with
// ErrLost and the framework's sentinel, read as one sentence with the
// cause first, and the hooks hear it.
func TestHooksAndErrorsOnALoss(t *testing.T) {
	cases := []struct {
		name, text string
		policy     listener.ErrorPolicy
		sentinel   error
	}{
		{"expired", "leadership lost: session expired", listener.SessionErrorPolicy{}, framework.ErrSessionExpired},
		{"suspended", "leadership lost: connection suspended", listener.StandardErrorPolicy{}, framework.ErrConnectionLoss},
	}
	for _, kind := range []string{"latch", "selector"} {
		for _, tc := range cases {
			t.Run(kind+"/"+tc.name, func(t *testing.T) {
				t.Parallel()
				ns := recipestest.Namespace(t)
				rec := &hookRecorder{}
				proxy := recipestest.StartProxy(t, server.Addr())
				killer := zkharness.NewSessionKiller()
				c := recipestest.NewClient(t, proxy.Addr(), framework.WithNamespace(ns), framework.WithHooks(rec),
					framework.WithErrorPolicy(tc.policy), framework.WithDialer(killer.Dialer(nil)))
				_, await := hookedParticipant(t, kind, c, "a")
				term := await()
				_, changed := c.StateChanged()
				proxy.Blackhole(true) // the reconnection waits unserved
				proxy.DropAll()
				<-changed // Suspended
				if tc.policy == (listener.SessionErrorPolicy{}) {
					if err := term.Err(); err != nil {
						t.Fatalf("the term ended at a disconnect under the Session policy: %v", err)
					}
					if err := killer.KillAt(ctxT(t), server.Addr()); err != nil {
						t.Fatal(err)
					}
				}
				proxy.Blackhole(false)
				select {
				case <-term.Done():
				case <-ctxT(t).Done():
					t.Fatal("the term did not end")
				}
				err := term.Err()
				if !errors.Is(err, leader.ErrLost) || !errors.Is(err, tc.sentinel) || err.Error() != tc.text {
					t.Errorf("term ended with %q, want %q (errors.Is ErrLost and %v)", err, tc.text, tc.sentinel)
				}
				if cause := context.Cause(term.Context()); cause != err {
					t.Errorf("the term's context's cause %v, want its Err %v", cause, err)
				}
				evs := rec.await(t, 2)
				end, ok := evs[1].(observe.TermEnd)
				if !ok || !errors.Is(end.Cause, leader.ErrLost) || !errors.Is(end.Cause, tc.sentinel) || end.Length <= 0 {
					t.Fatalf("events %+v, want the term's end with its loss", evs)
				}
			})
		}
	}
}

// TestHooksHearASelectorsFunctionEnd: a term whose function fails ends
// with the failure behind ErrResigned, one whose function returns with
// ErrResigned, and one interrupted with ErrInterrupted.
func TestHooksHearASelectorsFunctionEnd(t *testing.T) {
	ns := recipestest.Namespace(t)
	rec := &hookRecorder{}
	c := recipestest.NewClient(t, server.ConnectString(), framework.WithNamespace(ns), framework.WithHooks(rec))
	boom := errors.New("boom")
	var s *leader.Selector
	terms := 0
	s, err := leader.NewSelector(c, "/election", func(ctx context.Context, l *leader.Leadership) error {
		terms++
		switch terms {
		case 1:
			return boom
		case 2:
			return nil
		}
		s.InterruptLeadership()
		<-ctx.Done()
		return nil
	}, leader.WithAutoRequeue())
	if err != nil {
		t.Fatal(err)
	}
	if err := s.Start(context.Background()); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = s.Close() })
	evs := rec.await(t, 6)
	var causes []error
	for _, e := range evs {
		if end, ok := e.(observe.TermEnd); ok && len(causes) < 3 {
			causes = append(causes, end.Cause)
		}
	}
	if len(causes) != 3 ||
		!errors.Is(causes[0], leader.ErrResigned) || !errors.Is(causes[0], boom) || causes[0].Error() != "leadership function returned: boom" ||
		causes[1] != leader.ErrResigned || causes[2] != leader.ErrInterrupted {
		t.Fatalf("term ends %v, want the failure, the return and the interrupt", causes)
	}
}
