package leader

import (
	"context"
	"errors"
	"fmt"
	"sync"

	"github.com/gocurator/curator/driver"
	"github.com/gocurator/curator/framework"
	"github.com/gocurator/curator/internal/delivery"
	"github.com/gocurator/curator/recipes/locks"
)

// LatchLockName is the name of a Latch's nodes:
// P/_c_<uuid>-latch-NNNNNNNNNN, as Curator's LeaderLatch names them.
const LatchLockName = "latch-"

// Event is a change of a Latch's leadership, as its listeners see it
// (Curator's LeaderLatchListener: isLeader and notLeader).
type Event struct {
	// Leader is true when the term begins, false when it ends.
	Leader bool
	// Leadership is the term that began or ended.
	Leadership *Leadership
}

// Latch is Curator's LeaderLatch: from Start to Close it keeps a node in
// the election at its path; while that node is the first, the latch leads.
// A term that ends (see Leadership.Done) is followed by a new node at the
// back of the queue once the connection is back, so the latch stays in the
// election across lost sessions. The ended term's node is deleted, letting
// the next participant lead, only once the term's code has let go: the
// listeners have returned from its events and its Retains are released,
// or the grace has passed (WithGrace).
type Latch struct {
	m         member
	closeMode CloseMode
	listeners *delivery.Container[latchItem]

	mu      sync.Mutex    // guards m's state and the fields below
	term    *Leadership   // the current term, nil when not leading
	changed chan struct{} // closed and replaced when term or state changes
}

// NewLatch returns a latch for the election at path. It sends nothing
// until Start.
func NewLatch(client *framework.Client, path string, opts ...Option) (*Latch, error) {
	o, err := applyOptions(opts, true)
	if err != nil {
		return nil, err
	}
	// Curator writes the id's bytes, empty ones too: never the client's
	// default data.
	li, err := locks.NewLockInternals(client, path, LatchLockName, 1, driver.Standard{}, append([]byte{}, o.id...))
	if err != nil {
		return nil, err
	}
	l := &Latch{
		m:         newMember(client, li, o, "latch"),
		closeMode: o.closeMode,
		listeners: delivery.NewContainer(0, foldTerms),
		changed:   make(chan struct{}),
	}
	// The first listener, before any of the user's: it is handed a marker
	// once every listener has returned from the items before it.
	l.listeners.Add(func(it latchItem) {
		if it.delivered != nil {
			close(it.delivered)
		}
	})
	return l, nil
}

// latchItem is an item of a latch's listener queue: an event, or a marker
// (delivered non-nil) that the latch's own listener closes once every
// listener has returned from the events before it.
type latchItem struct {
	ev        Event
	delivered chan struct{}
}

// foldTerms shortens a listener queue that is full by removing the oldest
// term that both began and ended in it: a listener that far behind learns
// nothing from it it must act on.
func foldTerms(pending []latchItem) []latchItem {
	for i := 0; i+1 < len(pending); i++ {
		a, b := pending[i], pending[i+1]
		if a.delivered == nil && b.delivered == nil && a.ev.Leader && !b.ev.Leader && a.ev.Leadership == b.ev.Leadership {
			return append(pending[:i:i], pending[i+2:]...)
		}
	}
	return pending
}

// delivered posts a marker and returns it: it is closed once every
// listener has returned from the events posted before.
func (l *Latch) delivered() <-chan struct{} {
	ch := make(chan struct{})
	l.listeners.Post(latchItem{delivered: ch})
	return ch
}

// ID returns the participant's id.
func (l *Latch) ID() string { return l.m.id }

// Path returns the election's path.
func (l *Latch) Path() string { return l.m.li.Dir() }

// Start joins the election; it returns at once, and the latch works in a
// goroutine of its own until Close. ctx is the latch's lifetime
// (docs/lifecycle.md): every term's Context carries its values, and when it
// ends the latch closes as Close does, so pass the context the application
// runs under, not a timeout. A latch starts once; Start after Close returns
// ErrClosed.
func (l *Latch) Start(ctx context.Context) error {
	l.mu.Lock()
	defer l.mu.Unlock()
	if err := l.m.startLocked(ctx, l.run, l.Close); err != nil {
		return err
	}
	l.wakeLocked()
	return nil
}

// Close leaves the election: it ends a term under way (its Err is then
// ErrClosed), tells the listeners if the close mode is NotifyLeader,
// deletes the latch's node once the term's code has let go (within the
// grace), and returns once the latch's goroutines have stopped and every
// event has been delivered. If the connection is down it does not wait for
// it: the client deletes the node once it is back, or the node goes with
// its session. Close is idempotent (a later call waits for the first to
// finish and returns nil), and a latch closed before Start never starts.
// Called from a listener, Close does not wait: the latch's goroutine waits
// for that listener to return before it deletes the node (the term's code
// has not let go until then), and stops after.
func (l *Latch) Close() error {
	l.mu.Lock()
	first := l.m.closeLocked()
	if first {
		l.wakeLocked()
	}
	l.mu.Unlock()
	l.m.endClose(first, l.listeners.Delivering(), l.listeners.Close)
	return nil
}

