package otel

import (
	"fmt"
	"sync"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/metric"
	"go.opentelemetry.io/otel/trace"

	global "go.opentelemetry.io/otel"

	"github.com/gocurator/curator/observe"
)

// ScopeName is the instrumentation scope of the Hook's meter and tracer.
const ScopeName = "github.com/gocurator/curator/otel"

// Hook turns what a gocurator client and its recipes report into
// OpenTelemetry metrics and spans. It implements every hook interface of
// package observe: register it with framework.WithHooks.
//
// Give each client a Hook of its own: a span gathers the requests of the
// Hook's client that ran within it, and a Hook shared by clients working on
// the same paths at the same time would gather the others' too. The
// metrics are the same either way: Hooks made from one MeterProvider add up
// in the same streams.
type Hook struct {
	tracer trace.Tracer
	spans  map[string]bool // the spans recorded (WithSpans)
	m      instruments

	mu     sync.Mutex
	attrs  map[attrKey]*options // built attribute sets
	recent ring                 // the client's last requests and retry decisions
	gaps   map[termKey]float64  // the gap before each term under way, in seconds
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

// Option configures a Hook.
type Option func(*config)

type config struct {
	meters  metric.MeterProvider
	tracers trace.TracerProvider
	spans   []string
}

// WithMeterProvider sets where the metrics go; the default is the global
// MeterProvider (otel.GetMeterProvider).
func WithMeterProvider(p metric.MeterProvider) Option {
	return func(c *config) { c.meters = p }
}

// WithTracerProvider sets where the spans go; the default is the global
// TracerProvider (otel.GetTracerProvider).
func WithTracerProvider(p trace.TracerProvider) Option {
	return func(c *config) { c.tracers = p }
}

// WithSpans names the spans the Hook records, in place of the default
// "lock.acquire", "leader.term" and "txn": any of "lock.acquire",
// "lock.hold", "leader.term", and client operations ("txn", "create",
// "get", "delete", ...), each recorded as gocurator.NAME. With none, the
// Hook records no span. A span costs the SDK's making and exporting it
// (about 10 µs of CPU with every span sampled, docs/observability.md);
// one its sampler drops costs little.
func WithSpans(names ...string) Option {
	return func(c *config) { c.spans = names }
}

// New returns a Hook. It fails only if the MeterProvider refuses an
// instrument.
func New(opts ...Option) (*Hook, error) {
	c := config{spans: []string{"lock.acquire", "leader.term", "txn"}}
	for _, o := range opts {
		o(&c)
	}
	if c.meters == nil {
		c.meters = global.GetMeterProvider()
	}
	if c.tracers == nil {
		c.tracers = global.GetTracerProvider()
	}
	m, err := newInstruments(c.meters.Meter(ScopeName))
	if err != nil {
		return nil, fmt.Errorf("otel hook: %w", err)
	}
	h := &Hook{tracer: c.tracers.Tracer(ScopeName), spans: map[string]bool{}, m: m,
		attrs: map[attrKey]*options{}, gaps: map[termKey]float64{}}
	for _, name := range c.spans {
		h.spans[name] = true
	}
	return h, nil
}

// attrKey names one attribute set: its family (which attributes) and their
// values.
type attrKey struct {
	fam     family
	a, b, c string
}

type family uint8

const (
	famOp          family = iota // gocurator.operation, error.type
	famIO                        // network.io.direction
	famRetry                     // gocurator.operation, error.type, gocurator.retry.decision
	famState                     // gocurator.connection.state
	famSessionLoss               // gocurator.cause
	famAcquire                   // gocurator.recipe, gocurator.label, gocurator.lock.outcome
	famHold                      // gocurator.recipe, gocurator.label, gocurator.lock.end
	famCause                     // gocurator.recipe, gocurator.label, gocurator.cause
	famRecipe                    // gocurator.recipe, gocurator.label
	famCacheChange               // gocurator.label, gocurator.cache.change
	famLabel                     // gocurator.label
	famResync                    // gocurator.label, gocurator.cache.initial
	famTrySet                    // gocurator.recipe, gocurator.label, gocurator.shared.conflict
)

// options are an attribute set as the options of a Record and of an Add,
// built once: passed as slices, they cost no allocation per measurement.
type options struct {
	rec []metric.RecordOption
	add []metric.AddOption
}

// opt returns k's attribute set's options.
func (h *Hook) opt(k attrKey) *options {
	h.mu.Lock()
	defer h.mu.Unlock()
	o, ok := h.attrs[k]
	if !ok {
		set := metric.WithAttributeSet(attribute.NewSet(k.attributes()...))
		o = &options{rec: []metric.RecordOption{set}, add: []metric.AddOption{set}}
		h.attrs[k] = o
	}
	return o
}

// attributes are k's attributes; an empty label, error or cause is left
// out.
func (k attrKey) attributes() []attribute.KeyValue {
	var kv []attribute.KeyValue
	add := func(key attribute.Key, v string) {
		if v != "" {
			kv = append(kv, key.String(v))
		}
	}
	switch k.fam {
	case famOp, famRetry:
		add(keyOperation, k.a)
		add(keyErrorType, k.b)
		add(keyRetryDecision, k.c)
	case famIO:
		add(keyIODirection, k.a)
	case famState:
		add(keyState, k.a)
	case famSessionLoss:
		add(keyCause, k.a)
	case famAcquire:
		add(keyRecipe, k.a)
		add(keyLabel, k.b)
		add(keyOutcome, k.c)
	case famHold:
		add(keyRecipe, k.a)
		add(keyLabel, k.b)
		add(keyHoldEnd, k.c)
	case famCause:
		add(keyRecipe, k.a)
		add(keyLabel, k.b)
		add(keyCause, k.c)
	case famRecipe:
		add(keyRecipe, k.a)
		add(keyLabel, k.b)
	case famCacheChange:
		add(keyLabel, k.a)
		add(keyCacheChange, k.b)
	case famLabel:
		add(keyLabel, k.a)
	case famResync:
		add(keyLabel, k.a)
		kv = append(kv, keyCacheInitial.Bool(k.b == "true"))
	case famTrySet:
		add(keyRecipe, k.a)
		add(keyLabel, k.b)
		kv = append(kv, keyConflict.Bool(k.c == "true"))
	}
	return kv
}

// The attribute keys (docs/observability.md has the table).
const (
	keyOperation     attribute.Key = "gocurator.operation"
	keyErrorType     attribute.Key = "error.type"
	keyRetryDecision attribute.Key = "gocurator.retry.decision"
	keyIODirection   attribute.Key = "network.io.direction"
	keyState         attribute.Key = "gocurator.connection.state"
	keyCause         attribute.Key = "gocurator.cause"
	keyRecipe        attribute.Key = "gocurator.recipe"
	keyLabel         attribute.Key = "gocurator.label"
	keyOutcome       attribute.Key = "gocurator.lock.outcome"
	keyHoldEnd       attribute.Key = "gocurator.lock.end"
	keyCacheChange   attribute.Key = "gocurator.cache.change"
	keyCacheInitial  attribute.Key = "gocurator.cache.initial"
	keyConflict      attribute.Key = "gocurator.shared.conflict"
	// On spans and span events only: their number has no bound.
	keyPath     attribute.Key = "gocurator.path"
	keyAttempts attribute.Key = "gocurator.attempts"
	keyLeaderID attribute.Key = "gocurator.leader.id"
	keyGap      attribute.Key = "gocurator.leader.gap"
	keyDuration attribute.Key = "gocurator.duration"
	keyAttempt  attribute.Key = "gocurator.retry.attempt"
	keySleep    attribute.Key = "gocurator.retry.sleep"
)
