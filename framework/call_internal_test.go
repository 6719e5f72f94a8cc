package framework

import (
	"context"
	"errors"
	"testing"
)

// No call starts once Close has begun: Close waits for the calls it knows
// of, and one started later would run on unwaited (and could make
// WaitGroup.Add race with Close's Wait).
func TestNoCallStartsAfterClose(t *testing.T) {
	c, err := New("127.0.0.1:1")
	if err != nil {
		t.Fatal(err)
	}
	c.Close()
	ctx, cancel := context.WithCancel(context.Background()) // cancellable: the call would run on a goroutine
	defer cancel()
	ran := make(chan struct{}, 1)
	err = c.callCancellable(ctx, func() error { ran <- struct{}{}; return nil }, nil)
	if !errors.Is(err, ErrClosed) {
		t.Fatalf("call after Close: %v, want ErrClosed", err)
	}
	select {
	case <-ran:
		t.Fatal("a call ran after Close")
	default:
	}
}
