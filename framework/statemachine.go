package framework

import (
	"sync"
	"time"

	"github.com/go-zookeeper/zk"

	"github.com/gocurator/curator/listener"
)

// stateMachine turns go-zookeeper's session events into Curator's connection
// states. It runs on go-zookeeper's event goroutine (through the event
// callback) and on a timer, never blocks, and hands each transition to post,
// which must not block either. docs/connection-states.md has the table.
type stateMachine struct {
	post      func(listener.ConnectionState)
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
	changed   chan struct{} // closed and replaced on every transition
}

func newStateMachine(requested time.Duration, post func(listener.ConnectionState)) *stateMachine {
	return &stateMachine{
		post:      post,
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
	if m.timer != nil {
		m.timer.Stop()
		m.timer = nil
	}
}
