package harness

import (
	"errors"
	"fmt"
	"math"
	"os"
	"strconv"
	"sync"
	"text/tabwriter"
	"time"

	"github.com/gocurator/curator/zkharness"
)

// The propagation workload (issue 20): a publisher, a bare go-zookeeper
// session of the harness's, sets a config node's data to the next number;
// m subscribers, each in a session of its own, keep a copy of it. Each
// update is timed from the moment the publisher's setData call returns (the
// write acknowledged) until each subscriber's listener sees the new value.
// The next update waits until every subscriber has seen this one, and then
// for propagationGap, so that every update starts with the subscribers idle
// and no two updates' reads overlap. Every row has the same publisher; only
// the subscribers differ.

// propagationGap is the quiet time after every subscriber has seen an
// update, before the next one: a request that trails an update is counted
// with it, and each update finds the subscribers idle. It is a gap between
// measurements, never inside one.
const propagationGap = 10 * time.Millisecond

// propagationWait bounds the wait for every subscriber to see an update,
// and for a row's subscribers to start: a failure, not a figure.
const propagationWait = 30 * time.Second

// seenFunc is told that subscriber sub's listener saw the config node's
// value at the moment at (mono's clock).
type seenFunc func(sub int, value string, at int64)

// subscription is one row's running subscribers.
type subscription struct {
	counters []*zkharness.Counter // the subscribers' wire counters (none for a peer)
	notified []func() int64       // when each subscriber's latest notification was read off its connection, on mono's clock (none for a peer)
	close    func()
}

// propRow is one implementation of a config subscriber.
type propRow struct {
	name string
	// open starts m subscribers of the config node cfg (whose parent is
	// base), each in a session of its own, and returns once each has its
	// first copy. seen must be called whenever a subscriber's listener
	// sees the node's value.
	open func(e env, base, cfg string, m int, seen seenFunc) (*subscription, error)
	// warmup is the row's unrecorded turn before its measured ones.
	warmup time.Duration
}

// runPropagation is one turn of a row with m subscribers: n updates
// measured, or as many as fit in limit if limit is not zero (an unrecorded
// warm-up).
func runPropagation(e env, row propRow, m, n int, limit time.Duration) result {
	r := result{Impl: row.name, Workload: fmt.Sprintf("propagation-%d", m), Clients: m + 1, Subscribers: m}
	s, err := connectZK(e.addr, true)
	if err != nil {
		r.Error = err.Error()
		return r
	}
	pub := s.(*zkSession)
	defer pub.close()
	base := "/bench/propagation/" + row.name
	cfg := base + "/config"
	ensureDir(pub.conn, cfg)
	data, _, err := pub.conn.Get(cfg)
	if err != nil {
		r.Error = err.Error()
		return r
	}
	seq, _ := strconv.ParseInt(string(data), 10, 64) // the values go on from the last turn's: none repeats
	tr := newTracker(m)
	sub, err := row.open(e, base, cfg, m, tr.seen)
	if err != nil {
		r.Error = fmt.Sprintf("%s: starting %d subscribers: %v", row.name, m, err)
		return r
	}
	defer sub.close()
	time.Sleep(propagationGap)
	reqs0, notifs0 := countAll(sub.counters)
	pubReqs0, srv0 := pub.cnt.Requests(), e.received()
	start := time.Now()
	for i := 0; i < n && (limit == 0 || time.Since(start) < limit); i++ {
		seq++
		done := tr.expect(seq)
		sent := mono()
		if _, err := pub.conn.Set(cfg, []byte(strconv.FormatInt(seq, 10)), -1); err != nil {
			r.Error = err.Error()
			break
		}
		ack := mono()
		select {
		case <-done:
		case <-time.After(propagationWait):
			r.Error = fmt.Sprintf("update %d: %d of %d subscribers saw it within %v", seq, m-tr.left(), m, propagationWait)
		}
		if r.Error != "" {
			break
		}
		for i, at := range tr.stamps() {
			d := time.Duration(at - ack)
			if d < 0 {
				r.early++
			}
			r.propagations = append(r.propagations, d)
			if i < len(sub.notified) {
				if n := sub.notified[i](); n >= sent && n <= at {
					r.fromNotified = append(r.fromNotified, time.Duration(at-n))
				}
			}
		}
		r.Cycles++
		time.Sleep(propagationGap)
	}
	r.Seconds = time.Since(start).Seconds()
	srv := e.received() - srv0 - e.srvrQueries() - (pub.cnt.Requests() - pubReqs0)
	reqs, notifs := countAll(sub.counters)
	r.CyclesPerSec = float64(r.Cycles) / r.Seconds
	if deliveries := float64(r.Cycles) * float64(m); deliveries > 0 {
		r.ServerReqs = float64(srv) / deliveries
		if len(sub.counters) > 0 {
			r.ClientReqs = float64(reqs-reqs0) / deliveries
			r.NotifPerRel = float64(notifs-notifs0) / deliveries
		}
	}
	r.Deliveries, r.PerSubscriber = int64(len(r.propagations)), true
	r.PropP50us, r.PropP99us = percentile(r.propagations, 50), percentile(r.propagations, 99)
	r.SeenP50us, r.SeenP99us = percentile(r.fromNotified, 50), percentile(r.fromNotified, 99)
	if len(sub.notified) > 0 && len(r.fromNotified) != len(r.propagations) {
		r.missedStamps = int64(len(r.propagations) - len(r.fromNotified))
	}
	r.Violations, r.repeats = tr.counts()
	r.Notes = propagationNotes(r.early, r.repeats, r.missedStamps)
	return r
}

