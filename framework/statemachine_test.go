package framework

import (
	"slices"
	"testing"
	"time"

	"github.com/gocurator/curator/internal/zkconn"
	"github.com/gocurator/curator/listener"
)

// fakeTimers captures the Lost timer so a test can fire it.
type fakeTimers struct{ fire []func() }

func (f *fakeTimers) afterFunc(_ time.Duration, fn func()) *time.Timer {
	f.fire = append(f.fire, fn)
	return time.NewTimer(time.Hour) // stopped by the machine, never fires
}

func newTestMachine() (*stateMachine, *[]listener.ConnectionState, *fakeTimers) {
	var got []listener.ConnectionState
	m := newStateMachine(time.Second, listener.StandardErrorPolicy{}, func(s listener.ConnectionState) { got = append(got, s) })
	ft := &fakeTimers{}
	m.afterFunc = ft.afterFunc
	return m, &got, ft
}

func (m *stateMachine) connect(id int64) {
	m.onEvent(zkconn.SessionEvent{State: zkconn.HasSession, ID: id, Timeout: 2 * time.Second})
}

// The connection's session events, as the state machine gets them.
var (
	disconnected = zkconn.SessionEvent{State: zkconn.Disconnected}
	expired      = zkconn.SessionEvent{State: zkconn.Expired}
)

func TestStateMachine(t *testing.T) {
	const (
		C = listener.Connected
		S = listener.Suspended
		R = listener.Reconnected
		L = listener.Lost
	)
	tests := []struct {
		name string
		run  func(m *stateMachine, ft *fakeTimers)
		want []listener.ConnectionState
	}{
		{"first session", func(m *stateMachine, _ *fakeTimers) {
			m.connect(1)
		}, []listener.ConnectionState{C}},
		{"disconnect and back on the same session", func(m *stateMachine, _ *fakeTimers) {
			m.connect(1)
			m.onEvent(disconnected)
			m.onEvent(disconnected) // repeated while reconnecting
			m.connect(1)
		}, []listener.ConnectionState{C, S, R}},
		{"server expires the session", func(m *stateMachine, _ *fakeTimers) {
			m.connect(1)
			m.onEvent(disconnected)
			m.onEvent(expired)
			m.onEvent(disconnected)
			m.connect(2)
		}, []listener.ConnectionState{C, S, L, R}},
		{"expiry event missed: new session id still means Lost", func(m *stateMachine, _ *fakeTimers) {
			m.connect(1)
			m.onEvent(disconnected)
			m.connect(2)
		}, []listener.ConnectionState{C, S, L, R}},
		{"suspended for the session timeout is Lost", func(m *stateMachine, ft *fakeTimers) {
			m.connect(1)
			m.onEvent(disconnected)
			ft.fire[0]()
			m.onEvent(expired) // the server agrees later: no second Lost
			m.connect(2)
		}, []listener.ConnectionState{C, S, L, R}},
		{"the session comes back after the timer's Lost: it is ended, and the next one reconnects", func(m *stateMachine, ft *fakeTimers) {
			var ended []int64
			m.revived = func(id int64) { ended = append(ended, id) }
			m.connect(1)
			m.onEvent(disconnected)
			ft.fire[0]()
			m.connect(1) // a restarted server restored it
			m.onEvent(disconnected)
			m.connect(1) // ending it failed: ended again
			m.onEvent(expired)
			m.connect(2)
			if !slices.Equal(ended, []int64{1, 1}) {
				t.Errorf("sessions ended %v, want [1 1]", ended)
			}
		}, []listener.ConnectionState{C, S, L, R}},
		{"the server expires the session: it is not ended again", func(m *stateMachine, _ *fakeTimers) {
			m.revived = func(id int64) { t.Errorf("session %d ended by the client", id) }
			m.connect(1)
			m.onEvent(disconnected)
			m.onEvent(expired)
			m.connect(1) // not possible on a real server; the Lost was the server's
		}, []listener.ConnectionState{C, S, L, R}},
		{"a timer from an earlier suspension does nothing", func(m *stateMachine, ft *fakeTimers) {
			m.connect(1)
			m.onEvent(disconnected)
			m.connect(1)
			m.onEvent(disconnected)
			ft.fire[0]() // stale
			m.connect(1)
		}, []listener.ConnectionState{C, S, R, S, R}},
		{"nothing after close", func(m *stateMachine, _ *fakeTimers) {
			m.connect(1)
			m.close()
			m.onEvent(disconnected)
		}, []listener.ConnectionState{C}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			m, got, ft := newTestMachine()
			tt.run(m, ft)
			if !slices.Equal(*got, tt.want) {
				t.Fatalf("states %v, want %v", *got, tt.want)
			}
		})
	}
}

func TestStateMachineUsesNegotiatedTimeout(t *testing.T) {
	m, _, _ := newTestMachine()
	if got := m.sessionTimeout(); got != time.Second {
		t.Fatalf("before a session: %v, want the requested 1s", got)
	}
	m.connect(1)
	if got := m.sessionTimeout(); got != 2*time.Second {
		t.Fatalf("after a session: %v, want the negotiated 2s", got)
	}
}

// TestStateMachineWakesWithTheNewState: a caller woken by a transition
// reads the state it was woken for, never the one before: the machine
// stores the new state before it closes the old channel.
func TestStateMachineWakesWithTheNewState(t *testing.T) {
	m, _, _ := newTestMachine()
	m.connect(1)
	for i := range 2000 {
		before, changed := m.current()
		seen := make(chan listener.ConnectionState)
		go func() {
			<-changed
			s, _ := m.current()
			seen <- s
		}()
		if before.IsConnected() {
			m.onEvent(disconnected) // Suspended
		} else {
			m.connect(1) // Reconnected
		}
		if s := <-seen; s == before {
			t.Fatalf("round %d: woken by the move from %v, read %v", i, before, s)
		}
	}
}
