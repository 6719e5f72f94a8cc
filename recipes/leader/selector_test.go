package leader_test

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/gocurator/curator/framework"
	"github.com/gocurator/curator/recipes/leader"
	"github.com/gocurator/curator/recipestest"
)

// term is one call of a leadership function, as the test sees it.
type term struct {
	id   string
	l    *leader.Leadership
	ctx  context.Context
	done chan error // the test's answer: the function returns it
}

// termRecorder is a leadership function that reports each call on terms,
// checks that no two run at once, and returns when the test answers or the
// term ends.
type termRecorder struct {
	terms  chan term
	active atomic.Int32
	bad    atomic.Value // string: the first overlap seen
}

func newTermRecorder() *termRecorder { return &termRecorder{terms: make(chan term, 16)} }

func (r *termRecorder) fn(id string) leader.Func {
	return func(ctx context.Context, l *leader.Leadership) error {
		if n := r.active.Add(1); n != 1 {
			r.bad.CompareAndSwap(nil, fmt.Sprintf("%s began while %d other functions ran", id, n-1))
		}
		defer r.active.Add(-1)
		tm := term{id: id, l: l, ctx: ctx, done: make(chan error, 1)}
		r.terms <- tm
		select {
		case err := <-tm.done:
			return err
		case <-ctx.Done():
			return ctx.Err()
		}
	}
}

func (r *termRecorder) next(t *testing.T) term {
	t.Helper()
	select {
	case tm := <-r.terms:
		if bad := r.bad.Load(); bad != nil {
			t.Fatal(bad)
		}
		return tm
	case <-ctxT(t).Done():
		t.Fatal("no leadership function ran")
		return term{}
	}
}

func startSelectors(t *testing.T, r *termRecorder, n int, opts ...leader.Option) ([]*leader.Selector, []*framework.Client) {
	t.Helper()
	ss := make([]*leader.Selector, n)
	cs := clients(t, n)
	for i, c := range cs {
		id := fmt.Sprintf("s%d", i)
		s, err := leader.NewSelector(c, "/election", r.fn(id), append([]leader.Option{leader.WithID(id)}, opts...)...)
		if err != nil {
			t.Fatal(err)
		}
		if err := s.Start(context.Background()); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { _ = s.Close() })
		ss[i] = s
		waitParticipants(t, s, i+1)
	}
	return ss, cs
}

func TestSelectorAutoRequeueTakesTurns(t *testing.T) {
	r := newTermRecorder()
	ss, _ := startSelectors(t, r, 3, leader.WithAutoRequeue())
	var order []string
	for range 6 {
		tm := r.next(t)
		order = append(order, tm.id)
		if p, err := ss[0].Leader(ctxT(t)); err != nil || p.ID != tm.id || p.Node != tm.l.Node() {
			t.Fatalf("Leader = %+v, %v while %s leads at %s", p, err, tm.id, tm.l.Node())
		}
		if !strings.Contains(tm.l.Node(), "-lock-") {
			t.Fatalf("node %s is not a Curator mutex node", tm.l.Node())
		}
		tm.done <- nil
		<-tm.l.Done()
		if !errors.Is(tm.l.Err(), leader.ErrResigned) {
			t.Fatalf("Err after the function returned = %v, want ErrResigned", tm.l.Err())
		}
	}
	if got := strings.Join(order, " "); got != "s0 s1 s2 s0 s1 s2" {
		t.Fatalf("terms %q, want s0 s1 s2 s0 s1 s2: each requeue goes to the back", got)
	}
}

