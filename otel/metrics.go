package otel

import (
	"context"
	"errors"

	"go.opentelemetry.io/otel/metric"

	"github.com/gocurator/curator/internal/errclass"
	"github.com/gocurator/curator/listener"
	"github.com/gocurator/curator/observe"
)

// instruments are the Hook's metrics (docs/observability.md has the
// table).
type instruments struct {
	request, operation, stateTime           metric.Float64Histogram
	acquire, hold, term, gap, resync, stale metric.Float64Histogram
	io, retries, transitions, sessionLoss   metric.Int64Counter
	losses, cacheChanges, resyncChanges     metric.Int64Counter
	cacheDropped, trySets                   metric.Int64Counter
	leading                                 metric.Int64UpDownCounter
	cacheNodes                              metric.Int64Gauge
}

// Bucket boundaries, in seconds: a request's or operation's latency on a
// LAN is sub-millisecond to seconds; a lock's wait, a hold, a term or a
// stale span can last minutes.
func latencyBuckets() []float64 {
	return []float64{0.0001, 0.00025, 0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10}
}

func longBuckets() []float64 {
	return []float64{0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 120, 300, 600, 1800, 3600}
}

func newInstruments(m metric.Meter) (instruments, error) {
	var errs []error
	hist := func(name, desc string, buckets []float64) metric.Float64Histogram {
		h, err := m.Float64Histogram(name, metric.WithUnit("s"), metric.WithDescription(desc), metric.WithExplicitBucketBoundaries(buckets...))
		errs = append(errs, err)
		return h
	}
	count := func(name, unit, desc string) metric.Int64Counter {
		c, err := m.Int64Counter(name, metric.WithUnit(unit), metric.WithDescription(desc))
		errs = append(errs, err)
		return c
	}
	var i instruments
	i.request = hist("gocurator.request.duration", "Duration of requests to ZooKeeper, from their hand-over to the connection to their answer or error.", latencyBuckets())
	i.operation = hist("gocurator.operation.duration", "Duration of client operations, their retries included.", latencyBuckets())
	i.stateTime = hist("gocurator.connection.state.duration", "How long the connection stayed in a state before it left it.", longBuckets())
	i.acquire = hist("gocurator.lock.acquire.duration", "Duration of lock and semaphore acquires, from the call to its return.", longBuckets())
	i.hold = hist("gocurator.lock.hold.duration", "How long holds lasted, from the acquire's return to their release or loss.", longBuckets())
	i.term = hist("gocurator.leader.term.duration", "Length of leadership terms.", longBuckets())
	i.gap = hist("gocurator.leader.gap.duration", "How long a participant saw the election without a leader before it began a term.", longBuckets())
	i.resync = hist("gocurator.cache.resync.duration", "Duration of caches' full reads.", longBuckets())
	i.stale = hist("gocurator.cache.stale.duration", "Spans during which a cache could not be sure of its copy.", longBuckets())
	i.io = count("gocurator.network.io", "By", "Bytes of request and reply frames on the wire.")
	i.retries = count("gocurator.retry.decisions", "{decision}", "Retry decisions after failed attempts: retry, or give up.")
	i.transitions = count("gocurator.connection.transitions", "{transition}", "Connection state changes, by the state entered.")
	i.sessionLoss = count("gocurator.session.losses", "{loss}", "Sessions lost, by cause: expired, timeout, replaced.")
	i.losses = count("gocurator.lock.losses", "{loss}", "Holds lost before their release, by cause.")
	i.cacheChanges = count("gocurator.cache.changes", "{change}", "Changes caches applied.")
	i.resyncChanges = count("gocurator.cache.resync.changes", "{change}", "Changes caches found by a resync.")
	i.cacheDropped = count("gocurator.cache.dropped", "{event}", "Events a cache's listener missed by falling behind.")
	i.trySets = count("gocurator.shared.try_sets", "{attempt}", "Shared values' compare-and-sets, conflicting or not.")
	var err error
	i.leading, err = m.Int64UpDownCounter("gocurator.leader.terms", metric.WithUnit("{term}"), metric.WithDescription("Leadership terms under way."))
	errs = append(errs, err)
	i.cacheNodes, err = m.Int64Gauge("gocurator.cache.nodes", metric.WithUnit("{node}"), metric.WithDescription("Nodes a cache holds."))
	errs = append(errs, err)
	return i, errors.Join(errs...)
}

