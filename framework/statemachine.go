package framework

import (
	"context"
	"fmt"
	"sync"
	"time"

	"github.com/go-zookeeper/zk"

	"github.com/gocurator/curator/listener"
)

// stateMachine turns go-zookeeper's session events into Curator's connection
// states. It runs on go-zookeeper's event goroutine (through the event
// callback) and on a timer, never blocks, and hands each transition to post,
// which must not block either. docs/connection-states.md has the table.
//
// Lock order: m.mu is taken first, and post (the listener container's Post,
// which takes its own lock briefly) and revived run under it. Neither calls
// code outside the framework: listeners run on the container's goroutine,
// with no framework lock held, so they may call the client.
type stateMachine struct {
	post      func(listener.ConnectionState)
	policy    listener.ErrorPolicy
	afterFunc func(time.Duration, func()) *time.Timer
	revived   func(sessionID int64) // ends a session reported Lost that came back; must not block; may be nil

	mu        sync.Mutex
	state     listener.ConnectionState // 0 until the first session
	session   int64                    // id of the session last reported
	handshake int64                    // id from the latest handshake, 0 if it said "expired"
	timeout   time.Duration            // negotiated session timeout (requested until known)
	timer     *time.Timer              // the Lost timer while Suspended
	timerGen  uint64                   // invalidates a timer that fired late
	timerLost bool                     // the state is Lost because the timer said so
	closed    bool
	changed   chan struct{}             // closed and replaced on every transition
	epoch     uint64                    // error states of policy entered so far
	errState  listener.ConnectionState  // the latest of them
	errCancel map[*errorWaiter]struct{} // contexts to cancel at the next error state
}

// errorWaiter is a context of ErrorContext, cancelled at the next error
// state or when the machine closes.
type errorWaiter struct{ cancel context.CancelCauseFunc }

func newStateMachine(requested time.Duration, policy listener.ErrorPolicy, post func(listener.ConnectionState)) *stateMachine {
	return &stateMachine{
		post:      post,
		policy:    policy,
		afterFunc: time.AfterFunc,
		timeout:   requested,
		changed:   make(chan struct{}),
	}
}

// onHandshake records what the server answered to a session handshake; it is
// called just before go-zookeeper reports the resulting state.
func (m *stateMachine) onHandshake(sessionID int64, timeout time.Duration) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.handshake = sessionID
	if sessionID != 0 && timeout > 0 {
		m.timeout = timeout
	}
}

// onEvent handles one go-zookeeper session event.
func (m *stateMachine) onEvent(s zk.State) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.closed {
		return
	}
	switch s {
	case zk.StateHasSession:
		m.onSession(m.handshake)
	case zk.StateConnectedReadOnly:
		m.set(listener.ReadOnly)
	case zk.StateDisconnected:
		if m.state.IsConnected() {
			m.set(listener.Suspended)
			m.startTimer()
		}
	case zk.StateExpired:
		if m.state != 0 && m.state != listener.Lost {
			m.set(listener.Lost)
		}
	}
}

func (m *stateMachine) onSession(id int64) {
	switch {
	case m.state == listener.Lost && m.timerLost && id == m.session:
		// The session reported Lost came back: a server restarted, or a
		// quorum regained, restores sessions with a fresh timeout. It is
		// ended, as Curator injects an expiry, so that its ephemeral nodes
		// go as the Lost said; Reconnected comes with the next session.
		if m.revived != nil {
			m.revived(id)
		}
		return
	case m.state == 0:
		m.set(listener.Connected)
	case m.state == listener.Lost:
		m.set(listener.Reconnected)
	case id != m.session:
		// The session was replaced, and the expiry went unseen.
		m.set(listener.Lost)
		m.set(listener.Reconnected)
	case m.state == listener.Suspended:
		m.set(listener.Reconnected)
	}
	m.session = id
}

// startTimer arms Curator's rule: Suspended for the negotiated session
// timeout means Lost, whatever the server says later.
func (m *stateMachine) startTimer() {
	m.timerGen++
	gen := m.timerGen
	m.timer = m.afterFunc(m.timeout, func() {
		m.mu.Lock()
		defer m.mu.Unlock()
		if !m.closed && gen == m.timerGen && m.state == listener.Suspended {
			m.set(listener.Lost)
			m.timerLost = true
		}
	})
}

// set moves to s; m.mu is held.
func (m *stateMachine) set(s listener.ConnectionState) {
	if s != listener.Suspended && m.timer != nil {
		m.timer.Stop()
		m.timer = nil
		m.timerGen++
	}
	m.state = s
	m.timerLost = false
	if m.policy != nil && m.policy.IsErrorState(s) {
		m.epoch++
		m.errState = s
		m.cancelWaiters(stateError(s))
	}
	close(m.changed)
	m.changed = make(chan struct{})
	m.post(s)
}

// current returns the state and a channel closed at the next transition.
func (m *stateMachine) current() (listener.ConnectionState, <-chan struct{}) {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.state, m.changed
}

// cancelWaiters cancels every ErrorContext with cause; m.mu is held. A
// cancel runs no code of the caller's here (context.AfterFunc functions
// run on goroutines of their own).
func (m *stateMachine) cancelWaiters(cause error) {
	for w := range m.errCancel {
		w.cancel(cause)
	}
	clear(m.errCancel)
}

// errorContext returns a context cancelled when parent is, at the first
// error state after epoch, or when the machine closes.
func (m *stateMachine) errorContext(parent context.Context, epoch uint64) (context.Context, context.CancelFunc) {
	ctx, cancel := context.WithCancelCause(parent)
	w := &errorWaiter{cancel: cancel}
	m.mu.Lock()
	defer m.mu.Unlock()
	switch {
	case m.epoch > epoch:
		cancel(stateError(m.errState))
	case m.closed:
		cancel(ErrClosed)
	default:
		if m.errCancel == nil {
			m.errCancel = make(map[*errorWaiter]struct{})
		}
		m.errCancel[w] = struct{}{}
	}
	return ctx, func() {
		m.mu.Lock()
		delete(m.errCancel, w)
		m.mu.Unlock()
		cancel(context.Canceled)
	}
}

// stateError is the cause of an ErrorContext ended by an error state: a
// connection loss for Suspended, an expired session for Lost.
func stateError(s listener.ConnectionState) error {
	if s == listener.Lost {
		return fmt.Errorf("%w: connection %v", ErrSessionExpired, s)
	}
	return fmt.Errorf("%w: connection %v", ErrConnectionLoss, s)
}

// errorEpoch returns the number of error states entered so far.
func (m *stateMachine) errorEpoch() uint64 {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.epoch
}

// errorSince returns the latest error state, if one came after epoch.
func (m *stateMachine) errorSince(epoch uint64) (listener.ConnectionState, bool) {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.errState, m.epoch > epoch
}

// sessionTimeout returns the negotiated session timeout once a session was
// established, the requested one before.
func (m *stateMachine) sessionTimeout() time.Duration {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.timeout
}

// close stops the machine: no transitions after it.
func (m *stateMachine) close() {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.closed = true
	m.cancelWaiters(ErrClosed)
	if m.timer != nil {
		m.timer.Stop()
		m.timer = nil
	}
}