func TestSelectorWithoutRequeueLeadsOnce(t *testing.T) {
	r := newTermRecorder()
	ss, _ := startSelectors(t, r, 2)
	tm := r.next(t)
	if tm.id != "s0" {
		t.Fatalf("%s leads first, want s0", tm.id)
	}
	tm.done <- errors.New("the job failed") // logged; the term ends as if it returned nil
	if tm = r.next(t); tm.id != "s1" {
		t.Fatalf("%s leads second, want s1", tm.id)
	}
	ps := waitParticipants(t, ss[1], 1)
	if ps[0].ID != "s1" {
		t.Fatalf("participants %v: s0 stayed in the election without a requeue", ps)
	}
	if ok, err := ss[0].Requeue(); !ok || err != nil {
		t.Fatalf("Requeue = %v, %v", ok, err)
	}
	if ok, err := ss[0].Requeue(); ok || err != nil {
		t.Fatalf("second Requeue = %v, %v; want false: already queued", ok, err)
	}
	waitParticipants(t, ss[1], 2)
	tm.done <- nil
	if tm = r.next(t); tm.id != "s0" {
		t.Fatalf("%s leads third, want s0 (requeued)", tm.id)
	}
	tm.done <- nil
}

func TestSelectorInterruptAndClose(t *testing.T) {
	r := newTermRecorder()
	ss, cs := startSelectors(t, r, 2, leader.WithAutoRequeue())
	tm := r.next(t)
	if !ss[0].HasLeadership() || ss[1].HasLeadership() {
		t.Fatal("s0 should lead, s1 not")
	}
	ss[0].InterruptLeadership()
	<-tm.ctx.Done()
	if cause := context.Cause(tm.ctx); !errors.Is(cause, leader.ErrInterrupted) {
		t.Fatalf("context cause %v, want ErrInterrupted", cause)
	}
	if tm = r.next(t); tm.id != "s1" {
		t.Fatalf("%s leads after the interrupt, want s1", tm.id)
	}
	if err := ss[1].Close(); err != nil {
		t.Fatal(err)
	}
	if cause := context.Cause(tm.ctx); !errors.Is(cause, leader.ErrClosed) {
		t.Fatalf("context cause after Close %v, want ErrClosed", cause)
	}
	if tm = r.next(t); tm.id != "s0" { // requeued after the interrupt
		t.Fatalf("%s leads after the close, want s0", tm.id)
	}
	if err := ss[1].Close(); err != nil {
		t.Fatalf("second Close = %v, want nil: Close is idempotent", err)
	}
	if _, err := ss[1].Requeue(); !errors.Is(err, leader.ErrClosed) {
		t.Fatalf("Requeue after Close = %v, want ErrClosed", err)
	}
	if err := ss[0].Close(); err != nil {
		t.Fatal(err)
	}
	kids, _, err := cs[0].Children(ctxT(t), "/election")
	if err != nil && !errors.Is(err, framework.ErrNoNode) || len(kids) != 0 {
		t.Fatalf("after Close the election has %v, %v", kids, err)
	}
}

// TestSelectorJoinsAgainAfterAFailedJoin: a join the server refuses (no
// create permission on the election's node) is tried again until it works.
func TestSelectorJoinsAgainAfterAFailedJoin(t *testing.T) {
	ns := recipestest.Namespace(t)
	c := recipestest.NewClient(t, server.ConnectString(), framework.WithNamespace(ns))
	if _, err := c.Create(ctxT(t), "/election", nil, framework.WithACL(framework.WorldACL(framework.PermRead|framework.PermAdmin))); err != nil {
		t.Fatal(err)
	}
	logger, refused := recipestest.LogSignal("joining the election failed")
	c2 := recipestest.NewClient(t, server.ConnectString(), framework.WithNamespace(ns), framework.WithLogger(logger))
	r := newTermRecorder()
	s, err := leader.NewSelector(c2, "/election", r.fn("s0"))
	if err != nil {
		t.Fatal(err)
	}
	if err := s.Start(context.Background()); err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	<-refused
	if _, err := c.SetACL(ctxT(t), "/election", framework.WorldACL(framework.PermAll), -1); err != nil {
		t.Fatal(err)
	}
	tm := r.next(t)
	tm.done <- nil
}

