package framework

import (
	"sync"
	"sync/atomic"
	"time"

	"github.com/gocurator/curator/internal/zkconn"
	"github.com/gocurator/curator/listener"
	"github.com/gocurator/curator/observe"
)

// stateMachine turns the connection's session events into Curator's
// connection states, and the error states of the client's policy into the
// end of a Session. It runs on go-zookeeper's event goroutine (through the
// connection's callback) and on a timer, never blocks, and hands each
// transition to post, which must not block either.
// docs/connection-states.md has the table.
//
// Lock order: m.mu is taken first, and post (the listener container's Post,
// which takes its own lock briefly) and revived run under it. Neither calls
// code outside the framework: listeners run on the container's goroutine,
// with no framework lock held, so they may call the client.
type stateMachine struct {
	post      func(listener.ConnectionState)
	hooks     *observe.Hooks // told each transition; nil: none
	policy    listener.ErrorPolicy
	afterFunc func(time.Duration, func()) *time.Timer
	revived   func(sessionID int64) // ends a session reported Lost that came back; must not block; may be nil

	mu        sync.Mutex
	state     listener.ConnectionState // 0 until the first session
	session   int64                    // id of the session last reported
	timeout   time.Duration            // negotiated session timeout (requested until known)
	timer     *time.Timer              // the Lost timer while Suspended
	timerGen  uint64                   // invalidates a timer that fired late
	timerLost bool                     // the state is Lost because the timer said so
	closed    bool
	changed   chan struct{} // closed and replaced on every transition
	since     time.Time     // of the latest transition
	sess      *Session      // ended and replaced at every error state of policy

	// now is state and changed, and cur is sess, for readers that take no
	// lock: every request reads them, and with many goroutines on one
	// client m.mu was their most waited-for lock. Both are stored with
	// m.mu held, after the fields they copy.
	now atomic.Pointer[stateNow]
	cur atomic.Pointer[Session]
}

// stateNow is a state and the channel closed when it ends.
type stateNow struct {
	state   listener.ConnectionState
	changed chan struct{}
}

func newStateMachine(requested time.Duration, policy listener.ErrorPolicy, post func(listener.ConnectionState)) *stateMachine {
	m := &stateMachine{
		post:      post,
		policy:    policy,
		afterFunc: time.AfterFunc,
		timeout:   requested,
		changed:   make(chan struct{}),
	}
	m.sess = m.newSession()
	m.now.Store(&stateNow{changed: m.changed})
	m.cur.Store(m.sess)
	return m
}

func (m *stateMachine) newSession() *Session {
	return &Session{done: make(chan struct{}), id: m.session}
}

// onEvent handles one change of the session's state.
func (m *stateMachine) onEvent(ev zkconn.SessionEvent) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.closed {
		return
	}
	switch ev.State {
	case zkconn.HasSession:
		if ev.Timeout > 0 {
			m.timeout = ev.Timeout
		}
		m.onSession(ev.ID)
	case zkconn.ReadOnly:
		m.set(listener.ReadOnly)
	case zkconn.Disconnected:
		if m.state.IsConnected() {
			m.set(listener.Suspended)
			m.startTimer()
		}
	case zkconn.Expired:
		if m.state != 0 && m.state != listener.Lost {
			m.setCause(listener.Lost, "expired")
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
		m.session = id
		m.set(listener.Connected)
	case m.state == listener.Lost:
		m.session = id
		m.set(listener.Reconnected)
	case id != m.session:
		// The session was replaced, and the expiry went unseen.
		m.setCause(listener.Lost, "replaced")
		m.session = id
		m.set(listener.Reconnected)
	case m.state == listener.Suspended:
		m.set(listener.Reconnected)
	}
	m.session = id
	m.sess.mu.Lock()
	m.sess.id = id
	m.sess.mu.Unlock()
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
			m.setCause(listener.Lost, "timeout")
			m.timerLost = true
		}
	})
}

// set moves to s; m.mu is held.
func (m *stateMachine) set(s listener.ConnectionState) { m.setCause(s, "") }

// setCause moves to s, for cause (see observe.State); m.mu is held.
func (m *stateMachine) setCause(s listener.ConnectionState, cause string) {
	if s != listener.Suspended && m.timer != nil {
		m.timer.Stop()
		m.timer = nil
		m.timerGen++
	}
	prev := m.state
	m.state = s
	m.timerLost = false
	if m.policy != nil && m.policy.IsErrorState(s) {
		m.sess.end(&SessionError{State: s})
		m.sess = m.newSession()
		m.cur.Store(m.sess)
	}
	// The Session's id is the session's before the transition is seen:
	// a caller woken by it reads the Session without m.mu.
	m.sess.mu.Lock()
	m.sess.id = m.session
	m.sess.mu.Unlock()
	// The new state is stored before the old channel is closed: a caller
	// woken by the close reads the state without m.mu, and must find the
	// state it was woken for.
	woken := m.changed
	m.changed = make(chan struct{})
	m.now.Store(&stateNow{state: s, changed: m.changed})
	close(woken)
	m.post(s)
	if m.hooks != nil {
		now := time.Now()
		var in time.Duration
		if !m.since.IsZero() {
			in = now.Sub(m.since)
		}
		m.hooks.State(observe.State{Time: now, State: s, Previous: prev, InPrevious: in, SessionID: m.session, Cause: cause})
		m.since = now
	}
}

// current returns the state and a channel closed at the next transition.
func (m *stateMachine) current() (listener.ConnectionState, <-chan struct{}) {
	now := m.now.Load()
	return now.state, now.changed
}

// currentSession returns the Session under way.
func (m *stateMachine) currentSession() *Session { return m.cur.Load() }

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
	m.sess.end(ErrClosed)
	if m.timer != nil {
		m.timer.Stop()
		m.timer = nil
	}
}