// OnRequest records a request's duration, outcome and bytes.
func (h *Hook) OnRequest(e observe.Request) {
	h.note(heard{start: e.Time, end: e.Time.Add(e.Latency), op: e.Op, path: e.Path, err: e.Err})
	h.m.request.Record(context.Background(), e.Latency.Seconds(), h.opt(attrKey{fam: famOp, a: e.Op, b: errclass.Of(e.Err)}).rec...)
	h.m.io.Add(context.Background(), int64(e.BytesOut), h.opt(attrKey{fam: famIO, a: "transmit"}).add...)
	if e.BytesIn > 0 {
		h.m.io.Add(context.Background(), int64(e.BytesIn), h.opt(attrKey{fam: famIO, a: "receive"}).add...)
	}
}

// OnOperation records an operation's duration and outcome, and its span if
// WithSpans names it.
func (h *Hook) OnOperation(e observe.Operation) {
	h.m.operation.Record(context.Background(), e.Latency.Seconds(), h.opt(attrKey{fam: famOp, a: e.Op, b: errclass.Of(e.Err)}).rec...)
	if h.spans[e.Op] {
		h.operationSpan(e)
	}
}

// OnRetry counts a retry decision.
func (h *Hook) OnRetry(e observe.Retry) {
	decision := "retry"
	if e.GaveUp {
		decision = "give_up"
	}
	h.note(heard{start: e.Time, end: e.Time, op: e.Op, path: e.Path, err: e.Err, retry: true, attempt: e.Attempt, sleep: e.Sleep, gaveUp: e.GaveUp})
	h.m.retries.Add(context.Background(), 1, h.opt(attrKey{fam: famRetry, a: e.Op, b: errclass.Of(e.Err), c: decision}).add...)
}

// OnState counts a connection state change, records how long the state
// before it lasted, and counts a lost session by its cause.
func (h *Hook) OnState(e observe.State) {
	h.m.transitions.Add(context.Background(), 1, h.opt(attrKey{fam: famState, a: stateName(e.State)}).add...)
	if e.Previous != 0 {
		h.m.stateTime.Record(context.Background(), e.InPrevious.Seconds(), h.opt(attrKey{fam: famState, a: stateName(e.Previous)}).rec...)
	}
	if e.State == listener.Lost {
		h.m.sessionLoss.Add(context.Background(), 1, h.opt(attrKey{fam: famSessionLoss, a: e.Cause}).add...)
	}
}

// stateName is s as an attribute value.
func stateName(s listener.ConnectionState) string {
	switch s {
	case listener.Connected:
		return "connected"
	case listener.Suspended:
		return "suspended"
	case listener.Reconnected:
		return "reconnected"
	case listener.Lost:
		return "lost"
	case listener.ReadOnly:
		return "read_only"
	}
	return "unknown"
}

// OnAcquire records an acquire's wait and outcome, and its span.
func (h *Hook) OnAcquire(e observe.Acquire) {
	h.m.acquire.Record(context.Background(), e.Wait.Seconds(), h.opt(attrKey{fam: famAcquire, a: e.Recipe, b: e.Label, c: e.Outcome.String()}).rec...)
	if h.spans["lock.acquire"] {
		h.acquireSpan(e)
	}
}

// OnRelease records a hold's length, and its span; a release that failed
// ends it as release_failed.
func (h *Hook) OnRelease(e observe.Release) {
	end := "released"
	if e.Err != nil {
		end = "release_failed"
	}
	h.m.hold.Record(context.Background(), e.Held.Seconds(), h.opt(attrKey{fam: famHold, a: e.Recipe, b: e.Label, c: end}).rec...)
	if h.spans["lock.hold"] {
		h.holdSpan(e.Recipe, e.Label, e.Path, e.Time, e.Held, end, e.Err)
	}
}

