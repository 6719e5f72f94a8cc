package otel

import (
	"context"
	"path"
	"strings"
	"time"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/trace"

	"github.com/gocurator/curator/internal/errclass"
	"github.com/gocurator/curator/observe"
)

// The spans. An event reaches a hook after the fact, with its time and its
// duration, so each span is made whole when its event comes: started at its
// start (trace.WithTimestamp) and ended at once at its end.
//
//	gocurator.lock.acquire  an acquire, from its call to its return
//	gocurator.lock.hold     a hold, from the acquire's return to its release or loss (not by default)
//	gocurator.leader.term   a leadership term
//	gocurator.<op>          a client operation (by default gocurator.txn alone)
//
// WithSpans chooses among them.
//
// The requests a span's work sent, and the retry decisions it took, are
// events of the span (gocurator.request, gocurator.retry), at their own
// times: a request is a leaf with nothing under it, and an event keeps a
// trace to one span per acquire instead of four or five. An event carries no
// context to parent a span by, so the Hook finds a span's requests among
// its client's last recentSize by time and path: those that began and ended
// within the span, on its path or under it (an operation's also beside it,
// where a protected create's node is). A term gets none: it outlasts the
// recent requests. The spans are roots: they are not linked to the caller's
// trace.

// recentSize is how many of its client's last requests and retry decisions
// a Hook keeps to find a span's.
const recentSize = 512

// heard is a request or a retry decision, as a span's event.
type heard struct {
	start, end time.Time
	op, path   string
	err        error
	retry      bool // a retry decision: attempt, sleep and gaveUp are set
	attempt    int
	sleep      time.Duration
	gaveUp     bool
}

// ring holds the last recentSize things heard.
type ring struct {
	buf [recentSize]heard
	n   int // how many were ever added
}

// note adds x to the recent things heard.
func (h *Hook) note(x heard) {
	h.mu.Lock()
	h.recent.buf[h.recent.n%recentSize] = x
	h.recent.n++
	h.mu.Unlock()
}

// addEvents adds to s, oldest first, the recent things heard that began at
// or after start and ended by end, and that match keeps. h.mu is held.
func (h *Hook) addEvents(s trace.Span, start, end time.Time, match func(*heard) bool) {
	r := &h.recent
	var buf [16]int
	found := buf[:0]
	for i := r.n - 1; i >= 0 && i >= r.n-recentSize; i-- {
		x := &r.buf[i%recentSize]
		if x.end.Before(start) {
			break // heard in the order they ended
		}
		if !x.start.Before(start) && !x.end.After(end) && match(x) {
			found = append(found, i)
		}
	}
	for j := len(found) - 1; j >= 0; j-- {
		x := &r.buf[found[j]%recentSize]
		attrs := make([]attribute.KeyValue, 2, 6)
		attrs[0], attrs[1] = keyOperation.String(x.op), keyPath.String(x.path)
		if c := errclass.Of(x.err); c != "" {
			attrs = append(attrs, keyErrorType.String(c))
		}
		name := "gocurator.request"
		if x.retry {
			name = "gocurator.retry"
			decision := "retry"
			if x.gaveUp {
				decision = "give_up"
			}
			attrs = append(attrs, keyAttempt.Int(x.attempt), keySleep.Float64(x.sleep.Seconds()), keyRetryDecision.String(decision))
		} else {
			attrs = append(attrs, keyDuration.Float64(x.end.Sub(x.start).Seconds()))
		}
		s.AddEvent(name, trace.WithTimestamp(x.start), trace.WithAttributes(attrs...))
	}
}

// under reports whether p is dir or beneath it.
func under(p, dir string) bool {
	return p == dir || strings.HasPrefix(p, dir) && (dir == "/" || len(p) > len(dir) && p[len(dir)] == '/')
}

