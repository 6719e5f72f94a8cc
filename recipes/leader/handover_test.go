package leader_test

import (
	"context"
	"fmt"
	"sync/atomic"
	"testing"
	"time"

	"github.com/gocurator/curator/framework"
	"github.com/gocurator/curator/listener"
	"github.com/gocurator/curator/recipes/leader"
	"github.com/gocurator/curator/recipestest"
	"github.com/gocurator/curator/zkharness"
)

// graceLog is the line a participant logs when an ended term's code did
// not let go within the grace.
const graceLog = "did not let go within the grace"

// handover is an election of p0, whose connection goes through a proxy
// and whose term's code the test holds, and p1, which records, as its
// first term begins, whether p0's code had let go and whether p0's grace
// had run out.
type handover struct {
	proxy    *zkharness.Proxy
	c0       *framework.Client
	p0       *leader.Latch
	first    chan *leader.Leadership // p0's terms as they begin
	term     *leader.Leadership      // p0's first term
	letGo    atomic.Bool             // p0's term's code has let go
	graceRan <-chan struct{}         // p0 logged that the grace ran out
	p1Began  chan struct{}
	atBegin  chan string // what p1 saw as it began
}

// startHandover starts p0 (with grace, and p0's listener, if any, called
// for each event) and then p1 behind it, and waits for p0's first term.
func startHandover(t *testing.T, grace time.Duration, listen func(h *handover, ev leader.Event)) *handover {
	t.Helper()
	ns := recipestest.Namespace(t)
	h := &handover{first: make(chan *leader.Leadership, 1), p1Began: make(chan struct{}), atBegin: make(chan string, 1)}
	h.proxy = recipestest.StartProxy(t, server.Addr())
	log, graceRan := recipestest.LogSignal(graceLog)
	h.graceRan = graceRan
	h.c0 = recipestest.NewClient(t, h.proxy.Addr(), framework.WithNamespace(ns), framework.WithLogger(log))
	c1 := recipestest.NewClient(t, server.Addr(), framework.WithNamespace(ns))
	p0, err := leader.NewLatch(h.c0, "/election", leader.WithID("p0"), leader.WithGrace(grace), leader.WithCloseMode(leader.NotifyLeader))
	if err != nil {
		t.Fatal(err)
	}
	h.p0 = p0
	if _, err := p0.AddListener(func(ev leader.Event) {
		if ev.Leader {
			select {
			case h.first <- ev.Leadership:
			default:
			}
		}
		if listen != nil {
			listen(h, ev)
		}
	}); err != nil {
		t.Fatal(err)
	}
	if err := p0.Start(context.Background()); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = p0.Close() })
	select {
	case h.term = <-h.first:
	case <-ctxT(t).Done():
		t.Fatal("p0 never led")
	}
	p1, err := leader.NewLatch(c1, "/election", leader.WithID("p1"))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := p1.AddListener(func(ev leader.Event) {
		if !ev.Leader {
			return
		}
		select {
		case <-h.p1Began:
			return
		default:
		}
		h.atBegin <- fmt.Sprintf("p0's code let go: %v, p0's grace ran out: %v", h.letGo.Load(), isClosed(h.graceRan))
		close(h.p1Began)
	}); err != nil {
		t.Fatal(err)
	}
	if err := p1.Start(context.Background()); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = p1.Close() })
	waitParticipants(t, p1, 2)
	return h
}

// waitP1 waits for p1's first term and returns what it saw as it began.
func (h *handover) waitP1(t *testing.T) string {
	t.Helper()
	select {
	case s := <-h.atBegin:
		return s
	case <-ctxT(t).Done():
		t.Fatal("p1 never led")
		return ""
	}
}

// flap drops p0's connection: its term ends at Suspended, and its session
// survives, so p0 itself must delete the term's node once it is back.
func (h *handover) flap(t *testing.T) {
	t.Helper()
	_, changed := h.c0.StateChanged()
	h.proxy.DropAll()
	<-changed // Suspended
}

