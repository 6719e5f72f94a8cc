package main

import (
	"fmt"
	"maps"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/gocurator/curator/observe"
)

// tally is the demo's hook: every client of the demo reports to it
// (framework.WithHooks), and it prints a summary of the run at the end. It
// is the smallest hook worth writing: counters behind a mutex, as each
// client calls it from a goroutine of its own.
type tally struct {
	mu                sync.Mutex
	requests          map[string]int // by ZooKeeper operation
	failed            int            // requests answered with an error
	bytesOut, bytesIn int
	retries           int
	states            map[string]int
	acquires          map[string]int // by outcome
	maxWait           time.Duration
	losses            []string // causes
	terms             int
	termEnds          []string
	changes, resyncs  int
	trySets, conflict int
}

func newTally() *tally {
	return &tally{requests: map[string]int{}, states: map[string]int{}, acquires: map[string]int{}}
}

func (t *tally) OnRequest(e observe.Request) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.requests[e.Op]++
	if e.Err != nil {
		t.failed++
	}
	t.bytesOut += e.BytesOut
	t.bytesIn += e.BytesIn
}

func (t *tally) OnRetry(e observe.Retry) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if !e.GaveUp {
		t.retries++
	}
}

func (t *tally) OnState(e observe.State) {
	t.mu.Lock()
	defer t.mu.Unlock()
	name := e.State.String()
	if e.Cause != "" {
		name += " (" + e.Cause + ")"
	}
	t.states[name]++
}

func (t *tally) OnAcquire(e observe.Acquire) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.acquires[e.Outcome.String()]++
	t.maxWait = max(t.maxWait, e.Wait)
}

func (t *tally) OnRelease(observe.Release) {}

func (t *tally) OnLoss(e observe.Loss) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.losses = append(t.losses, fmt.Sprint(e.Cause))
}

func (t *tally) OnTermStart(observe.TermStart) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.terms++
}

func (t *tally) OnTermEnd(e observe.TermEnd) {
	t.mu.Lock()
	defer t.mu.Unlock()
	cause := "closed"
	if e.Cause != nil {
		cause = e.Cause.Error()
	}
	t.termEnds = append(t.termEnds, cause)
}

func (t *tally) OnCacheChange(observe.CacheChange) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.changes++
}

func (t *tally) OnCacheResync(observe.CacheResync) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.resyncs++
}

func (t *tally) OnCacheStale(observe.CacheStale)       {}
func (t *tally) OnCacheOverflow(observe.CacheOverflow) {}

func (t *tally) OnTrySet(e observe.TrySet) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.trySets++
	if e.Conflict {
		t.conflict++
	}
}

// print writes the summary. The clients must have been closed: a client's
// Close delivers its last events first.
func (t *tally) print() {
	t.mu.Lock()
	defer t.mu.Unlock()
	total := 0
	for _, n := range t.requests {
		total += n
	}
	fmt.Println("\n== what the hooks saw (observe; docs/observability.md) ==")
	fmt.Printf("requests:     %d (%s), %d refused or failed (a missing node an exists found, a node already there, ...); %d bytes out, %d in\n",
		total, counts(t.requests), t.failed, t.bytesOut, t.bytesIn)
	fmt.Printf("retries:      %d\n", t.retries)
	fmt.Printf("states:       %s\n", counts(t.states))
	fmt.Printf("lock acquires: %s; longest wait %v\n", counts(t.acquires), t.maxWait.Round(time.Millisecond))
	fmt.Printf("holds lost:   %d%s\n", len(t.losses), causes(t.losses))
	fmt.Printf("leadership:   %d terms began, %d ended%s\n", t.terms, len(t.termEnds), causes(t.termEnds))
	fmt.Printf("caches:       %d changes applied, %d loads and resyncs\n", t.changes, t.resyncs)
	fmt.Printf("try-sets:     %d, %d refused by a conflict\n", t.trySets, t.conflict)
}

// counts prints a map's counts, by key.
func counts(m map[string]int) string {
	if len(m) == 0 {
		return "none"
	}
	var parts []string
	for _, k := range slices.Sorted(maps.Keys(m)) {
		parts = append(parts, fmt.Sprintf("%s %d", k, m[k]))
	}
	return strings.Join(parts, ", ")
}

// causes prints distinct causes with their counts, in brackets.
func causes(cs []string) string {
	if len(cs) == 0 {
		return ""
	}
	m := map[string]int{}
	for _, c := range cs {
		m[c]++
	}
	return " [" + counts(m) + "]"
}
