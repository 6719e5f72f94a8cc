package leader

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/gocurator/curator/framework"
	"github.com/gocurator/curator/recipes/locks"
)

// member is what a Latch and a Selector share: a participant's place in an
// election, and the goroutine that joins it, leads and leaves.
type member struct {
	client *framework.Client
	li     *locks.LockInternals
	id     string
	kind   string // "latch" or "selector", for log lines

	state   runState // guarded by the recipe's lock
	stop    context.CancelFunc
	stopped chan struct{} // closed when the run goroutine has returned

	stale string // the node of an ended term whose delete may be pending; the run goroutine's
}

type runState int

const (
	created runState = iota
	started
	closed
)

// startLocked starts run in the member's goroutine, once. Callers hold the
// recipe's lock.
func (m *member) startLocked(run func(ctx context.Context)) error {
	switch m.state {
	case started:
		return ErrAlreadyStarted
	case closed:
		return ErrClosed
	}
	ctx, cancel := context.WithCancel(context.Background())
	m.state, m.stop, m.stopped = started, cancel, make(chan struct{})
	go func() {
		defer close(m.stopped)
		run(ctx)
	}()
	return nil
}

// closeLocked marks the member closed and returns the function that stops
// its goroutine and waits for it, which the caller calls without its lock.
func (m *member) closeLocked() (stop func(), err error) {
	switch m.state {
	case created:
		return nil, ErrNotStarted
	case closed:
		return nil, ErrClosed
	}
	m.state = closed
	return func() {
		m.stop()
		<-m.stopped
	}, nil
}

// clientClosed returns the error of a call on a member whose goroutine has
// returned because the client closed under it, or nil.
func (m *member) clientClosed() error {
	if m.stopped == nil {
		return nil
	}
	select {
	case <-m.stopped:
		return errClientClosed
	default:
		return nil
	}
}

var errClientClosed = fmt.Errorf("%w: the client closed: %w", ErrClosed, framework.ErrClosed)

// join makes a node in the election and waits for it to lead, trying again
// after errors until ctx ends; it reports false then. The node of an ended
// term is deleted first, so that an old node of ours never stands ahead of
// the new one.
func (m *member) join(ctx context.Context) (*locks.Hold, bool) {
	for pause := time.Duration(0); ; pause = nextPause(pause) {
		if !sleep(ctx, pause) {
			return nil, false
		}
		if err := m.client.BlockUntilConnected(ctx); err != nil {
			if ctx.Err() != nil || errors.Is(err, framework.ErrClosed) {
				return nil, false
			}
			continue
		}
		if m.stale != "" && !removeStale(ctx, m.client, m.stale) {
			continue
		}
		m.stale = ""
		hold, err := m.li.AcquireHold(ctx, false)
		if err == nil {
			return hold, true
		}
		if ctx.Err() != nil {
			return nil, false
		}
		m.client.Logger().Warn("leader: joining the election failed", "recipe", m.kind, "path", m.li.Dir(), "err", err)
	}
}

// leave deletes an ended term's node; if that is not sure to be done, the
// next join deletes it first.
func (m *member) leave(ctx context.Context, hold *locks.Hold) {
	if !release(ctx, hold) {
		m.stale = hold.Path()
	}
}
