package prometheus

import (
	"errors"
	"fmt"

	prom "github.com/prometheus/client_golang/prometheus"

	"github.com/gocurator/curator/internal/errclass"
	"github.com/gocurator/curator/listener"
	"github.com/gocurator/curator/observe"
)

// Hook turns what gocurator clients and their recipes report into
// Prometheus metrics. It implements every hook interface of package
// observe: register it with framework.WithHooks, on one client or on
// several (their figures add up).
type Hook struct {
	request, operation, stateTime           *prom.HistogramVec
	acquire, hold, term, gap, resync, stale *prom.HistogramVec
	transmit, receive                       prom.Counter
	retries, transitions, sessionLosses     *prom.CounterVec
	losses, cacheChanges, resyncChanges     *prom.CounterVec
	cacheDropped, trySets                   *prom.CounterVec
	terms, cacheNodes                       *prom.GaugeVec
}

// Compile-time checks: Hook hears everything observe reports.
var (
	_ observe.RequestHook   = (*Hook)(nil)
	_ observe.OperationHook = (*Hook)(nil)
	_ observe.RetryHook     = (*Hook)(nil)
	_ observe.StateHook     = (*Hook)(nil)
	_ observe.LockHook      = (*Hook)(nil)
	_ observe.LeaderHook    = (*Hook)(nil)
	_ observe.CacheHook     = (*Hook)(nil)
	_ observe.SharedHook    = (*Hook)(nil)
)

// Bucket boundaries, in seconds: a request's or operation's latency on a
// LAN is sub-millisecond to seconds; a lock's wait, a hold, a term or a
// stale span can last minutes.
func latencyBuckets() []float64 {
	return []float64{0.0001, 0.00025, 0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10}
}

func longBuckets() []float64 {
	return []float64{0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 120, 300, 600, 1800, 3600}
}

// New registers the Hook's collectors on reg and returns the Hook. A second
// Hook on the same reg shares the first one's collectors.
func New(reg prom.Registerer) (*Hook, error) {
	if reg == nil {
		return nil, errors.New("prometheus hook: nil Registerer")
	}
	var errs []error
	register := func(c prom.Collector) prom.Collector {
		if err := reg.Register(c); err != nil {
			if already, ok := errors.AsType[prom.AlreadyRegisteredError](err); ok {
				return already.ExistingCollector
			}
			errs = append(errs, err)
		}
		return c
	}
	hist := func(name, help string, buckets []float64, labels ...string) *prom.HistogramVec {
		v := prom.NewHistogramVec(prom.HistogramOpts{Name: name, Help: help, Buckets: buckets}, labels)
		c, ok := register(v).(*prom.HistogramVec)
		if !ok {
			errs = append(errs, fmt.Errorf("%s is registered as another kind of collector", name))
			return v
		}
		return c
	}
	counter := func(name, help string, labels ...string) *prom.CounterVec {
		v := prom.NewCounterVec(prom.CounterOpts{Name: name, Help: help}, labels)
		c, ok := register(v).(*prom.CounterVec)
		if !ok {
			errs = append(errs, fmt.Errorf("%s is registered as another kind of collector", name))
			return v
		}
		return c
	}
	gauge := func(name, help string, labels ...string) *prom.GaugeVec {
		v := prom.NewGaugeVec(prom.GaugeOpts{Name: name, Help: help}, labels)
		c, ok := register(v).(*prom.GaugeVec)
		if !ok {
			errs = append(errs, fmt.Errorf("%s is registered as another kind of collector", name))
			return v
		}
		return c
	}
	h := &Hook{
		request:       hist("gocurator_request_duration_seconds", "Duration of requests to ZooKeeper, from their hand-over to the connection to their answer or error.", latencyBuckets(), "op", "result"),
		operation:     hist("gocurator_operation_duration_seconds", "Duration of client operations, their retries included.", latencyBuckets(), "op", "result"),
		stateTime:     hist("gocurator_connection_state_duration_seconds", "How long the connection stayed in a state before it left it.", longBuckets(), "state"),
		acquire:       hist("gocurator_lock_acquire_duration_seconds", "Duration of lock and semaphore acquires, from the call to its return.", longBuckets(), "recipe", "label", "outcome"),
		hold:          hist("gocurator_lock_hold_duration_seconds", "How long holds lasted, from the acquire's return to their release or loss.", longBuckets(), "recipe", "label", "end"),
		term:          hist("gocurator_leader_term_duration_seconds", "Length of leadership terms, by why they ended.", longBuckets(), "recipe", "label", "cause"),
		gap:           hist("gocurator_leader_gap_duration_seconds", "How long a participant saw the election without a leader before it began a term.", longBuckets(), "recipe", "label"),
		resync:        hist("gocurator_cache_resync_duration_seconds", "Duration of caches' full reads.", longBuckets(), "label", "initial"),
		stale:         hist("gocurator_cache_stale_duration_seconds", "Spans during which a cache could not be sure of its copy.", longBuckets(), "label"),
		retries:       counter("gocurator_retry_decisions_total", "Retry decisions after failed attempts: retry, or give_up.", "op", "result", "decision"),
		transitions:   counter("gocurator_connection_transitions_total", "Connection state changes, by the state entered.", "state"),
		sessionLosses: counter("gocurator_session_losses_total", "Sessions lost, by cause: expired, timeout, replaced.", "cause"),
		losses:        counter("gocurator_lock_losses_total", "Holds lost before their release, by cause.", "recipe", "label", "cause"),
		cacheChanges:  counter("gocurator_cache_changes_total", "Changes caches applied, by type.", "label", "type"),
		resyncChanges: counter("gocurator_cache_resync_changes_total", "Changes caches found by a resync.", "label"),
		cacheDropped:  counter("gocurator_cache_dropped_events_total", "Events a cache's listener missed by falling behind.", "label"),
		trySets:       counter("gocurator_shared_try_sets_total", "Shared values' compare-and-sets, by result: ok or conflict.", "recipe", "label", "result"),
		terms:         gauge("gocurator_leader_terms", "Leadership terms under way.", "recipe", "label"),
		cacheNodes:    gauge("gocurator_cache_nodes", "Nodes a cache holds.", "label"),
	}
	io := counter("gocurator_network_bytes_total", "Bytes of request and reply frames on the wire, by direction: transmit or receive.", "direction")
	h.transmit, h.receive = io.WithLabelValues("transmit"), io.WithLabelValues("receive")
	if err := errors.Join(errs...); err != nil {
		return nil, fmt.Errorf("prometheus hook: %w", err)
	}
	return h, nil
}

