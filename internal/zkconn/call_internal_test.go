package zkconn

import (
	"context"
	"errors"
	"testing"

	"github.com/gocurator/curator/internal/zkerr"
)

// No call starts once Close has begun: Close waits for the calls it knows
// of, and one started later would run on unwaited (and could make
// WaitGroup.Add race with Close's Wait).
func TestNoCallStartsAfterClose(t *testing.T) {
	c := &Conn{closing: make(chan struct{}), closed: true}
	close(c.closing)
	ctx, cancel := context.WithCancel(context.Background()) // cancellable: the call would run on a goroutine
	defer cancel()
	for _, ctx := range []context.Context{ctx, context.Background()} {
		ran := false
		err := c.call(ctx, request{}, func() (int, error) { ran = true; return 0, nil }, nil)
		if !errors.Is(err, zkerr.ErrClosed) || ran {
			t.Fatalf("call after Close: %v (ran %v), want ErrClosed, not run", err, ran)
		}
	}
}
