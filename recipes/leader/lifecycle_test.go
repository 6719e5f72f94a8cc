package leader_test

import (
	"context"
	"errors"
	"sync/atomic"
	"testing"

	"github.com/gocurator/curator/framework"
	"github.com/gocurator/curator/recipes/leader"
	"github.com/gocurator/curator/recipestest"
	"github.com/gocurator/curator/zkharness"
)

// participant is a Latch or a Selector, as the lifecycle tests drive them.
type participant interface {
	Start(ctx context.Context) error
	Close() error
	HasLeadership() bool
	Participants(ctx context.Context) ([]leader.Participant, error)
}

// lifecycleKinds makes a latch or a selector at /election on c, and a
// function that returns its latest term (nil before the first); the
// selector's function holds its term until the term ends.
var lifecycleKinds = []struct {
	name string
	make func(t *testing.T, c *framework.Client, id string) (participant, func() *leader.Leadership)
}{
	{"latch", func(t *testing.T, c *framework.Client, id string) (participant, func() *leader.Leadership) {
		l, err := leader.NewLatch(c, "/election", leader.WithID(id))
		if err != nil {
			t.Fatal(err)
		}
		var latest atomic.Pointer[leader.Leadership]
		if _, err := l.AddListener(func(ev leader.Event) {
			if ev.Leader {
				latest.Store(ev.Leadership)
			}
		}); err != nil {
			t.Fatal(err)
		}
		return l, latest.Load
	}},
	{"selector", func(t *testing.T, c *framework.Client, id string) (participant, func() *leader.Leadership) {
		var latest atomic.Pointer[leader.Leadership]
		s, err := leader.NewSelector(c, "/election", func(ctx context.Context, l *leader.Leadership) error {
			latest.Store(l)
			<-ctx.Done()
			return nil
		}, leader.WithID(id))
		if err != nil {
			t.Fatal(err)
		}
		return s, latest.Load
	}},
}

// TestLifecycleRule: docs/lifecycle.md's rule. Close before Start is
// allowed and sends nothing, and a later Start fails with ErrClosed, which
// is framework.ErrClosed too; a second Start is ErrAlreadyStarted; Close
// is idempotent.
func TestLifecycleRule(t *testing.T) {
	for _, kind := range lifecycleKinds {
		t.Run(kind.name, func(t *testing.T) {
			counter := zkharness.NewCounter()
			c := recipestest.NewClient(t, server.ConnectString(), framework.WithNamespace(recipestest.Namespace(t)), framework.WithDialer(counter.Dialer(nil)))
			before := counter.Requests()
			p, _ := kind.make(t, c, "early")
			if err := p.Close(); err != nil {
				t.Fatalf("Close before Start = %v, want nil", err)
			}
			if err := p.Close(); err != nil {
				t.Fatalf("second Close before Start = %v, want nil", err)
			}
			err := p.Start(context.Background())
			if !errors.Is(err, leader.ErrClosed) || !errors.Is(err, framework.ErrClosed) {
				t.Fatalf("Start after Close = %v, want ErrClosed and framework.ErrClosed", err)
			}
			if n := counter.Requests() - before; n != 0 {
				t.Fatalf("a participant closed before Start sent %d requests", n)
			}

			p, _ = kind.make(t, c, "p0")
			if err := p.Start(context.Background()); err != nil {
				t.Fatal(err)
			}
			if err := p.Start(context.Background()); !errors.Is(err, leader.ErrAlreadyStarted) {
				t.Fatalf("second Start = %v, want ErrAlreadyStarted", err)
			}
			recipestest.Eventually(t, "p0 leads", func() (bool, string) { return p.HasLeadership(), "" })
			for i := range 2 {
				if err := p.Close(); err != nil {
					t.Fatalf("Close #%d = %v, want nil", i+1, err)
				}
			}
			if kids, _, err := c.Children(ctxT(t), "/election"); err != nil && !errors.Is(err, framework.ErrNoNode) || len(kids) != 0 {
				t.Fatalf("after Close the election holds %v, %v", kids, err)
			}
		})
	}
}

// TestLifecycleStartContextEnds: the context given to Start is the
// participant's lifetime. When it ends, the participant stops as Close
// does, with no Close: its term ends with ErrClosed, its node goes, calls
// return ErrClosed, and every goroutine it started is gone while its
// client still runs.
func TestLifecycleStartContextEnds(t *testing.T) {
	for _, kind := range lifecycleKinds {
		t.Run(kind.name, func(t *testing.T) {
			cs := clients(t, 2)
			c, observer := cs[0], cs[1]
			before := recipestest.IgnoreClients(t, cs...) // the clients' goroutines
			app, cancel := context.WithCancel(context.Background())
			defer cancel()
			p, term := kind.make(t, c, "p0")
			if err := p.Start(app); err != nil {
				t.Fatal(err)
			}
			recipestest.Eventually(t, "p0 leads", func() (bool, string) { return p.HasLeadership() && term() != nil, "" })

			cancel() // the application shuts down
			recipestest.VerifyNone(t, before)
			if err := term().Err(); !errors.Is(err, leader.ErrClosed) {
				t.Fatalf("the term's Err after the context ended = %v, want ErrClosed", err)
			}
			if kids, _, err := observer.Children(ctxT(t), "/election"); err != nil && !errors.Is(err, framework.ErrNoNode) || len(kids) != 0 {
				t.Fatalf("after the context ended the election holds %v, %v", kids, err)
			}
			if p.HasLeadership() {
				t.Fatal("p0 leads after its context ended")
			}
			switch p := p.(type) {
			case *leader.Latch:
				if _, err := p.Await(ctxT(t)); !errors.Is(err, leader.ErrClosed) {
					t.Fatalf("Await after the context ended = %v, want ErrClosed", err)
				}
			case *leader.Selector:
				if _, err := p.Requeue(); !errors.Is(err, leader.ErrClosed) {
					t.Fatalf("Requeue after the context ended = %v, want ErrClosed", err)
				}
			}
			if err := p.Start(context.Background()); !errors.Is(err, leader.ErrClosed) {
				t.Fatalf("Start after the context ended = %v, want ErrClosed", err)
			}
			if err := p.Close(); err != nil {
				t.Fatalf("Close after the context ended = %v, want nil", err)
			}
		})
	}
}
