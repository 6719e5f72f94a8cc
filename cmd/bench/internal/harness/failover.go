package harness

import (
	"fmt"
	"sync"
	"time"

	"github.com/gocurator/curator/zkharness"
)

// The failover workload keeps a standing queue of failoverQueue
// participants in one election, each in a session of its own. Each change
// of leader closes the leader's session (its client) and times, from the
// start of that close, until the next participant's leadership function or
// callback starts; then a new participant joins at the back, so that every
// change finds the same queue.
const failoverQueue = 3

// failoverSettle is the quiet time after a change, before its requests are
// counted, and after a join, before the next change: traffic that trails a
// change (a new leader's watch on its own node, say) is counted with it,
// and a join's traffic stays out of the next change's count. It is a gap
// between measurements, never inside one.
const failoverSettle = 20 * time.Millisecond

// failoverWait bounds each wait for a leader or a join: a failure, not a
// figure.
const failoverWait = 30 * time.Second

// elector is one Go implementation of leader election.
type elector struct {
	name string
	// join starts a participant in a session of its own in the election at
	// path; led must be called the moment its leadership function (or
	// callback) starts.
	join func(addr, path string, id int, led func()) (*participant, error)
}

// participant is one member of an election.
type participant struct {
	cnt *zkharness.Counter
	// closeSession closes the participant's session, as a process that
	// goes away does: its client, not its recipe.
	closeSession func()
	// closeWritten returns when the session's closeSession request was
	// written to the wire (zero if it was not).
	closeWritten func() time.Time
	// notified returns when the participant's latest watch notification
	// was read from its connection (zero if none was).
	notified func() time.Time
	// stop stops the participant's recipe once its session is closed.
	stop func()
}

// leadEvent says that participant id began to lead at.
type leadEvent struct {
	id int
	at time.Time
}

// election is one run's queue of participants and its leader bookkeeping.
type election struct {
	e     env
	im    elector
	path  string
	obs   *zkSession // the harness's own session: it lists the queue, uncounted
	led   chan leadEvent
	queue []*member
	next  int // the next participant's id

	mu         sync.Mutex
	leading    map[int]bool // participants that have led and whose session is open
	violations int64
}

type member struct {
	id int
	p  *participant
}

// runFailover measures n changes of leader (or as many as fit in limit,
// if limit is not zero: an unrecorded warm-up).
func runFailover(e env, im elector, n int, limit time.Duration) result {
	r := result{Impl: im.name, Workload: "failover", Clients: failoverQueue}
	obs, err := connectZK(e.addr, false)
	if err != nil {
		r.Error = err.Error()
		return r
	}
	defer obs.close()
	el := &election{e: e, im: im, path: "/bench/" + im.name + "/failover", obs: obs.(*zkSession),
		led: make(chan leadEvent, 16), leading: map[int]bool{}}
	defer el.closeAll()
	ensureDir(el.obs.conn, el.path)
	start := time.Now()
	if err := el.fill(); err != nil {
		r.Error = err.Error()
		return r
	}
	if _, err := el.awaitLeader(el.queue[0].id); err != nil {
		r.Error = err.Error()
		return r
	}
	var reqs, notifs, srv int64
	for i := 0; i < n && (limit == 0 || time.Since(start) < limit); i++ {
		c, err := el.change()
		if err != nil {
			r.Error = err.Error()
			break
		}
		r.failovers = append(r.failovers, c.failover)
		r.closes = append(r.closes, c.close)
		if c.fromWire > 0 {
			r.fromWire = append(r.fromWire, c.fromWire)
		}
		if c.fromNotified > 0 {
			r.fromNotified = append(r.fromNotified, c.fromNotified)
		}
		reqs, notifs, srv = reqs+c.requests, notifs+c.notifications, srv+c.server
	}
	r.Cycles, r.Seconds = int64(len(r.failovers)), time.Since(start).Seconds()
	r.CyclesPerSec = float64(r.Cycles) / r.Seconds
	if r.Cycles > 0 {
		r.ClientReqs = float64(reqs) / float64(r.Cycles)
		r.NotifPerRel = float64(notifs) / float64(r.Cycles)
		r.ServerReqs = float64(srv) / float64(r.Cycles)
	}
	r.FailoverP50us, r.FailoverP99us = percentile(r.failovers, 50), percentile(r.failovers, 99)
	r.CloseP50us = percentile(r.closes, 50)
	r.WireP50us, r.WireP99us = percentile(r.fromWire, 50), percentile(r.fromWire, 99)
	r.NotifiedP50us, r.NotifiedP99us = percentile(r.fromNotified, 50), percentile(r.fromNotified, 99)
	if len(r.fromWire) != len(r.failovers) || len(r.fromNotified) != len(r.failovers) {
		r.Notes = fmt.Sprintf("closeSession seen on the wire in %d, the next leader's notification in %d of %d changes",
			len(r.fromWire), len(r.fromNotified), len(r.failovers))
	}
	el.mu.Lock()
	r.Violations = el.violations
	el.mu.Unlock()
	return r
}

