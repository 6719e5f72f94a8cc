package leader

import (
	"sync"
	"time"
)

// DefaultGrace is how long, at most, a participant keeps an ended term's
// node in the election while the term's code still runs (see WithGrace).
const DefaultGrace = 10 * time.Second

// Retain marks code that acts for the term outside a Latch's listeners (or
// a Selector's function): once the term ends, the participant keeps the
// term's node in the election, so that no other participant can lead,
// until every release has been called or the grace (WithGrace) has passed.
// Call release when that code has stopped, once: more calls do nothing.
// Take it before acting, then check Err: a Retain taken once the term has
// ended keeps nothing. See docs/recipes/leader.md, "Handing over".
func (l *Leadership) Retain() (release func()) {
	l.mu.Lock()
	if l.holds == 0 {
		l.idle = make(chan struct{})
	}
	l.holds++
	l.mu.Unlock()
	var once sync.Once
	return func() {
		once.Do(func() {
			l.mu.Lock()
			defer l.mu.Unlock()
			if l.holds--; l.holds == 0 {
				close(l.idle)
			}
		})
	}
}

// retained returns a channel closed once no Retain of the term is
// outstanding, or nil if none is now.
func (l *Leadership) retained() <-chan struct{} {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.holds == 0 {
		return nil
	}
	return l.idle
}

// awaitLetGo waits, before an ended term's node is deleted, until the
// term's code has let go: delivered closed (a latch's listeners have
// returned from the term's events; nil for none) and every Retain
// released. It waits the grace at most, and logs when the grace ran out.
func (m *member) awaitLetGo(t *Leadership, delivered <-chan struct{}) {
	if m.grace <= 0 {
		return
	}
	timer := time.NewTimer(m.grace)
	defer timer.Stop()
	for {
		waiting := delivered // the listeners first, then every Retain
		if waiting == nil {
			waiting = t.retained()
		}
		if waiting == nil {
			return
		}
		select {
		case <-waiting:
			if waiting == delivered {
				delivered = nil
			}
		case <-timer.C:
			m.client.Logger().Warn("leader: the ended term's code did not let go within the grace; deleting its node",
				"recipe", m.kind, "node", t.Node(), "grace", m.grace, "listeners returned", delivered == nil)
			return
		}
	}
}