// propagationNotes says what a row's counts of odd deliveries were, if any.
func propagationNotes(early, repeats, missedStamps int64) string {
	var notes []string
	if missedStamps > 0 {
		notes = append(notes, fmt.Sprintf("%d deliveries without their notification seen on the wire", missedStamps))
	}
	if early > 0 {
		notes = append(notes, fmt.Sprintf("%d deliveries stamped before the publisher's setData returned", early))
	}
	if repeats > 0 {
		notes = append(notes, fmt.Sprintf("a listener saw a value it had already seen %d times", repeats))
	}
	s := ""
	for _, n := range notes {
		s += "; " + n
	}
	if s == "" {
		return ""
	}
	return s[2:]
}

// countAll sums the requests and notifications of counters.
func countAll(cs []*zkharness.Counter) (reqs, notifs int64) {
	for _, c := range cs {
		reqs += c.Requests()
		notifs += c.Notifications()
	}
	return reqs, notifs
}

// tracker collects when each subscriber first saw the value an update
// wrote.
type tracker struct {
	mu         sync.Mutex
	want       int64   // the value being waited for
	at         []int64 // when each subscriber first saw it (0: not yet)
	last       []int64 // the highest value each subscriber has seen
	waiting    int     // subscribers that have not seen it yet
	done       chan struct{}
	violations int64 // a listener saw a value older than one it had seen
	repeats    int64 // a listener saw the value it had seen last again
}

func newTracker(m int) *tracker {
	return &tracker{at: make([]int64, m), last: make([]int64, m), want: math.MaxInt64}
}

// expect starts waiting for v; the channel is closed once every
// subscriber has seen it.
func (t *tracker) expect(v int64) <-chan struct{} {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.want, t.waiting, t.done = v, len(t.at), make(chan struct{})
	clear(t.at)
	return t.done
}

// seen is a seenFunc.
func (t *tracker) seen(sub int, value string, at int64) {
	v, err := strconv.ParseInt(value, 10, 64)
	t.mu.Lock()
	defer t.mu.Unlock()
	if err != nil || sub < 0 || sub >= len(t.at) {
		return // a value from before the workload's first update (the node is created empty)
	}
	switch {
	case v < t.last[sub]:
		t.violations++
	case v == t.last[sub]:
		t.repeats++
	}
	t.last[sub] = max(t.last[sub], v)
	if v == t.want && t.at[sub] == 0 {
		t.at[sub] = at
		t.waiting--
		if t.waiting == 0 {
			close(t.done)
		}
	}
}

// left returns how many subscribers have not seen the value waited for.
func (t *tracker) left() int {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.waiting
}

// stamps returns when each subscriber saw the value waited for.
func (t *tracker) stamps() []int64 {
	t.mu.Lock()
	defer t.mu.Unlock()
	return append([]int64(nil), t.at...)
}

func (t *tracker) counts() (violations, repeats int64) {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.violations, t.repeats
}

