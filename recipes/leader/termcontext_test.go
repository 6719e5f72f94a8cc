package leader_test

import (
	"context"
	"errors"
	"fmt"
	"testing"

	"github.com/gocurator/curator/framework"
	"github.com/gocurator/curator/recipes/leader"
	"github.com/gocurator/curator/recipestest"
)

type appKey struct{}

// TestTermContextDerivesFromStart: a term's context (a selector
// function's, a latch term's Context) derives from the context the
// application gave Start: it carries its values, and cancelling it (a
// SIGTERM) ends the term's work at once, with ErrClosed. The next
// participant leads only once the old leader's function has returned.
// (Issue 27: a scheduler ran on for 20 s after SIGTERM.)
func TestTermContextDerivesFromStart(t *testing.T) {
	t.Run("selector", func(t *testing.T) {
		cs := clients(t, 2)
		app, sigterm := context.WithCancel(context.WithValue(context.Background(), appKey{}, "app"))
		defer sigterm()
		values := make(chan any, 1)
		var stopped error
		returned := make(chan struct{})
		s0, err := leader.NewSelector(cs[0], "/election", func(ctx context.Context, _ *leader.Leadership) error {
			values <- ctx.Value(appKey{})
			<-ctx.Done() // the scheduler's loop, bounded by its term
			stopped = context.Cause(ctx)
			close(returned)
			return nil
		}, leader.WithID("s0"))
		if err != nil {
			t.Fatal(err)
		}
		if err := s0.Start(app); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { _ = s0.Close() })
		if v := <-values; v != "app" {
			t.Fatalf("the function's context carries %v, want the application's value", v)
		}
		led := make(chan bool, 1)
		s1, err := leader.NewSelector(cs[1], "/election", func(ctx context.Context, _ *leader.Leadership) error {
			select {
			case <-returned:
				led <- true
			default:
				led <- false // s0's function still runs
			}
			<-ctx.Done()
			return nil
		}, leader.WithID("s1"))
		if err != nil {
			t.Fatal(err)
		}
		if err := s1.Start(context.Background()); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { _ = s1.Close() })
		waitParticipants(t, s1, 2)

		sigterm()
		select {
		case <-returned:
		case <-ctxT(t).Done():
			t.Fatal("the leadership function ran on after the application's context ended")
		}
		if !errors.Is(stopped, leader.ErrClosed) {
			t.Fatalf("the function's context ended with %v, want ErrClosed", stopped)
		}
		if !<-led {
			t.Fatal("s1 led while s0's function still ran")
		}
	})
	t.Run("latch", func(t *testing.T) {
		cs := clients(t, 1)
		app, sigterm := context.WithCancel(context.WithValue(context.Background(), appKey{}, "app"))
		defer sigterm()
		l, err := leader.NewLatch(cs[0], "/election")
		if err != nil {
			t.Fatal(err)
		}
		if err := l.Start(app); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { _ = l.Close() })
		term, err := l.Await(ctxT(t))
		if err != nil {
			t.Fatal(err)
		}
		if v := term.Context().Value(appKey{}); v != "app" {
			t.Fatalf("the term's context carries %v, want the application's value", v)
		}
		sigterm()
		select {
		case <-term.Context().Done():
		case <-ctxT(t).Done():
			t.Fatal("the term's context outlived the application's")
		}
		if err := context.Cause(term.Context()); !errors.Is(err, leader.ErrClosed) || !errors.Is(term.Err(), leader.ErrClosed) {
			t.Fatalf("the term ended with %v (Err %v), want ErrClosed", err, term.Err())
		}
		recipestest.Eventually(t, "the latch's node gone", func() (bool, string) {
			kids, _, err := cs[0].Children(ctxT(t), "/election")
			return errors.Is(err, framework.ErrNoNode) || err == nil && len(kids) == 0, fmt.Sprint(kids, err)
		})
	})
}