// span records one span from start to end, with the recent requests that
// match as its events (none if match is nil), and err as its status when
// failed says so.
func (h *Hook) span(name string, kind trace.SpanKind, start, end time.Time, attrs []attribute.KeyValue, match func(*heard) bool, err error, failed bool) {
	_, s := h.tracer.Start(context.Background(), name, trace.WithTimestamp(start), trace.WithSpanKind(kind), trace.WithAttributes(attrs...))
	if !s.IsRecording() {
		s.End(trace.WithTimestamp(end))
		return
	}
	if match != nil {
		h.mu.Lock()
		h.addEvents(s, start, end, match)
		h.mu.Unlock()
	}
	if err != nil {
		s.SetAttributes(keyErrorType.String(errclass.Of(err)))
		if failed {
			s.SetStatus(codes.Error, err.Error())
		}
	}
	s.End(trace.WithTimestamp(end))
}

// recipeAttrs are a recipe's span attributes.
func recipeAttrs(recipe, label, path string, more ...attribute.KeyValue) []attribute.KeyValue {
	attrs := append(make([]attribute.KeyValue, 0, 5+len(more)), keyRecipe.String(recipe), keyPath.String(path))
	if label != "" {
		attrs = append(attrs, keyLabel.String(label))
	}
	return append(attrs, more...)
}

// acquireSpan records an acquire (Time is its call, Wait its length). Only
// a failed or refused acquire is an error: a busy lock, a deadline or a
// cancel is the caller's choice.
func (h *Hook) acquireSpan(e observe.Acquire) {
	failed := e.Outcome == observe.Failed || e.Outcome == observe.Refused
	attrs := recipeAttrs(e.Recipe, e.Label, e.Path, keyOutcome.String(e.Outcome.String()))
	h.span("gocurator.lock.acquire", trace.SpanKindInternal, e.Time, e.Time.Add(e.Wait), attrs,
		func(x *heard) bool { return under(x.path, e.Path) }, e.Err, failed)
}

// holdSpan records a hold that ended at end after held: released,
// release_failed (err says why) or lost (err says why).
func (h *Hook) holdSpan(recipe, label, lockPath string, end time.Time, held time.Duration, how string, err error) {
	attrs := recipeAttrs(recipe, label, lockPath, keyHoldEnd.String(how))
	if how == "lost" {
		attrs = append(attrs, keyCause.String(errclass.Cause(err)))
	}
	h.span("gocurator.lock.hold", trace.SpanKindInternal, end.Add(-held), end, attrs,
		func(x *heard) bool { return under(x.path, lockPath) }, err, true)
}

// termSpan records a leadership term that ended at e.Time. It is an error
// when the term was lost, not ended by its own participant.
func (h *Hook) termSpan(e observe.TermEnd) {
	h.mu.Lock()
	k := termKey{e.Recipe, e.Path, e.ID}
	gap, ok := h.gaps[k]
	delete(h.gaps, k)
	h.mu.Unlock()
	attrs := recipeAttrs(e.Recipe, e.Label, e.Path, keyLeaderID.String(e.ID))
	if ok {
		attrs = append(attrs, keyGap.Float64(gap))
	}
	cause := errclass.Cause(e.Cause)
	if cause != "" {
		attrs = append(attrs, keyCause.String(cause))
	}
	failed := cause != "" && cause != "closed" && cause != "resigned" && cause != "interrupted"
	h.span("gocurator.leader.term", trace.SpanKindInternal, e.Time.Add(-e.Length), e.Time, attrs, nil, e.Cause, failed)
}

// termKey names a term under way.
type termKey struct{ recipe, path, id string }

// operationSpan records an operation (Time is its call, Latency its
// length), with its attempts' requests and its retry decisions.
func (h *Hook) operationSpan(e observe.Operation) {
	attrs := []attribute.KeyValue{keyOperation.String(e.Op), keyPath.String(e.Path), keyAttempts.Int(e.Attempts)}
	dir := path.Dir(e.Path)
	h.span("gocurator."+e.Op, trace.SpanKindClient, e.Time, e.Time.Add(e.Latency), attrs, func(x *heard) bool {
		if x.retry {
			return x.op == e.Op && x.path == e.Path
		}
		return under(x.path, e.Path) || path.Dir(x.path) == dir
	}, e.Err, true)
}
