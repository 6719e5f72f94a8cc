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