// result is an operation's or request's result label: ok, or its error's
// class.
func result(err error) string {
	if err == nil {
		return "ok"
	}
	return errclass.Of(err)
}

// OnRequest records a request's duration, result and bytes.
func (h *Hook) OnRequest(e observe.Request) {
	h.request.WithLabelValues(e.Op, result(e.Err)).Observe(e.Latency.Seconds())
	h.transmit.Add(float64(e.BytesOut))
	h.receive.Add(float64(e.BytesIn))
}

// OnOperation records an operation's duration and result.
func (h *Hook) OnOperation(e observe.Operation) {
	h.operation.WithLabelValues(e.Op, result(e.Err)).Observe(e.Latency.Seconds())
}

// OnRetry counts a retry decision.
func (h *Hook) OnRetry(e observe.Retry) {
	decision := "retry"
	if e.GaveUp {
		decision = "give_up"
	}
	h.retries.WithLabelValues(e.Op, result(e.Err), decision).Inc()
}

// OnState counts a connection state change, records how long the state
// before it lasted, and counts a lost session by its cause.
func (h *Hook) OnState(e observe.State) {
	h.transitions.WithLabelValues(stateName(e.State)).Inc()
	if e.Previous != 0 {
		h.stateTime.WithLabelValues(stateName(e.Previous)).Observe(e.InPrevious.Seconds())
	}
	if e.State == listener.Lost {
		h.sessionLosses.WithLabelValues(e.Cause).Inc()
	}
}

// stateName is s as a label value.
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

// OnAcquire records an acquire's wait and outcome.
func (h *Hook) OnAcquire(e observe.Acquire) {
	h.acquire.WithLabelValues(e.Recipe, e.Label, e.Outcome.String()).Observe(e.Wait.Seconds())
}

// OnRelease records a hold's length; a release that failed ends it as
// release_failed.
func (h *Hook) OnRelease(e observe.Release) {
	end := "released"
	if e.Err != nil {
		end = "release_failed"
	}
	h.hold.WithLabelValues(e.Recipe, e.Label, end).Observe(e.Held.Seconds())
}

// OnLoss records a lost hold's length and counts the loss by its cause.
func (h *Hook) OnLoss(e observe.Loss) {
	h.hold.WithLabelValues(e.Recipe, e.Label, "lost").Observe(e.Held.Seconds())
	h.losses.WithLabelValues(e.Recipe, e.Label, errclass.Cause(e.Cause)).Inc()
}

// OnTermStart counts a term under way, and records the gap before it.
func (h *Hook) OnTermStart(e observe.TermStart) {
	h.terms.WithLabelValues(e.Recipe, e.Label).Inc()
	if e.Gap > 0 {
		h.gap.WithLabelValues(e.Recipe, e.Label).Observe(e.Gap.Seconds())
	}
}

// OnTermEnd records a term's length and why it ended (none: its
// participant closed it cleanly).
func (h *Hook) OnTermEnd(e observe.TermEnd) {
	h.terms.WithLabelValues(e.Recipe, e.Label).Dec()
	cause := "none"
	if e.Cause != nil {
		cause = errclass.Cause(e.Cause)
	}
	h.term.WithLabelValues(e.Recipe, e.Label, cause).Observe(e.Length.Seconds())
}

// OnCacheChange counts a cache's change and sets its size.
func (h *Hook) OnCacheChange(e observe.CacheChange) {
	h.cacheChanges.WithLabelValues(e.Label, e.Type).Inc()
	h.cacheNodes.WithLabelValues(e.Label).Set(float64(e.Nodes))
}

// OnCacheResync records a cache's full read, the changes it found, and
// sets its size.
func (h *Hook) OnCacheResync(e observe.CacheResync) {
	initial := "false"
	if e.Initial {
		initial = "true"
	}
	h.resync.WithLabelValues(e.Label, initial).Observe(e.Duration.Seconds())
	h.resyncChanges.WithLabelValues(e.Label).Add(float64(e.Changes))
	h.cacheNodes.WithLabelValues(e.Label).Set(float64(e.Nodes))
}

// OnCacheStale records a span a cache was stale.
func (h *Hook) OnCacheStale(e observe.CacheStale) {
	h.stale.WithLabelValues(e.Label).Observe(e.Duration.Seconds())
}

// OnCacheOverflow counts the events a listener missed.
func (h *Hook) OnCacheOverflow(e observe.CacheOverflow) {
	h.cacheDropped.WithLabelValues(e.Label).Add(float64(e.Dropped))
}

// OnTrySet counts a compare-and-set by its result.
func (h *Hook) OnTrySet(e observe.TrySet) {
	r := "ok"
	if e.Conflict {
		r = "conflict"
	}
	h.trySets.WithLabelValues(e.Recipe, e.Label, r).Inc()
}
