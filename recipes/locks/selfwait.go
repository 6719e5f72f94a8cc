package locks

import "fmt"

// A selfWait is a lock whose holds an Acquire of another (or the same) lock
// queues behind, and the error that refuses such an Acquire when its own
// goroutine took one of them.
type selfWait struct {
	on     *Mutex
	refuse func(held *Hold) error
}

// refuseSelfWait returns the error for an Acquire without an Owner, on
// goroutine g, that would wait on a hold g took without an Owner: a wait
// that only its own caller could end, by a release it will never reach.
// nil if there is none (or g is unknown).
func (m *Mutex) refuseSelfWait(g uint64) error {
	if g == 0 {
		return nil
	}
	for _, w := range m.selfWaits {
		if h := w.on.takenBy(g); h != nil {
			return w.refuse(h)
		}
	}
	return nil
}

// takenBy returns a hold of m that goroutine g took without an Owner and has
// not begun to release, or nil. A lost hold counts: its node may still be
// queued ahead.
func (m *Mutex) takenBy(g uint64) *Hold {
	m.mu.Lock()
	var held []*Hold
	for o, taker := range m.takers {
		if taker == g && m.holds[o] != nil {
			held = append(held, m.holds[o])
		}
	}
	m.mu.Unlock()
	for _, h := range held {
		if !h.isReleased() {
			return h
		}
	}
	return nil
}

// selfWaitOn is the plain lock's rule: the goroutine holds this very lock.
func selfWaitOn(m *Mutex, what string) selfWait {
	return selfWait{on: m, refuse: func(h *Hold) error {
		return fmt.Errorf("%w: %s %s: this goroutine holds it (node %s), taken without an Owner; "+
			"to re-enter, give both Acquires one Owner (WithOwner)", ErrSelfDeadlock, what, m.Path(), h.Path())
	}}
}