// OnLoss records a lost hold's length, counts the loss by its cause, and
// records its span.
func (h *Hook) OnLoss(e observe.Loss) {
	h.m.hold.Record(context.Background(), e.Held.Seconds(), h.opt(attrKey{fam: famHold, a: e.Recipe, b: e.Label, c: "lost"}).rec...)
	h.m.losses.Add(context.Background(), 1, h.opt(attrKey{fam: famCause, a: e.Recipe, b: e.Label, c: errclass.Cause(e.Cause)}).add...)
	if h.spans["lock.hold"] {
		h.holdSpan(e.Recipe, e.Label, e.Path, e.Time, e.Held, "lost", e.Cause)
	}
}

// OnTermStart counts a term under way, and records the gap before it.
func (h *Hook) OnTermStart(e observe.TermStart) {
	h.m.leading.Add(context.Background(), 1, h.opt(attrKey{fam: famRecipe, a: e.Recipe, b: e.Label}).add...)
	if e.Gap > 0 {
		h.m.gap.Record(context.Background(), e.Gap.Seconds(), h.opt(attrKey{fam: famRecipe, a: e.Recipe, b: e.Label}).rec...)
	}
	h.mu.Lock()
	h.gaps[termKey{e.Recipe, e.Path, e.ID}] = e.Gap.Seconds()
	h.mu.Unlock()
}

// OnTermEnd records a term's length and why it ended, and its span.
func (h *Hook) OnTermEnd(e observe.TermEnd) {
	h.m.leading.Add(context.Background(), -1, h.opt(attrKey{fam: famRecipe, a: e.Recipe, b: e.Label}).add...)
	h.m.term.Record(context.Background(), e.Length.Seconds(), h.opt(attrKey{fam: famCause, a: e.Recipe, b: e.Label, c: errclass.Cause(e.Cause)}).rec...)
	if h.spans["leader.term"] {
		h.termSpan(e)
	}
}

// OnCacheChange counts a cache's change and sets its size.
func (h *Hook) OnCacheChange(e observe.CacheChange) {
	h.m.cacheChanges.Add(context.Background(), 1, h.opt(attrKey{fam: famCacheChange, a: e.Label, b: e.Type}).add...)
	h.m.cacheNodes.Record(context.Background(), int64(e.Nodes), h.opt(attrKey{fam: famLabel, a: e.Label}).rec...)
}

// OnCacheResync records a cache's full read, the changes it found, and
// sets its size.
func (h *Hook) OnCacheResync(e observe.CacheResync) {
	initial := "false"
	if e.Initial {
		initial = "true"
	}
	h.m.resync.Record(context.Background(), e.Duration.Seconds(), h.opt(attrKey{fam: famResync, a: e.Label, b: initial}).rec...)
	h.m.resyncChanges.Add(context.Background(), int64(e.Changes), h.opt(attrKey{fam: famLabel, a: e.Label}).add...)
	h.m.cacheNodes.Record(context.Background(), int64(e.Nodes), h.opt(attrKey{fam: famLabel, a: e.Label}).rec...)
}

// OnCacheStale records a span a cache was stale.
func (h *Hook) OnCacheStale(e observe.CacheStale) {
	h.m.stale.Record(context.Background(), e.Duration.Seconds(), h.opt(attrKey{fam: famLabel, a: e.Label}).rec...)
}

// OnCacheOverflow counts the events a listener missed.
func (h *Hook) OnCacheOverflow(e observe.CacheOverflow) {
	h.m.cacheDropped.Add(context.Background(), int64(e.Dropped), h.opt(attrKey{fam: famLabel, a: e.Label}).add...)
}

// OnTrySet counts a compare-and-set, and whether it conflicted.
func (h *Hook) OnTrySet(e observe.TrySet) {
	conflict := "false"
	if e.Conflict {
		conflict = "true"
	}
	h.m.trySets.Add(context.Background(), 1, h.opt(attrKey{fam: famTrySet, a: e.Recipe, b: e.Label, c: conflict}).add...)
}