// TestLatchHandsOverOnlyOnceTheTermsCodeLetGo: issue 27's trap 10. A latch
// leader is told at Suspended that its term ended, and its code (a
// listener's end call, or code holding a Retain) goes on for a while, as a
// write waiting for the connection does. The latch deletes the term's node,
// which lets the next participant lead, only once that code has let go, or
// once the grace has run out, never before: p1 begins either after p0's
// code returned, or after p0 logged that the grace ran out. Without that,
// p1 led while p0's code still ran.
func TestLatchHandsOverOnlyOnceTheTermsCodeLetGo(t *testing.T) {
	// The listener's end call holds on until p1 leads: only the grace
	// running out can let p1 lead.
	t.Run("listener past the grace", func(t *testing.T) {
		h := startHandover(t, time.Second, func(h *handover, ev leader.Event) {
			if !ev.Leader {
				select {
				case <-h.p1Began:
				case <-ctxT(t).Done():
				}
			}
		})
		h.flap(t)
		if got := h.waitP1(t); got != "p0's code let go: false, p0's grace ran out: true" {
			t.Fatalf("as p1 began: %s; want it to lead only once p0's grace ran out", got)
		}
	})
	// The listener's end call returns once p0 is connected again (when the
	// latch could delete the node): p1 leads then, and not before.
	t.Run("listener lets go", func(t *testing.T) {
		release := make(chan struct{})
		h := startHandover(t, time.Hour, func(h *handover, ev leader.Event) {
			if !ev.Leader {
				select {
				case <-release:
				case <-h.p1Began:
				}
				h.letGo.Store(true)
			}
		})
		h.flap(t)
		awaitState(t, h.c0, listener.Reconnected)
		if err := h.c0.Sync(ctxT(t), "/election"); err != nil { // a round trip on p0's session since it is back
			t.Fatal(err)
		}
		close(release)
		if got := h.waitP1(t); got != "p0's code let go: true, p0's grace ran out: false" {
			t.Fatalf("as p1 began: %s", got)
		}
	})
	// Code outside the listeners holds a Retain on the term through a
	// Close: p1 leads only once it is released, and Close waits for it.
	t.Run("retain", func(t *testing.T) {
		h := startHandover(t, time.Hour, nil)
		term := h.term
		release := term.Retain()
		if term.Err() != nil {
			t.Fatal(term.Err())
		}
		closed := make(chan error, 1)
		go func() { closed <- h.p0.Close() }()
		<-term.Done()
		if err := h.c0.Sync(ctxT(t), "/election"); err != nil { // p0 could have deleted its node by now
			t.Fatal(err)
		}
		select {
		case err := <-closed:
			t.Fatalf("Close returned (%v) while a Retain was held", err)
		default:
		}
		h.letGo.Store(true)
		release()
		release() // a second call does nothing
		if got := h.waitP1(t); got != "p0's code let go: true, p0's grace ran out: false" {
			t.Fatalf("as p1 began: %s", got)
		}
		if err := <-closed; err != nil {
			t.Fatal(err)
		}
	})
	// A Retain held past the grace: the node goes when the grace runs out.
	t.Run("retain past the grace", func(t *testing.T) {
		h := startHandover(t, time.Second, nil)
		term := h.term
		defer term.Retain()()
		h.flap(t)
		if got := h.waitP1(t); got != "p0's code let go: false, p0's grace ran out: true" {
			t.Fatalf("as p1 began: %s; want it to lead only once p0's grace ran out", got)
		}
	})
}

// A Selector keeps its term's node while code outside the leadership
// function holds a Retain on the term, as a latch does: the function has
// returned, and the next participant leads only once the grace runs out.
// Without that, p1 led at once, while p0's retained code could still act.
func TestSelectorHandsOverOnlyOnceARetainIsReleased(t *testing.T) {
	ns := recipestest.Namespace(t)
	ctx := ctxT(t)
	log, graceRan := recipestest.LogSignal(graceLog)
	c0 := recipestest.NewClient(t, server.Addr(), framework.WithNamespace(ns), framework.WithLogger(log))
	c1 := recipestest.NewClient(t, server.Addr(), framework.WithNamespace(ns))
	retained := make(chan func(), 1)
	p0, err := leader.NewSelector(c0, "/election", func(_ context.Context, term *leader.Leadership) error {
		retained <- term.Retain() // code that goes on after the function returns
		return nil
	}, leader.WithID("p0"), leader.WithGrace(time.Second))
	if err != nil {
		t.Fatal(err)
	}
	if err := p0.Start(context.Background()); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = p0.Close() })
	select {
	case release := <-retained:
		defer release()
	case <-ctx.Done():
		t.Fatal("p0 never led")
	}
	began := make(chan bool, 1)
	p1, err := leader.NewSelector(c1, "/election", func(ctx context.Context, _ *leader.Leadership) error {
		began <- isClosed(graceRan)
		<-ctx.Done()
		return nil
	}, leader.WithID("p1"))
	if err != nil {
		t.Fatal(err)
	}
	if err := p1.Start(context.Background()); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = p1.Close() })
	select {
	case ran := <-began:
		if !ran {
			t.Fatal("p1 led while p0's term was retained, before p0's grace ran out")
		}
	case <-ctx.Done():
		t.Fatal("p1 never led")
	}
}
