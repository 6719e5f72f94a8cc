package locks

import (
	"context"
	"fmt"

	"github.com/gocurator/curator/internal/goroutine"
)

// madeUp is the Owner an Acquire without one acts for, and the goroutine
// that asked.
type madeUp struct {
	owner *Owner
	taker uint64
}

type madeUpKey struct{}

// actingFor returns ctx with an Owner to acquire for, and the goroutine
// whose self-waits that acquire must refuse (0: none). Without an Owner in
// ctx it makes one up for the calling goroutine; with one, the goroutine is
// that of an Owner made up further out (a MultiLock acquiring for a caller
// without one), so that its locks see the caller.
func actingFor(ctx context.Context) (context.Context, uint64) {
	o := OwnerFrom(ctx)
	if o == nil {
		m := madeUp{owner: NewOwner(), taker: goroutine.ID()}
		return context.WithValue(WithOwner(ctx, m.owner), madeUpKey{}, m), m.taker
	}
	if m, ok := ctx.Value(madeUpKey{}).(madeUp); ok && m.owner == o {
		return ctx, m.taker
	}
	return ctx, 0
}

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
// nil if there is none (or g is unknown). Holds of o, the Owner the Acquire
// acts for, do not count: o re-enters them.
func (m *Mutex) refuseSelfWait(g uint64, o *Owner) error {
	if g == 0 {
		return nil
	}
	for _, w := range m.selfWaits {
		if h := w.on.takenBy(g, o); h != nil {
			return w.refuse(h)
		}
	}
	return nil
}

// takenBy returns a hold of m, not o's, that goroutine g took without an
// Owner and has not begun to release, or nil. A lost hold counts: its node
// may still be queued ahead.
func (m *Mutex) takenBy(g uint64, except *Owner) *Hold {
	m.mu.Lock()
	var held []*Hold
	for o, taker := range m.takers {
		if taker == g && o != except && m.holds[o] != nil {
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
		return fmt.Errorf("%w: %s %s: this goroutine holds it (node %s%s), taken without an Owner; "+
			"to re-enter, give both Acquires one Owner (WithOwner)", ErrSelfDeadlock, what, m.Path(), h.Path(), lostNote(h))
	}}
}

// lostNote says, in a refusal, that the hold in the way was lost: it must
// be released before the lock is taken again.
func lostNote(h *Hold) string {
	if h.Err() != nil {
		return ", lost and not released"
	}
	return ""
}