// fill joins participants until the queue is full.
func (el *election) fill() error {
	for len(el.queue) < failoverQueue {
		if err := el.join(); err != nil {
			return err
		}
	}
	return nil
}

// join adds a participant at the back of the queue and waits until its
// node is there and its traffic has settled.
func (el *election) join() error {
	id := el.next
	el.next++
	p, err := el.im.join(el.e.addr, el.path, id, func() { el.onLead(id) })
	if err != nil {
		return err
	}
	el.queue = append(el.queue, &member{id, p})
	for deadline := time.Now().Add(failoverWait); ; time.Sleep(time.Millisecond) {
		kids, _, err := el.obs.conn.Children(el.path)
		if err == nil && len(kids) == len(el.queue) {
			break
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("participant %d did not join: %d nodes, %v", id, len(kids), err)
		}
	}
	time.Sleep(failoverSettle)
	return nil
}

// onLead records that participant id leads, and a violation if another
// participant with an open session leads too.
func (el *election) onLead(id int) {
	at := time.Now()
	el.mu.Lock()
	if len(el.leading) > 0 {
		el.violations++
	}
	el.leading[id] = true
	el.mu.Unlock()
	el.led <- leadEvent{id, at}
}

// awaitLeader waits until participant id leads, and returns when it began.
func (el *election) awaitLeader(id int) (time.Time, error) {
	timeout := time.NewTimer(failoverWait)
	defer timeout.Stop()
	select {
	case ev := <-el.led:
		if ev.id != id {
			return time.Time{}, fmt.Errorf("participant %d leads, want %d (the next in the queue)", ev.id, id)
		}
		return ev.at, nil
	case <-timeout.C:
		return time.Time{}, fmt.Errorf("participant %d did not lead within %v", id, failoverWait)
	}
}

// change is one change of leader, measured.
type change struct {
	failover, close                 time.Duration
	fromWire                        time.Duration // failover from closeSession on the wire; 0 if not seen
	fromNotified                    time.Duration // from the next leader's notification read to its start; 0 if not seen
	requests, notifications, server int64         // counted from before the close to the settled queue
}

// change closes the leader's session, waits for the next leader, and
// refills the queue.
func (el *election) change() (change, error) {
	var c change
	old, next := el.queue[0], el.queue[1]
	reqs0, notifs0 := el.count()
	srv0 := el.e.received()
	el.mu.Lock()
	delete(el.leading, old.id)
	el.mu.Unlock()
	t0 := time.Now()
	old.p.closeSession()
	c.close = time.Since(t0)
	at, err := el.awaitLeader(next.id)
	if err != nil {
		return c, err
	}
	c.failover = at.Sub(t0)
	if w := old.p.closeWritten(); !w.IsZero() && !w.Before(t0) {
		c.fromWire = at.Sub(w)
	}
	if n := next.p.notified(); !n.Before(t0) && !n.After(at) {
		c.fromNotified = at.Sub(n)
	}
	time.Sleep(failoverSettle)
	reqs, notifs := el.count()
	c.requests, c.notifications = reqs-reqs0, notifs-notifs0
	c.server = el.e.received() - srv0 - el.e.srvrQueries()
	old.p.stop()
	el.queue = el.queue[1:]
	return c, el.fill()
}

// count sums the requests and notifications of the queue's sessions.
func (el *election) count() (reqs, notifs int64) {
	for _, m := range el.queue {
		reqs += m.p.cnt.Requests()
		notifs += m.p.cnt.Notifications()
	}
	return reqs, notifs
}

// closeAll closes every participant left, from the back of the queue, so
// that nobody takes over.
func (el *election) closeAll() {
	for i := len(el.queue) - 1; i >= 0; i-- {
		el.queue[i].p.closeSession()
		el.queue[i].p.stop()
	}
	el.queue = nil
}

// runFailovers runs the failover workload: the Go electors first change
// leaders unrecorded for o.warmup each, then take turns, o.rounds times,
// each measuring its share of e.failovers; each peer runs once (its Java
// one warms up first for e.peerWarmup), as in the herds.
func runFailovers(e env, o options, ps []peer) []result {
	els := electors(o.only)
	if o.warmup > 0 {
		for _, el := range els {
			runFailover(e, el, e.failovers, o.warmup)
		}
	}
	rounds := min(o.rounds, e.failovers)
	runners := make([]runner, len(els))
	for i, el := range els {
		runners[i] = func(e env) result { return runFailover(e, el, e.failovers/rounds, 0) }
	}
	rs := inTurns(e, rounds, runners)
	for _, p := range ps {
		if p.supports("failover") {
			rs = append(rs, p.run(e, "failover", nil)...)
		}
	}
	return rs
}
