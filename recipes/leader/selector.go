package leader

import (
	"context"
	"errors"
	"fmt"
	"sync"

	"github.com/gocurator/curator/driver"
	"github.com/gocurator/curator/framework"
	"github.com/gocurator/curator/internal/goroutine"
	"github.com/gocurator/curator/recipes/locks"
)

// Func is a Selector's leadership function. It runs while its participant
// leads and must return when ctx ends: the term ended (ctx's cause and
// l.Err say why), which it does when the context given to Start ends too.
// ctx is l.Context(): it carries the values of Start's context. Returning
// ends the term, with nil or an error alike. An error goes to the handler
// set with WithErrorHandler (and to the client's logger, which is off by
// default); without a handler nothing else sees it. An error that only
// reports the term's end (ctx.Err() or context.Cause(ctx), returned after
// ctx ended) goes nowhere: l.Err says why the term ended.
type Func func(ctx context.Context, l *Leadership) error

// Selector is Curator's LeaderSelector: a participant that queues on a
// mutex at its path (Curator's InterProcessMutex, `lock-` nodes) and, each
// time it acquires it, runs its leadership function, then releases it. At
// most one call of the function of one Selector runs at a time.
//
// The function's context ends the moment the term does: the connection
// enters an error state of the client's error policy (Curator users add a
// LeaderSelectorListenerAdapter for this), InterruptLeadership, or Close.
type Selector struct {
	m           member
	fn          Func
	autoRequeue bool
	onError     func(*Leadership, error)

	mu     sync.Mutex    // guards m's state and the fields below
	queued bool          // in the election, or about to be: from Start, Requeue or auto-requeue until the term ends
	wake   chan struct{} // capacity 1: queued may have become true
	term   *Leadership
	runner uint64 // the run goroutine's id (goroutine.ID), once it runs
}

// NewSelector returns a selector for the election at path that runs fn
// while it leads. It sends nothing until Start.
func NewSelector(client *framework.Client, path string, fn Func, opts ...Option) (*Selector, error) {
	if fn == nil {
		return nil, fmt.Errorf("%w: nil leadership function", ErrInvalidArg)
	}
	o, err := applyOptions(opts, false)
	if err != nil {
		return nil, err
	}
	var data []byte // Curator's: the id's bytes, or the client's default data
	if o.id != "" {
		data = []byte(o.id)
	}
	li, err := locks.NewLockInternals(client, path, locks.MutexLockName, 1, driver.Standard{}, data)
	if err != nil {
		return nil, err
	}
	return &Selector{m: newMember(client, li, o, "selector"), fn: fn, autoRequeue: o.autoRequeue, onError: o.onError, wake: make(chan struct{}, 1)}, nil
}

// ID returns the participant's id.
func (s *Selector) ID() string { return s.m.id }

// Path returns the election's path.
func (s *Selector) Path() string { return s.m.li.Dir() }

// Start queues the selector for leadership once (again after each term
// with WithAutoRequeue); it returns at once. ctx is the selector's lifetime
// (docs/lifecycle.md): the function's context derives from it, and when it
// ends the selector closes as Close does, so pass the context the
// application runs under (a signal.NotifyContext, say), not a timeout. A
// selector starts once; Start after Close returns ErrClosed.
func (s *Selector) Start(ctx context.Context) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if err := s.m.startLocked(ctx, s.run, s.Close); err != nil {
		return err
	}
	s.queueLocked()
	return nil
}

// Requeue queues the selector for another term, if it is not queued or
// leading already (Curator's requeue). It reports whether it queued.
func (s *Selector) Requeue() (bool, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if err := s.m.endedLocked(); err != nil {
		return false, err
	}
	if s.queued {
		return false, nil
	}
	s.queueLocked()
	return true, nil
}

func (s *Selector) queueLocked() {
	s.queued = true
	select {
	case s.wake <- struct{}{}:
	default:
	}
}

// InterruptLeadership ends the current term, if there is one: the
// function's context ends with ErrInterrupted. The function should return;
// the selector then leaves the election, and queues again with
// WithAutoRequeue.
func (s *Selector) InterruptLeadership() {
	s.mu.Lock()
	t := s.term
	s.mu.Unlock()
	if t != nil {
		t.interrupt(ErrInterrupted)
	}
}