// TestRequeueWhileWaitingIsNoOp: a selector waiting in the election is
// queued already: Requeue reports false and buys it no second term.
func TestRequeueWhileWaitingIsNoOp(t *testing.T) {
	r := newTermRecorder()
	ss, _ := startSelectors(t, r, 2)
	tm := r.next(t)
	if tm.id != "s0" {
		t.Fatalf("%s leads first", tm.id)
	}
	if ok, err := ss[1].Requeue(); ok || err != nil {
		t.Fatalf("Requeue of the waiting s1 = %v, %v; want false: it is queued", ok, err)
	}
	if ok, err := ss[0].Requeue(); ok || err != nil {
		t.Fatalf("Requeue of the leading s0 = %v, %v; want false", ok, err)
	}
	tm.done <- nil
	if tm = r.next(t); tm.id != "s1" {
		t.Fatalf("%s leads second", tm.id)
	}
	tm.done <- nil
	ps := waitParticipants(t, ss[0], 0)
	if len(ps) != 0 {
		t.Fatalf("participants %v after both terms", ps)
	}
	if ok, err := ss[1].Requeue(); !ok || err != nil {
		t.Fatalf("Requeue after the term = %v, %v; want true", ok, err)
	}
	if tm = r.next(t); tm.id != "s1" {
		t.Fatalf("%s leads third, want s1", tm.id)
	}
	tm.done <- nil
}

// TestSelectorErrorHandler: what a leadership function returns is seen
// without a logger: WithErrorHandler is called with each error and its
// term, in order, once the term's node is gone; an error that only reports
// the term's end (the function returning ctx.Err() after an interrupt) is
// not passed on. NewLatch refuses the option.
func TestSelectorErrorHandler(t *testing.T) {
	type failure struct {
		node string
		err  error
		gone bool // the term's node was gone when the handler ran
	}
	cs := clients(t, 1)
	failures := make(chan failure, 4)
	boom, again := errors.New("boom"), errors.New("again")
	terms := make(chan *leader.Leadership, 4)
	returns := make(chan func(ctx context.Context) error, 4)
	s, err := leader.NewSelector(cs[0], "/election", func(ctx context.Context, l *leader.Leadership) error {
		terms <- l
		return (<-returns)(ctx)
	}, leader.WithAutoRequeue(), leader.WithErrorHandler(func(l *leader.Leadership, err error) {
		ok, _, xerr := cs[0].Exists(ctxT(t), l.Node())
		failures <- failure{l.Node(), err, xerr == nil && !ok}
	}))
	if err != nil {
		t.Fatal(err)
	}
	if err := s.Start(context.Background()); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = s.Close() })

	first := <-terms
	returns <- func(context.Context) error { return boom }
	second := <-terms
	returns <- func(ctx context.Context) error { <-ctx.Done(); return ctx.Err() } // the term's end only
	s.InterruptLeadership()
	third := <-terms
	returns <- func(context.Context) error { return fmt.Errorf("compacting: %w", again) }
	<-terms // the fourth term: its function waits for Close
	returns <- func(ctx context.Context) error { <-ctx.Done(); return context.Cause(ctx) }

	for _, want := range []struct {
		term *leader.Leadership
		err  error
	}{{first, boom}, {third, again}} {
		var got failure
		select {
		case got = <-failures:
		case <-ctxT(t).Done():
			t.Fatalf("the error %v of the term at %s never reached the handler", want.err, want.term.Node())
		}
		if got.node != want.term.Node() || !errors.Is(got.err, want.err) || !got.gone {
			t.Fatalf("handler saw %+v; want %v at %s, once the node was gone (the second term, at %s, ended by an interrupt, is not a failure)",
				got, want.err, want.term.Node(), second.Node())
		}
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	select {
	case got := <-failures:
		t.Fatalf("handler called for a term ended by Close: %+v", got)
	default:
	}
	if _, err := leader.NewLatch(cs[0], "/election", leader.WithErrorHandler(func(*leader.Leadership, error) {})); !errors.Is(err, leader.ErrInvalidArg) {
		t.Fatalf("NewLatch with WithErrorHandler = %v, want ErrInvalidArg", err)
	}
}
