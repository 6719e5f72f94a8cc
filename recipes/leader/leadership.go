package leader

import (
	"context"
	"errors"
	"strings"
	"sync"

	"github.com/gocurator/curator/framework"
	"github.com/gocurator/curator/recipes/locks"
)

// Leadership is one term of leadership: it begins when a participant's node
// is found first in the election and ends once, never to resume. A later
// term of the same participant is another Leadership, with another node.
type Leadership struct {
	hold    *locks.Hold
	ctx     context.Context // ends with the term; its cause is Err
	end     context.CancelCauseFunc
	ending  chan error    // the recipe ends the term (capacity 1)
	stopped chan struct{} // closed when watch has returned

	mu    sync.Mutex
	cause error         // why the term ended, once decided; it never changes after
	holds int           // Retains not released (letgo.go)
	idle  chan struct{} // closed when holds falls to 0
}

// newLeadership begins the term of hold under life, the recipe's run
// context (derived from the context given to Start), and starts the
// goroutine that ends it when the hold is lost, or with ErrClosed when
// life ends (Close, or the end of Start's context). The term's context
// carries life's values; it ends only through that goroutine, so that its
// cause is always the term's Err. The recipe that calls it stops that
// goroutine with finish.
func newLeadership(hold *locks.Hold, life context.Context) *Leadership {
	ctx, end := context.WithCancelCause(context.WithoutCancel(life))
	l := &Leadership{hold: hold, ctx: ctx, end: end, ending: make(chan error, 1), stopped: make(chan struct{})}
	go l.watch(hold.Lost(), life.Done())
	return l
}

func (l *Leadership) watch(lost, closing <-chan struct{}) {
	defer close(l.stopped)
	var cause error
	select {
	case <-lost:
		cause = lossError(l.hold.Err())
	case <-closing:
		cause = ErrClosed
	case cause = <-l.ending:
	}
	l.end(l.decide(cause))
}

// decide records why the term ended and returns it: cause, unless a reason
// was recorded already (Err saw a loss) or the hold has been lost (the
// client entered an error state before the recipe ended the term, which
// ended it then). So Err never changes its answer.
func (l *Leadership) decide(cause error) error {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.cause == nil {
		if err := l.hold.Err(); err != nil {
			cause = lossError(err)
		}
		l.cause = cause
	}
	return l.cause
}

// interrupt ends the term with cause, unless it has ended already; it does
// not wait.
func (l *Leadership) interrupt(cause error) {
	select {
	case l.ending <- cause:
	default:
	}
}

// finish ends the term with cause, unless it has ended already, and waits
// for its goroutine.
func (l *Leadership) finish(cause error) {
	l.interrupt(cause)
	<-l.stopped
}

// lossError is the Err of a term whose hold was lost with err.
func lossError(err error) error {
	if err == nil { // the hold's loss is recorded before Lost is closed
		return ErrLost
	}
	return &lostError{hold: err}
}

// lostError is a term's loss: "leadership lost: " and the cause, without
// the hold's own "lock lost" (one layer says "lost" once). errors.Is
// matches ErrLost and all that the hold's error matches (locks.ErrLockLost,
// framework.ErrSessionExpired or framework.ErrConnectionLoss, ...).
type lostError struct{ hold error }

func (e *lostError) Error() string { return ErrLost.Error() + ": " + lossCause(e.hold) }

func (e *lostError) Unwrap() []error { return []error{ErrLost, e.hold} }

// lossCause says why a hold was lost, the cause a user acts on first: how
// the session or the connection ended, or what became of the node.
func lossCause(err error) string {
	var se *framework.SessionError
	switch {
	case errors.Is(err, framework.ErrSessionExpired):
		return "session expired"
	case errors.As(err, &se):
		return se.Error() // "connection suspended", say
	case errors.Is(err, framework.ErrClosed):
		return "the client closed"
	}
	return strings.TrimPrefix(err.Error(), locks.ErrLockLost.Error()+": ")
}

// Done returns a channel closed when the term ends. It is closed at the
// first error state of the client's error policy (Standard: Suspended, so
// before the server can let another participant lead; Session: Lost), when
// the node is deleted, and when the recipe ends the term.
func (l *Leadership) Done() <-chan struct{} { return l.ctx.Done() }

// Context returns a context that ends with the term; its cause is Err. It
// carries the values of the context given to the recipe's Start, and ends
// (with ErrClosed) when that context does: bound the term's calls by it (or
// by a context derived from it), and cancelling the application's context
// stops them.
func (l *Leadership) Context() context.Context { return l.ctx }

// Err returns nil while the term lasts, and then why it ended: an error
// wrapping ErrLost (and the loss's cause, such as
// framework.ErrSessionExpired), ErrClosed, ErrInterrupted or ErrResigned.
// It reports a loss to an error state as soon as the client has seen that
// state, even before Done is closed; a term lost so is not made closed,
// interrupted or resigned by what the recipe does later. Once it has
// returned an error it returns that error from then on.
func (l *Leadership) Err() error {
	if l.ctx.Err() != nil {
		return context.Cause(l.ctx)
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.cause == nil {
		if err := l.hold.Err(); err != nil {
			l.cause = lossError(err)
		}
	}
	return l.cause
}

// Node returns the path of the term's node.
func (l *Leadership) Node() string { return l.hold.Path() }

// Fence returns a transaction op that fails once the term's node is gone:
// add it to a framework.Client.Txn so that a leader's write commits only
// while no other participant can lead. The node can outlive the term for a
// while (a term ended at Suspended keeps its node until the participant
// deletes it, once the connection is back), and no other participant leads
// meanwhile; check Done or Err before writing to stop sooner. A
// participant's later term has a new node, so a term's fence never holds
// again once it has failed.
func (l *Leadership) Fence() framework.Op { return l.hold.Fence() }

// Token returns the term's fencing token: the zxid that created its node.
// Each term of the election has a higher token than the one before it, so a
// protected resource can refuse a token lower than one it has seen. It
// costs one request.
func (l *Leadership) Token(ctx context.Context) (int64, error) {
	tok, err := l.hold.Token(ctx)
	if err != nil && l.Err() != nil {
		return 0, l.Err()
	}
	return tok, err
}
