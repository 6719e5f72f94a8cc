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
// election, the goroutine that joins it, leads and leaves, and the
// lifecycle (docs/lifecycle.md).
type member struct {
	client *framework.Client
	li     *locks.LockInternals
	id     string
	kind   string        // "latch" or "selector", for log lines and errors
	grace  time.Duration // how long an ended term's code may hold its node (letgo.go)

	state     runState        // guarded by the recipe's lock
	life      context.Context // the run's context: ends at Close, or when Start's context ends
	stop      context.CancelFunc
	stopAfter func() bool   // unregisters the Close that Start's context's end calls
	stopped   chan struct{} // closed when the run goroutine has returned
	closed    chan struct{} // closed when the first Close has finished

	stale string // the node of an ended term whose delete may be pending; the run goroutine's
	rep   report // tells the client's hooks of the terms; the run goroutine's
}

func newMember(client *framework.Client, li *locks.LockInternals, o options, kind string) member {
	return member{client: client, li: li, id: o.id, kind: kind, grace: o.grace, closed: make(chan struct{}),
		rep: newReport(client, kind, o.label, li.Dir(), o.id)}
}

type runState int

const (
	created runState = iota
	started
	closed
)

// startLocked starts run in the member's goroutine, once, under a context
// derived from ctx, and has ctx's end call closeFn. Callers hold the
// recipe's lock.
func (m *member) startLocked(ctx context.Context, run func(ctx context.Context), closeFn func() error) error {
	switch m.state {
	case started:
		return fmt.Errorf("%w: %s %s", ErrAlreadyStarted, m.kind, m.li.Dir())
	case closed:
		return fmt.Errorf("%w: %s %s was closed before Start", ErrClosed, m.kind, m.li.Dir())
	}
	if err := ctx.Err(); err != nil {
		return err
	}
	life, cancel := context.WithCancel(ctx)
	m.state, m.life, m.stop, m.stopped = started, life, cancel, make(chan struct{})
	go func() {
		defer close(m.stopped)
		run(life)
	}()
	m.stopAfter = context.AfterFunc(ctx, func() { _ = closeFn() })
	return nil
}

// closeLocked marks the member closed. It reports whether this is the
// first Close; the caller then calls endClose without its lock.
func (m *member) closeLocked() (first bool) {
	if m.state == closed {
		return false
	}
	m.state = closed
	return true
}

// finishClose stops the run goroutine and waits for it, then runs after
// (the recipe's own stopping) and lets later Closes return.
func (m *member) finishClose(after func()) {
	if m.stopAfter != nil {
		m.stopAfter()
	}
	if m.stop != nil {
		m.stop()
		<-m.stopped
	}
	after()
	close(m.closed)
}

// endClose ends a Close: the first finishes it (finishClose), a later one
// waits for the first. Called on a goroutine the run goroutine waits for
// (inside: a listener, the leadership function), it does not wait: the
// first's finishing goes on in a goroutine of its own, which ends once the
// run goroutine has, and a later Close from elsewhere waits for it.
func (m *member) endClose(first, inside bool, after func()) {
	switch {
	case first && inside:
		go m.finishClose(after)
	case first:
		m.finishClose(after)
	case !inside:
		m.awaitClosed()
	}
}

// awaitClosed waits until the first Close has finished.
func (m *member) awaitClosed() { <-m.closed }

// endedLocked returns the error of a call on a member that does not run,
// or nil: ErrNotStarted before Start, ErrClosed once Close has begun or
// Start's context has ended, and errClientClosed once the run goroutine
// has returned because the client closed under it. Callers hold the
// recipe's lock.
func (m *member) endedLocked() error {
	switch m.state {
	case created:
		return ErrNotStarted
	case closed:
		return ErrClosed
	}
	if m.life.Err() != nil {
		return ErrClosed
	}
	select {
	case <-m.stopped:
		return errClientClosed
	default:
		return nil
	}
}

var errClientClosed = fmt.Errorf("%w: the client closed", ErrClosed)

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