// wakeLocked wakes Await to look again. Callers hold l.mu.
func (l *Latch) wakeLocked() {
	close(l.changed)
	l.changed = make(chan struct{})
}

// HasLeadership reports whether the latch leads now: a term has begun and
// has not ended (its Err is nil).
func (l *Latch) HasLeadership() bool {
	l.mu.Lock()
	t := l.term
	l.mu.Unlock()
	return t != nil && t.Err() == nil
}

// Leadership returns the current term, or nil when the latch does not lead.
func (l *Latch) Leadership() *Leadership {
	l.mu.Lock()
	t := l.term
	l.mu.Unlock()
	if t == nil || t.Err() != nil {
		return nil
	}
	return t
}

// Await waits until the latch leads and returns the term (Curator's
// await). It returns ctx's error when ctx ends (at once if it has ended
// already, even while the latch leads), ErrClosed once the latch is
// closed, and ErrNotStarted before Start.
func (l *Latch) Await(ctx context.Context) (*Leadership, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	for {
		l.mu.Lock()
		err, t, changed := l.m.endedLocked(), l.term, l.changed
		var life, stopped <-chan struct{}
		if err == nil {
			life, stopped = l.m.life.Done(), l.m.stopped
		}
		l.mu.Unlock()
		switch {
		case err != nil:
			return nil, err
		case t != nil && t.Err() == nil:
			return t, nil
		}
		var ended <-chan struct{}
		if t != nil {
			ended = t.Done() // leading ended; wait for the next term
		}
		select {
		case <-stopped: // the client closed under the latch: no term can come (endedLocked says so)
		case <-life:
		case <-changed:
		case <-ended:
			select { // the run loop clears the term next
			case <-changed:
			case <-life:
			case <-ctx.Done():
				return nil, ctx.Err()
			}
		case <-ctx.Done():
			return nil, ctx.Err()
		}
	}
}

// AddListener registers fn to be told when a term begins and ends, in
// order, from a goroutine of the latch's own (never the client's); a slow
// listener delays only the latch's later events. The latch deletes an
// ended term's node only once every listener has returned from the term's
// events, its end included, or once the grace has passed (WithGrace): a
// listener that stops the leader's work at the end event, and waits for
// it, keeps the next participant from leading meanwhile. A listener must
// not wait for the latch's next term (Await) then. remove unregisters it.
func (l *Latch) AddListener(fn func(Event)) (remove func(), err error) {
	if fn == nil {
		return nil, fmt.Errorf("%w: nil listener", ErrInvalidArg)
	}
	return l.listeners.Add(func(it latchItem) {
		if it.delivered == nil {
			fn(it.ev)
		}
	}), nil
}

// Participants returns the election's participants in queue order, the
// leader first. It costs one listing and one read per participant.
func (l *Latch) Participants(ctx context.Context) ([]Participant, error) {
	return participants(ctx, l.m.client, l.m.li)
}

// Leader returns the election's leader (ErrNoLeader if it has no
// participant). It costs one listing and one read.
func (l *Latch) Leader(ctx context.Context) (Participant, error) {
	return leaderOf(ctx, l.m.client, l.m.li)
}

// setTerm makes t the current term (nil: none) and tells the listeners.
func (l *Latch) setTerm(t *Leadership, tell bool) {
	l.mu.Lock()
	old := l.term
	l.term = t
	l.wakeLocked()
	l.mu.Unlock()
	if !tell {
		return
	}
	if t != nil {
		l.listeners.Post(latchItem{ev: Event{Leader: true, Leadership: t}})
	} else if old != nil {
		l.listeners.Post(latchItem{ev: Event{Leader: false, Leadership: old}})
	}
}

// run keeps the latch in the election until ctx ends.
func (l *Latch) run(ctx context.Context) {
	for {
		hold, ok := l.m.join(ctx)
		if !ok {
			return
		}
		t := newLeadership(hold, ctx)
		began := l.m.rep.start(hold)
		tell := ctx.Err() == nil // no term begins for the listeners once Close has begun
		l.setTerm(t, tell)
		<-t.Done()
		t.finish(ErrLost) // waits for the term's goroutine, which has ended it
		l.m.rep.end(began, t.Err())
		// The listeners hear of every end but a silent Close's: a term
		// lost before the Close is a loss.
		l.setTerm(nil, tell && (!errors.Is(t.Err(), ErrClosed) || l.closeMode == NotifyLeader))
		// The node goes once the term's code has let go: no other
		// participant can lead while a listener still acts for the term.
		l.m.awaitLetGo(t, l.delivered())
		l.m.leave(ctx, hold)
		if ctx.Err() != nil {
			return
		}
	}
}