// HasLeadership reports whether the selector leads now.
func (s *Selector) HasLeadership() bool {
	s.mu.Lock()
	t := s.term
	s.mu.Unlock()
	return t != nil && t.Err() == nil
}

// Participants returns the election's participants in queue order, the
// leader first. It costs one listing and one read per participant.
func (s *Selector) Participants(ctx context.Context) ([]Participant, error) {
	return participants(ctx, s.m.client, s.m.li)
}

// Leader returns the election's leader (ErrNoLeader if it has no
// participant). It costs one listing and one read.
func (s *Selector) Leader(ctx context.Context) (Participant, error) {
	return leaderOf(ctx, s.m.client, s.m.li)
}

// Close leaves the election: it ends a term under way (the function's
// context ends with ErrClosed), waits for the function to return, deletes
// the selector's node, and returns once its goroutines have stopped. A
// function that ignores its context keeps Close waiting. Called from the
// function (or WithErrorHandler's handler), Close does not wait, as Curator's
// close does not: the function's context ends, and the selector deletes its
// node and stops once the function has returned. If the connection is down
// Close does not wait for it: the client deletes the node once it is back,
// or the node goes with its session. Close is idempotent (a later call waits
// for the first to finish and returns nil), and a selector closed before
// Start never starts.
func (s *Selector) Close() error {
	s.mu.Lock()
	first := s.m.closeLocked()
	fromRun := s.runner != 0 && goroutine.ID() == s.runner
	s.mu.Unlock()
	s.m.endClose(first, fromRun, func() {})
	return nil
}

// run takes a term each time the selector is queued, until ctx ends.
func (s *Selector) run(ctx context.Context) {
	s.mu.Lock()
	s.runner = goroutine.ID() // for a Close from the function
	s.mu.Unlock()
	for s.awaitQueued(ctx) {
		hold, ok := s.m.join(ctx)
		if !ok {
			return
		}
		t, err := s.lead(ctx, hold)
		s.m.awaitLetGo(t, nil) // the function has returned; its Retains
		s.m.leave(ctx, hold)
		if err != nil && s.onError != nil {
			s.onError(t, err)
		}
	}
}

// awaitQueued waits until the selector is queued; it stays queued until
// its term ends.
func (s *Selector) awaitQueued(ctx context.Context) bool {
	for {
		s.mu.Lock()
		queued := s.queued
		s.mu.Unlock()
		if queued {
			return ctx.Err() == nil
		}
		select {
		case <-s.wake:
		case <-ctx.Done():
			return false
		}
	}
}

// lead runs one term of hold: the function, under a context that ends with
// the term; the term has ended when it returns. It returns the term, and
// the function's error unless it only reports the term's end.
func (s *Selector) lead(ctx context.Context, hold *locks.Hold) (*Leadership, error) {
	t := newLeadership(hold, ctx)
	began := s.m.rep.start(hold)
	s.mu.Lock()
	s.term = t
	s.mu.Unlock()
	var err error
	if ctx.Err() == nil { // not when Close came as the term began
		err = s.fn(t.Context(), t)
	}
	if err != nil && endOnly(t, err) {
		err = nil
	}
	t.finish(ErrResigned)
	cause := t.Err()
	if err != nil && errors.Is(cause, ErrResigned) {
		cause = fmt.Errorf("%w: %w", ErrResigned, err) // the function failed
	}
	s.m.rep.end(began, cause)
	if err != nil {
		s.m.client.Logger().Warn("leader selector: the leadership function failed", "path", s.m.li.Dir(), "node", t.Node(), "err", err)
	}
	s.mu.Lock()
	s.term = nil
	s.queued = false
	if s.autoRequeue && ctx.Err() == nil {
		s.queueLocked()
	}
	s.mu.Unlock()
	return t, err
}

// endOnly reports whether err, which t's function has just returned, only
// reports the term's end: the term had ended, and err is its context's
// error or its Err.
func endOnly(t *Leadership, err error) bool {
	return t.Context().Err() != nil && (errors.Is(err, context.Canceled) || errors.Is(err, context.Cause(t.Context())))
}