// runPropagations runs the propagation workload for every number of
// subscribers: each row first makes unrecorded updates for its warm-up
// (--warmup; the Java peer --peer-warmup), then the rows take turns,
// o.rounds times, each measuring its share of e.updates. A peer's process
// runs for the whole workload and opens and closes its subscribers at each
// turn, as the Go rows do, so that its JIT stays warm and it takes its turns
// among the others.
func runPropagations(e env, o options) []result {
	rows, stop, errs := propRows(e, o)
	defer stop()
	var rs []result
	for _, m := range o.subscribers {
		for _, row := range rows {
			if row.warmup > 0 {
				runPropagation(e, row, m, math.MaxInt, row.warmup)
			}
		}
		rounds := min(o.rounds, e.updates)
		runners := make([]runner, len(rows))
		for i, row := range rows {
			runners[i] = func(e env) result { return runPropagation(e, row, m, e.updates/rounds, 0) }
		}
		rs = append(rs, inTurns(e, rounds, runners)...)
		for _, err := range errs {
			rs = append(rs, result{Impl: err.impl, Workload: fmt.Sprintf("propagation-%d", m), Subscribers: m, Error: err.err.Error()})
		}
	}
	return rs
}

// rowError is a row that could not run at all (a peer not installed).
type rowError struct {
	impl string
	err  error
}

// propRows returns the rows o.only selects: gocurator's node cache, tree
// cache and WatchData, the floor, Curator's CuratorCache, Kazoo's DataWatch
// and TreeCache. stop ends the peers' processes.
func propRows(e env, o options) (rows []propRow, stop func(), errs []rowError) {
	var procs []*peerSubs
	stop = func() {
		for _, p := range procs {
			p.stop()
		}
	}
	for _, name := range o.only {
		switch name {
		case "gocurator":
			rows = append(rows, propRow{"gocurator", openNodeCache, o.warmup}, propRow{"gocurator-tree", openTreeCache, o.warmup},
				propRow{"gocurator-watch", openWatchData, o.warmup})
		case "floor":
			rows = append(rows, propRow{"floor", openFloor, o.warmup})
		case "curator", "kazoo":
			if !sharedClock {
				errs = append(errs, rowError{name, errors.New("peers need Linux's CLOCK_MONOTONIC, shared with this process")})
				continue
			}
			for _, ps := range peerSubscribers(name, e, o) {
				if ps.err != nil {
					errs = append(errs, rowError{ps.name, ps.err})
					continue
				}
				procs = append(procs, ps.proc)
				rows = append(rows, propRow{ps.name, ps.proc.open, ps.warmup})
			}
		}
	}
	return rows, stop, errs
}

// printPropagations prints the propagation workload's results, each
// percentile with its ratio to the floor's with as many subscribers.
func printPropagations(rs []result) {
	if len(rs) == 0 {
		return
	}
	floors := floorRows(rs)
	fmt.Println()
	tw := tabwriter.NewWriter(os.Stdout, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "workload\timpl\tsubscribers\tupdates\tp50 µs\tp99 µs\tp50 vs floor\tp99 vs floor\tnotified→seen p50 µs\tnotified→seen p99 µs\treq/update/subscriber (client)\treq/update/subscriber (server)\tnotif/update/subscriber\tviolations\tnotes\t")
	for _, r := range rs {
		if r.Error != "" {
			fmt.Fprintf(tw, "%s\t%s\t%d\terror: %s\t\t\t\t\t\t\t\t\t\t\t\t\n", r.Workload, r.Impl, r.Subscribers, r.Error)
			continue
		}
		client, notif, seen50, seen99 := "–", "–", "–", "–"
		if r.ClientReqs > 0 || r.NotifPerRel > 0 {
			client, notif = fmt.Sprintf("%.2f", r.ClientReqs), fmt.Sprintf("%.2f", r.NotifPerRel)
		}
		if r.SeenP50us > 0 {
			seen50, seen99 = fmt.Sprintf("%.0f", r.SeenP50us), fmt.Sprintf("%.0f", r.SeenP99us)
		}
		f := floors[r.Workload]
		fmt.Fprintf(tw, "%s\t%s\t%d\t%d\t%.0f\t%.0f\t%s\t%s\t%s\t%s\t%s\t%.2f\t%s\t%d\t%s\t\n", r.Workload, r.Impl, r.Subscribers, r.Cycles, r.PropP50us, r.PropP99us,
			ratioText(r.PropP50us, f.PropP50us), ratioText(r.PropP99us, f.PropP99us), seen50, seen99, client, r.ServerReqs, notif, r.Violations, r.Notes)
	}
	tw.Flush()
}
