package framework

import (
	"context"
	"strings"
	"sync"

	"github.com/gocurator/curator/listener"
)

// A Session is the client's session as its error policy sees it: it begins
// when the client starts or after an error state, and ends at the next
// error state of the policy (listener.StandardErrorPolicy: Suspended or
// Lost; listener.SessionErrorPolicy: Lost), or when the client closes.
// Recipes tie what is valid only while the connection is sound to one, as
// etcd's concurrency package ties its primitives to a lease: a lock's hold,
// a leader's term. Take the current one with Client.Session just before
// the request whose answer it must cover; an error state after that, however
// short, has ended it (Done is closed at the transition itself).
//
// Under the Standard policy a flap ends a Session although ZooKeeper's
// session lives on: the client could not know, while suspended, whether its
// ephemeral nodes were still there.
type Session struct {
	done chan struct{}

	// Guarded by mu, which the state machine takes with m.mu held: a
	// Session's readers do not wait on the state machine, and with many
	// goroutines on one client, each tying a request to the Session, they
	// do not wait on one another long.
	mu      sync.Mutex
	id      int64 // the ZooKeeper session established during it, the latest
	err     error
	waiters map[*sessionWaiter]struct{}
}

type sessionWaiter struct{ cancel context.CancelCauseFunc }

// ID returns the id of the ZooKeeper session the client was on during the
// Session (the latest, if a new one was established within it), 0 if it had
// none yet.
func (s *Session) ID() int64 {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.id
}

// Done returns a channel that is closed when the Session ends.
func (s *Session) Done() <-chan struct{} { return s.done }

// Err returns nil while the Session lasts, then why it ended: a
// *SessionError, which wraps ErrConnectionLoss (Suspended) or
// ErrSessionExpired (Lost), or ErrClosed.
func (s *Session) Err() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.err
}

// Context returns a context that ends with parent or with the Session,
// whichever comes first (at once if the Session has ended): work that is
// valid only while the Session lasts runs under it. context.Cause says why
// it ended. Call the CancelFunc when done with it.
func (s *Session) Context(parent context.Context) (context.Context, context.CancelFunc) {
	ctx, cancel := context.WithCancelCause(parent)
	w := &sessionWaiter{cancel: cancel}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.err != nil {
		cancel(s.err)
		return ctx, func() { cancel(context.Canceled) }
	}
	if s.waiters == nil {
		s.waiters = make(map[*sessionWaiter]struct{})
	}
	s.waiters[w] = struct{}{}
	return ctx, func() {
		s.mu.Lock()
		delete(s.waiters, w)
		s.mu.Unlock()
		cancel(context.Canceled)
	}
}

// end ends the Session with err; m.mu is held (s.mu is taken). Cancelling a context runs no
// code of a caller's here (context.AfterFunc functions run on goroutines of
// their own).
func (s *Session) end(err error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.err != nil {
		return
	}
	s.err = err
	close(s.done)
	for w := range s.waiters {
		w.cancel(err)
	}
	clear(s.waiters)
}

// SessionError says which error state of the client's policy ended a
// Session.
type SessionError struct {
	State listener.ConnectionState // listener.Suspended or listener.Lost
}

// Error says how the connection failed.
func (e *SessionError) Error() string {
	if e.State == listener.Lost {
		return "session lost"
	}
	return "connection " + strings.ToLower(e.State.String())
}

// Unwrap returns ErrSessionExpired for Lost, ErrConnectionLoss otherwise.
func (e *SessionError) Unwrap() error {
	if e.State == listener.Lost {
		return ErrSessionExpired
	}
	return ErrConnectionLoss
}

// Session returns the client's current Session. Before Start it is the
// Session the client will begin with; after Close, one that has ended with
// ErrClosed.
func (c *Client) Session() *Session { return c.sm.currentSession() }
