package leader_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/gocurator/curator/framework"
	"github.com/gocurator/curator/recipes/leader"
	"github.com/gocurator/curator/recipestest"
	"github.com/gocurator/curator/zkharness"
)

// TestBadInputSendsNothing: bad paths, ids, functions and options, and
// calls before Start, return clear errors and send no request. (The
// lifecycle's order is lifecycle_test.go's.)
func TestBadInputSendsNothing(t *testing.T) {
	counter := zkharness.NewCounter()
	c := recipestest.NewClient(t, server.ConnectString(), framework.WithNamespace(recipestest.Namespace(t)), framework.WithDialer(counter.Dialer(nil)))
	fn := func(ctx context.Context, l *leader.Leadership) error { return nil }
	before := counter.Requests()

	for _, path := range []string{"", "/", "election", "/a//b", "/a/", "/a/\x00"} {
		if _, err := leader.NewLatch(c, path); !errors.Is(err, leader.ErrInvalidArg) {
			t.Errorf("NewLatch(%q) = %v, want ErrInvalidArg", path, err)
		}
		if _, err := leader.NewSelector(c, path, fn); !errors.Is(err, leader.ErrInvalidArg) {
			t.Errorf("NewSelector(%q) = %v, want ErrInvalidArg", path, err)
		}
		if _, err := leader.Observe(ctxT(t), c, path); !errors.Is(err, leader.ErrInvalidArg) {
			t.Errorf("Observe(%q) = %v, want ErrInvalidArg", path, err)
		}
	}
	bad := []struct {
		name string
		err  error
	}{
		{"nil client", func() error { _, err := leader.NewLatch(nil, "/e"); return err }()},
		{"nil client (selector)", func() error { _, err := leader.NewSelector(nil, "/e", fn); return err }()},
		{"nil client (observer)", func() error { _, err := leader.Observe(ctxT(t), nil, "/e"); return err }()},
		{"nil function", func() error { _, err := leader.NewSelector(c, "/e", nil); return err }()},
		{"id not UTF-8", func() error { _, err := leader.NewLatch(c, "/e", leader.WithID("\xff")); return err }()},
		{"nil option", func() error { _, err := leader.NewLatch(c, "/e", nil); return err }()},
		{"negative grace", func() error { _, err := leader.NewLatch(c, "/e", leader.WithGrace(-time.Second)); return err }()},
		{"bad close mode", func() error { _, err := leader.NewLatch(c, "/e", leader.WithCloseMode(7)); return err }()},
		{"a selector's option on a latch", func() error { _, err := leader.NewLatch(c, "/e", leader.WithAutoRequeue()); return err }()},
		{"a latch's option on a selector", func() error {
			_, err := leader.NewSelector(c, "/e", fn, leader.WithCloseMode(leader.NotifyLeader))
			return err
		}()},
	}
	for _, b := range bad {
		if !errors.Is(b.err, leader.ErrInvalidArg) {
			t.Errorf("%s: %v, want ErrInvalidArg", b.name, b.err)
		}
	}

	l, err := leader.NewLatch(c, "/e")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := l.Await(ctxT(t)); !errors.Is(err, leader.ErrNotStarted) {
		t.Errorf("Await before Start = %v, want ErrNotStarted", err)
	}
	if _, err := l.AddListener(nil); !errors.Is(err, leader.ErrInvalidArg) {
		t.Errorf("AddListener(nil) = %v, want ErrInvalidArg", err)
	}
	s, err := leader.NewSelector(c, "/e", fn)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.Requeue(); !errors.Is(err, leader.ErrNotStarted) {
		t.Errorf("Requeue before Start = %v, want ErrNotStarted", err)
	}
	s.InterruptLeadership() // nothing to interrupt: a no-op
	if s.HasLeadership() || l.HasLeadership() || l.Leadership() != nil {
		t.Error("an unstarted participant leads")
	}
	if n := counter.Requests() - before; n != 0 {
		t.Fatalf("bad input sent %d requests", n)
	}
}
