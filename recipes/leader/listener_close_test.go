package leader_test

import (
	"context"
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/gocurator/curator/framework"
	"github.com/gocurator/curator/recipes/leader"
)

// A listener may close its latch when it hears the term begin, as
// LeaderLatch listeners do: Close returns at once, without waiting for the
// goroutine that waits for the listener (nor for the grace, a minute here),
// the term ends closed, and the node goes once the listener has returned.
func TestLatchCloseFromAListener(t *testing.T) {
	for _, mode := range []leader.CloseMode{leader.Silent, leader.NotifyLeader} {
		t.Run(fmt.Sprint(mode), func(t *testing.T) {
			cs := clients(t, 1)
			ctx := ctxT(t)
			l, err := leader.NewLatch(cs[0], "/election", leader.WithCloseMode(mode), leader.WithGrace(time.Minute))
			if err != nil {
				t.Fatal(err)
			}
			type closed struct {
				term *leader.Leadership
				err  error
			}
			done := make(chan closed, 1)
			if _, err := l.AddListener(func(ev leader.Event) {
				if ev.Leader {
					done <- closed{ev.Leadership, l.Close()}
				}
			}); err != nil {
				t.Fatal(err)
			}
			if err := l.Start(context.Background()); err != nil {
				t.Fatal(err)
			}
			var got closed
			select {
			case got = <-done:
			case <-ctx.Done():
				t.Fatal("Close from the listener did not return")
			}
			if got.err != nil {
				t.Fatalf("Close from the listener: %v", got.err)
			}
			if err := l.Close(); err != nil { // from another goroutine: waits for the latch's goroutines
				t.Fatal(err)
			}
			if !errors.Is(got.term.Err(), leader.ErrClosed) {
				t.Fatalf("the term's Err %v, want ErrClosed", got.term.Err())
			}
			kids, _, err := cs[0].Children(ctx, "/election")
			if err != nil && !errors.Is(err, framework.ErrNoNode) || len(kids) != 0 {
				t.Fatalf("after Close the election has %v, %v", kids, err)
			}
		})
	}
}

// The leadership function may close its Selector, as Curator's
// takeLeadership may close its LeaderSelector: Close returns instead of
// waiting for the function, the term's context ends, and the node goes
// once the function has returned.
func TestSelectorCloseFromTheFunction(t *testing.T) {
	cs := clients(t, 1)
	ctx := ctxT(t)
	var s *leader.Selector
	closed := make(chan error, 1)
	termEnded := make(chan error, 1)
	s, err := leader.NewSelector(cs[0], "/election", func(fctx context.Context, _ *leader.Leadership) error {
		closed <- s.Close()
		<-fctx.Done()
		termEnded <- context.Cause(fctx)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if err := s.Start(context.Background()); err != nil {
		t.Fatal(err)
	}
	select {
	case err := <-closed:
		if err != nil {
			t.Fatalf("Close from the function: %v", err)
		}
	case <-ctx.Done():
		t.Fatal("Close from the function did not return")
	}
	if err := <-termEnded; !errors.Is(err, leader.ErrClosed) {
		t.Fatalf("the function's context ended with %v, want ErrClosed", err)
	}
	if err := s.Close(); err != nil { // from another goroutine: waits for the selector's goroutines
		t.Fatal(err)
	}
	kids, _, err := cs[0].Children(ctx, "/election")
	if err != nil && !errors.Is(err, framework.ErrNoNode) || len(kids) != 0 {
		t.Fatalf("after Close the election has %v, %v", kids, err)
	}
}
