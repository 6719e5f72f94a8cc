package otel_test

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	sdkmetric "go.opentelemetry.io/otel/sdk/metric"
	"go.opentelemetry.io/otel/sdk/metric/metricdata"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"

	"github.com/gocurator/curator/framework"
	"github.com/gocurator/curator/observe"
	curatorotel "github.com/gocurator/curator/otel"
	"github.com/gocurator/curator/recipes/locks"
	"github.com/gocurator/curator/recipestest"
	"github.com/gocurator/curator/zkharness"
)

// server is the package's shared ZooKeeper.
var server *zkharness.Server

func TestMain(m *testing.M) { recipestest.RunWithServer(m, &server) }

// telemetry is an in-memory OpenTelemetry SDK: a manual metric reader and a
// span recorder.
type telemetry struct {
	reader *sdkmetric.ManualReader
	spans  *tracetest.SpanRecorder
	meters *sdkmetric.MeterProvider
	tracer *sdktrace.TracerProvider
}

func newTelemetry(t *testing.T) *telemetry {
	tel := &telemetry{reader: sdkmetric.NewManualReader(), spans: tracetest.NewSpanRecorder()}
	tel.meters = sdkmetric.NewMeterProvider(sdkmetric.WithReader(tel.reader))
	tel.tracer = sdktrace.NewTracerProvider(sdktrace.WithSpanProcessor(tel.spans))
	t.Cleanup(func() {
		tel.meters.Shutdown(context.Background())
		tel.tracer.Shutdown(context.Background())
	})
	return tel
}

// hook returns a Hook reporting to tel.
func (tel *telemetry) hook(t *testing.T, opts ...curatorotel.Option) *curatorotel.Hook {
	h, err := curatorotel.New(append([]curatorotel.Option{curatorotel.WithMeterProvider(tel.meters), curatorotel.WithTracerProvider(tel.tracer)}, opts...)...)
	if err != nil {
		t.Fatal(err)
	}
	return h
}

// client starts a client on the shared server (or connect, if given) in a
// fresh namespace, reporting to a Hook of its own.
func (tel *telemetry) client(t *testing.T, connect string, opts ...curatorotel.Option) *framework.Client {
	if connect == "" {
		connect = server.ConnectString()
	}
	return recipestest.NewClient(t, connect, framework.WithNamespace(recipestest.Namespace(t)), framework.WithHooks(tel.hook(t, opts...)))
}

// point is one data point of a metric: its attributes, and its count and
// sum (a histogram's) or its value.
type point struct {
	attrs attribute.Set
	count uint64
	sum   float64
	value int64
}

// collect returns every data point of the metric name.
func (tel *telemetry) collect(t *testing.T, name string) (metricdata.Metrics, []point) {
	t.Helper()
	var rm metricdata.ResourceMetrics
	if err := tel.reader.Collect(context.Background(), &rm); err != nil {
		t.Fatal(err)
	}
	for _, sm := range rm.ScopeMetrics {
		for _, m := range sm.Metrics {
			if m.Name != name {
				continue
			}
			var ps []point
			switch d := m.Data.(type) {
			case metricdata.Histogram[float64]:
				for _, p := range d.DataPoints {
					ps = append(ps, point{attrs: p.Attributes, count: p.Count, sum: p.Sum})
				}
			case metricdata.Sum[int64]:
				for _, p := range d.DataPoints {
					ps = append(ps, point{attrs: p.Attributes, value: p.Value})
				}
			case metricdata.Gauge[int64]:
				for _, p := range d.DataPoints {
					ps = append(ps, point{attrs: p.Attributes, value: p.Value})
				}
			default:
				t.Fatalf("%s: unexpected data %T", name, m.Data)
			}
			return m, ps
		}
	}
	return metricdata.Metrics{}, nil
}

// find returns the point of name whose attributes are exactly want
// (key=value pairs), and whether there is one.
func (tel *telemetry) find(t *testing.T, name string, want ...string) (point, bool) {
	t.Helper()
	_, ps := tel.collect(t, name)
	for _, p := range ps {
		if attrText(p.attrs) == strings.Join(want, ",") {
			return p, true
		}
	}
	return point{}, false
}

// attrText is s as sorted key=value pairs.
func attrText(s attribute.Set) string {
	var kv []string
	for _, a := range s.ToSlice() {
		kv = append(kv, string(a.Key)+"="+a.Value.String())
	}
	return strings.Join(kv, ",")
}

// await waits until name has a point with exactly the attributes want for
// which ok holds.
func (tel *telemetry) await(t *testing.T, name string, ok func(point) bool, want ...string) point {
	t.Helper()
	var p point
	recipestest.Eventually(t, fmt.Sprintf("%s{%s}", name, strings.Join(want, ",")), func() (bool, string) {
		var found bool
		p, found = tel.find(t, name, want...)
		_, all := tel.collect(t, name)
		var saw []string
		for _, q := range all {
			saw = append(saw, fmt.Sprintf("{%s} count %d value %d", attrText(q.attrs), q.count, q.value))
		}
		return found && ok(p), strings.Join(saw, "; ")
	})
	return p
}

func count(n uint64) func(point) bool { return func(p point) bool { return p.count == n } }
func value(n int64) func(point) bool  { return func(p point) bool { return p.value == n } }

// ended returns the ended spans named name.
func (tel *telemetry) ended(name string) []sdktrace.ReadOnlySpan {
	var out []sdktrace.ReadOnlySpan
	for _, s := range tel.spans.Ended() {
		if s.Name() == name {
			out = append(out, s)
		}
	}
	return out
}

// attr returns the span attribute key of s, as text.
func attr(s sdktrace.ReadOnlySpan, key string) string {
	for _, a := range s.Attributes() {
		if string(a.Key) == key {
			return a.Value.String()
		}
	}
	return ""
}

func eventAttr(e sdktrace.Event, key string) string {
	for _, a := range e.Attributes {
		if string(a.Key) == key {
			return a.Value.String()
		}
	}
	return ""
}

// noPathAttributes fails if any metric has a path among its attributes.
func (tel *telemetry) noPathAttributes(t *testing.T) {
	t.Helper()
	var rm metricdata.ResourceMetrics
	if err := tel.reader.Collect(context.Background(), &rm); err != nil {
		t.Fatal(err)
	}
	for _, sm := range rm.ScopeMetrics {
		for _, m := range sm.Metrics {
			_, ps := tel.collect(t, m.Name)
			for _, p := range ps {
				for _, a := range p.attrs.ToSlice() {
					if a.Key == "gocurator.path" || strings.Contains(a.Value.String(), "/") {
						t.Errorf("%s has a path among its attributes: %s", m.Name, attrText(p.attrs))
					}
				}
			}
		}
	}
}

// Requests and operations are recorded by operation and error class, in
// seconds, with their bytes; no path is a metric attribute.
func TestRequestsAndOperations(t *testing.T) {
	tel := newTelemetry(t)
	c := tel.client(t, "")
	ctx := recipestest.Context(t)
	if _, err := c.Create(ctx, "/n", []byte("hello")); err != nil {
		t.Fatal(err)
	}
	if _, _, err := c.Get(ctx, "/n"); err != nil {
		t.Fatal(err)
	}
	if _, _, err := c.Get(ctx, "/missing"); !errors.Is(err, framework.ErrNoNode) {
		t.Fatal(err)
	}
	tel.await(t, "gocurator.operation.duration", count(1), "error.type=no_node", "gocurator.operation=get")
	ok := tel.await(t, "gocurator.request.duration", count(1), "gocurator.operation=getData")
	if ok.sum <= 0 || ok.sum > 60 {
		t.Errorf("getData's duration %v s: want seconds, more than 0", ok.sum)
	}
	tel.await(t, "gocurator.request.duration", count(1), "error.type=no_node", "gocurator.operation=getData")
	tel.await(t, "gocurator.operation.duration", count(1), "gocurator.operation=get")
	tel.await(t, "gocurator.operation.duration", count(1), "gocurator.operation=create")
	m, _ := tel.collect(t, "gocurator.request.duration")
	if m.Unit != "s" || m.Description == "" {
		t.Errorf("gocurator.request.duration: unit %q, description %q; want s and a description", m.Unit, m.Description)
	}
	sent, _ := tel.find(t, "gocurator.network.io", "network.io.direction=transmit")
	received, _ := tel.find(t, "gocurator.network.io", "network.io.direction=receive")
	// The reads alone: two getData frames out, a reply with "hello" and a
	// stat and a bare error header in.
	if sent.value < int64(2*(4+8+4+len("/n")+1)) || received.value < int64(4+16+4+len("hello")+68+4+16) {
		t.Errorf("bytes transmitted %d, received %d: fewer than the reads' frames", sent.value, received.value)
	}
	tel.noPathAttributes(t)
}

// A call whose reply is lost is retried: the retry decision is counted by
// operation and error class, and the operation's span (asked for with
// WithSpans) carries both attempts' requests and the decision as
// events.
func TestRetriedCall(t *testing.T) {
	tel := newTelemetry(t)
	proxy := recipestest.StartProxy(t, server.Addr())
	c := tel.client(t, proxy.Addr(), curatorotel.WithSpans("get"))
	ctx := recipestest.Context(t)
	if _, err := c.Create(ctx, "/n", nil); err != nil {
		t.Fatal(err)
	}
	proxy.DropAfter(zkharness.OpGetData)
	if _, _, err := c.Get(ctx, "/n"); err != nil {
		t.Fatal(err)
	}
	tel.await(t, "gocurator.retry.decisions", value(1), "error.type=connection_loss", "gocurator.operation=get", "gocurator.retry.decision=retry")
	tel.await(t, "gocurator.request.duration", count(1), "error.type=connection_loss", "gocurator.operation=getData")
	var spans []sdktrace.ReadOnlySpan
	recipestest.Eventually(t, "the get's span", func() (bool, string) {
		spans = tel.ended("gocurator.get")
		return len(spans) == 1, fmt.Sprint(len(spans), " spans")
	})
	s := spans[0]
	if attr(s, "gocurator.path") != "/n" || attr(s, "gocurator.attempts") != "2" || s.Status().Code == codes.Error {
		t.Errorf("get span %v: want path /n, 2 attempts, no error", s.Attributes())
	}
	var got []string
	for _, e := range s.Events() {
		got = append(got, e.Name+" "+eventAttr(e, "gocurator.operation")+" "+eventAttr(e, "error.type"))
		if e.Time.Before(s.StartTime()) || e.Time.After(s.EndTime()) {
			t.Errorf("event %s at %v outside its span [%v, %v]", e.Name, e.Time, s.StartTime(), s.EndTime())
		}
	}
	want := []string{"gocurator.request getData connection_loss", "gocurator.retry get connection_loss", "gocurator.request getData "}
	if !slices.Equal(got, want) {
		t.Errorf("get span's events %q, want %q", got, want)
	}
}

// A session the server ends is counted as a lost session caused by its
// expiry; the transitions and how long the client was suspended are
// recorded.
func TestSessionExpiry(t *testing.T) {
	tel := newTelemetry(t)
	c := tel.client(t, "")
	if err := c.InjectSessionExpiration(recipestest.Context(t)); err != nil {
		t.Fatal(err)
	}
	tel.await(t, "gocurator.session.losses", value(1), "gocurator.cause=expired")
	tel.await(t, "gocurator.connection.transitions", value(1), "gocurator.connection.state=reconnected")
	for _, s := range []string{"connected", "suspended", "lost"} {
		tel.await(t, "gocurator.connection.transitions", value(1), "gocurator.connection.state="+s)
	}
	// Each state's time, recorded as it was left.
	for _, s := range []string{"connected", "suspended", "lost"} {
		tel.await(t, "gocurator.connection.state.duration", count(1), "gocurator.connection.state="+s)
	}
}

// A contended mutex: acquires by outcome with their waits, holds with their
// lengths, under the recipe and the label; spans for each acquire and
// hold, whose events are the requests they sent, on the lock's path.
func TestLock(t *testing.T) {
	tel := newTelemetry(t)
	ns := recipestest.Namespace(t)
	connect := server.ConnectString()
	spans := curatorotel.WithSpans("lock.acquire", "lock.hold")
	a := recipestest.NewClient(t, connect, framework.WithNamespace(ns), framework.WithHooks(tel.hook(t, spans)))
	b := recipestest.NewClient(t, connect, framework.WithNamespace(ns), framework.WithHooks(tel.hook(t, spans)))
	ctx := recipestest.Context(t)
	ma, _ := locks.NewMutex(a, "/lock", locks.WithLabel("orders"))
	mb, _ := locks.NewMutex(b, "/lock", locks.WithLabel("orders"))
	ha, err := ma.Acquire(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := mb.TryAcquire(ctx); !errors.Is(err, locks.ErrBusy) {
		t.Fatalf("TryAcquire while held: %v", err)
	}
	got := make(chan error, 1)
	go func() {
		hb, err := mb.Acquire(ctx)
		if err == nil {
			err = hb.Release(ctx)
		}
		got <- err
	}()
	// b waits: its node is queued behind a's.
	recipestest.Eventually(t, "b queued", func() (bool, string) {
		kids, _, err := a.Children(ctx, "/lock")
		return err == nil && len(kids) == 2, fmt.Sprint(kids, err)
	})
	if err := ha.Release(ctx); err != nil {
		t.Fatal(err)
	}
	if err := <-got; err != nil {
		t.Fatal(err)
	}
	acquired := tel.await(t, "gocurator.lock.acquire.duration", count(2), "gocurator.label=orders", "gocurator.lock.outcome=acquired", "gocurator.recipe=mutex")
	tel.await(t, "gocurator.lock.acquire.duration", count(1), "gocurator.label=orders", "gocurator.lock.outcome=busy", "gocurator.recipe=mutex")
	held := tel.await(t, "gocurator.lock.hold.duration", count(2), "gocurator.label=orders", "gocurator.lock.end=released", "gocurator.recipe=mutex")
	if acquired.sum <= 0 || held.sum <= 0 {
		t.Errorf("waits %v s and holds %v s: want both above 0", acquired.sum, held.sum)
	}

	recipestest.Eventually(t, "3 acquire spans and 2 hold spans", func() (bool, string) {
		n, m := len(tel.ended("gocurator.lock.acquire")), len(tel.ended("gocurator.lock.hold"))
		return n == 3 && m == 2, fmt.Sprint(n, " acquire spans, ", m, " hold spans")
	})
	var outcomes []string
	for _, s := range tel.ended("gocurator.lock.acquire") {
		outcomes = append(outcomes, attr(s, "gocurator.lock.outcome"))
		if attr(s, "gocurator.path") != "/lock" || attr(s, "gocurator.label") != "orders" || attr(s, "gocurator.recipe") != "mutex" {
			t.Errorf("acquire span's attributes %v", s.Attributes())
		}
		var ops []string
		for _, e := range s.Events() {
			ops = append(ops, eventAttr(e, "gocurator.operation"))
			if p := eventAttr(e, "gocurator.path"); p != "/lock" && !strings.HasPrefix(p, "/lock/") {
				t.Errorf("acquire span's event on %s, not under /lock", p)
			}
			if e.Time.Before(s.StartTime()) || e.Time.After(s.EndTime()) {
				t.Errorf("event %s at %v outside its span [%v, %v]", e.Name, e.Time, s.StartTime(), s.EndTime())
			}
		}
		// Every acquire creates its node and lists the lock's children.
		if !slices.Contains(ops, "create") || !slices.Contains(ops, "getChildren") {
			t.Errorf("%s acquire span's requests %v: want a create and a getChildren", attr(s, "gocurator.lock.outcome"), ops)
		}
		if s.Status().Code == codes.Error {
			t.Errorf("acquire span %s has an error status", attr(s, "gocurator.lock.outcome"))
		}
	}
	slices.Sort(outcomes)
	if !slices.Equal(outcomes, []string{"acquired", "acquired", "busy"}) {
		t.Errorf("acquire spans' outcomes %v", outcomes)
	}
	// The waiter's acquire spans the delete that released the holder's
	// node: it began before, and could only end after.
	var waited, holdA sdktrace.ReadOnlySpan
	for _, s := range tel.ended("gocurator.lock.acquire") {
		if attr(s, "gocurator.lock.outcome") == "acquired" && (waited == nil || s.EndTime().After(waited.EndTime())) {
			waited = s
		}
	}
	for _, s := range tel.ended("gocurator.lock.hold") {
		if holdA == nil || s.StartTime().Before(holdA.StartTime()) {
			holdA = s
		}
	}
	for _, e := range holdA.Events() {
		if eventAttr(e, "gocurator.operation") == "delete" && (!waited.StartTime().Before(e.Time) || !waited.EndTime().After(e.Time)) {
			t.Errorf("the waiter's acquire [%v, %v] does not span the first hold's delete at %v", waited.StartTime(), waited.EndTime(), e.Time)
		}
	}
	for _, s := range tel.ended("gocurator.lock.hold") {
		var ops []string
		for _, e := range s.Events() {
			ops = append(ops, eventAttr(e, "gocurator.operation"))
		}
		if attr(s, "gocurator.lock.end") != "released" || !slices.Contains(ops, "delete") {
			t.Errorf("hold span %v with requests %v: want released, and its node's delete", s.Attributes(), ops)
		}
	}
	tel.noPathAttributes(t)
}

// A hold lost with its session is counted by its cause, and its span ends
// in an error.
func TestLockLoss(t *testing.T) {
	tel := newTelemetry(t)
	c := tel.client(t, "", curatorotel.WithSpans("lock.hold"))
	ctx := recipestest.Context(t)
	m, _ := locks.NewMutex(c, "/lock")
	h, err := m.Acquire(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if err := c.InjectSessionExpiration(ctx); err != nil {
		t.Fatal(err)
	}
	<-h.Lost()
	h.Release(ctx)
	var cause string
	recipestest.Eventually(t, "a loss counted", func() (bool, string) {
		_, ps := tel.collect(t, "gocurator.lock.losses")
		if len(ps) != 1 || ps[0].value != 1 {
			return false, fmt.Sprint(ps)
		}
		v, _ := ps[0].attrs.Value("gocurator.cause")
		cause = v.String()
		return true, ""
	})
	if cause != "connection_loss" && cause != "session_expired" {
		t.Errorf("loss's cause %q: want the suspension or the expiry", cause)
	}
	tel.await(t, "gocurator.lock.hold.duration", count(1), "gocurator.lock.end=lost", "gocurator.recipe=mutex")
	recipestest.Eventually(t, "the lost hold's span", func() (bool, string) {
		return len(tel.ended("gocurator.lock.hold")) == 1, ""
	})
	s := tel.ended("gocurator.lock.hold")[0]
	if attr(s, "gocurator.lock.end") != "lost" || attr(s, "gocurator.cause") != cause || s.Status().Code != codes.Error {
		t.Errorf("lost hold's span %v, status %v: want lost, cause %s, an error", s.Attributes(), s.Status(), cause)
	}
}

// A transaction is a span by default, with its multi request as an event;
// a get is not, nor is a hold.
func TestTxnSpan(t *testing.T) {
	tel := newTelemetry(t)
	c := tel.client(t, "")
	ctx := recipestest.Context(t)
	// The client's first operation creates its namespace's root first.
	if _, _, err := c.Exists(ctx, "/a"); err != nil {
		t.Fatal(err)
	}
	if _, err := c.Txn(ctx, framework.CreateOp("/a", nil, framework.Persistent), framework.CreateOp("/a/b", nil, framework.Persistent)); err != nil {
		t.Fatal(err)
	}
	if _, _, err := c.Get(ctx, "/a"); err != nil {
		t.Fatal(err)
	}
	h, err := locks.NewMutex(c, "/lock")
	if err != nil {
		t.Fatal(err)
	}
	hold, err := h.Acquire(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if err := hold.Release(ctx); err != nil {
		t.Fatal(err)
	}
	tel.await(t, "gocurator.lock.hold.duration", count(1), "gocurator.lock.end=released", "gocurator.recipe=mutex")
	if n := len(tel.ended("gocurator.lock.hold")); n != 0 {
		t.Errorf("%d hold spans by default, want none", n)
	}
	spans := tel.ended("gocurator.txn")
	if len(spans) != 1 || len(tel.ended("gocurator.get")) != 0 {
		t.Fatalf("%d txn spans and %d get spans: want one txn span only", len(spans), len(tel.ended("gocurator.get")))
	}
	s := spans[0]
	if len(s.Events()) != 1 || eventAttr(s.Events()[0], "gocurator.operation") != "multi" || attr(s, "gocurator.path") != "/a" {
		t.Errorf("txn span %v with events %v: want /a and its multi", s.Attributes(), s.Events())
	}
}

// The recipe families whose events the recipes may not report yet (leader
// terms, caches, shared values) are recorded as observe describes them:
// fed to the Hook directly here.
func TestLeaderCacheShared(t *testing.T) {
	tel := newTelemetry(t)
	h := tel.hook(t)
	t0 := time.Now()
	h.OnTermStart(observe.TermStart{Time: t0, Recipe: "latch", Label: "jobs", Path: "/election", ID: "a", Gap: 1500 * time.Millisecond})
	tel.await(t, "gocurator.leader.terms", value(1), "gocurator.label=jobs", "gocurator.recipe=latch")
	h.OnTermEnd(observe.TermEnd{Time: t0.Add(3 * time.Second), Recipe: "latch", Label: "jobs", Path: "/election", ID: "a", Length: 3 * time.Second,
		Cause: fmt.Errorf("lost: %w", framework.ErrSessionExpired)})
	tel.await(t, "gocurator.leader.terms", value(0), "gocurator.label=jobs", "gocurator.recipe=latch")
	term := tel.await(t, "gocurator.leader.term.duration", count(1), "gocurator.cause=session_expired", "gocurator.label=jobs", "gocurator.recipe=latch")
	gap := tel.await(t, "gocurator.leader.gap.duration", count(1), "gocurator.label=jobs", "gocurator.recipe=latch")
	if term.sum != 3 || gap.sum != 1.5 {
		t.Errorf("term %v s, gap %v s: want 3 and 1.5", term.sum, gap.sum)
	}
	s := tel.ended("gocurator.leader.term")[0]
	if !s.StartTime().Equal(t0) || !s.EndTime().Equal(t0.Add(3*time.Second)) || attr(s, "gocurator.leader.id") != "a" || attr(s, "gocurator.leader.gap") != "1.5" || s.Status().Code != codes.Error {
		t.Errorf("term span [%v, %v] %v: want [t0, t0+3s], id a, gap 1.5, an error", s.StartTime(), s.EndTime(), s.Attributes())
	}
	h.OnTermEnd(observe.TermEnd{Time: t0, Recipe: "selector", Path: "/e", Length: time.Second}) // a clean end is no error
	if s := tel.ended("gocurator.leader.term")[1]; s.Status().Code == codes.Error || attr(s, "gocurator.cause") != "" {
		t.Errorf("a cleanly ended term's span: %v, %v", s.Status(), s.Attributes())
	}

	h.OnCacheResync(observe.CacheResync{Time: t0, Label: "config", Initial: true, Nodes: 10, Duration: 20 * time.Millisecond})
	h.OnCacheChange(observe.CacheChange{Time: t0, Label: "config", Type: "created", Path: "/config/x", Nodes: 11})
	h.OnCacheChange(observe.CacheChange{Time: t0, Label: "config", Type: "deleted", Path: "/config/y", Nodes: 10})
	h.OnCacheResync(observe.CacheResync{Time: t0, Label: "config", Nodes: 9, Changes: 3, Duration: 5 * time.Millisecond})
	h.OnCacheStale(observe.CacheStale{Time: t0, Label: "config", Duration: 2 * time.Second})
	h.OnCacheOverflow(observe.CacheOverflow{Time: t0, Label: "config", Dropped: 7})
	tel.await(t, "gocurator.cache.changes", value(1), "gocurator.cache.change=created", "gocurator.label=config")
	tel.await(t, "gocurator.cache.changes", value(1), "gocurator.cache.change=deleted", "gocurator.label=config")
	tel.await(t, "gocurator.cache.nodes", value(9), "gocurator.label=config")
	tel.await(t, "gocurator.cache.resync.duration", count(1), "gocurator.cache.initial=true", "gocurator.label=config")
	tel.await(t, "gocurator.cache.resync.duration", count(1), "gocurator.cache.initial=false", "gocurator.label=config")
	tel.await(t, "gocurator.cache.resync.changes", value(3), "gocurator.label=config")
	stale := tel.await(t, "gocurator.cache.stale.duration", count(1), "gocurator.label=config")
	tel.await(t, "gocurator.cache.dropped", value(7), "gocurator.label=config")
	if stale.sum != 2 {
		t.Errorf("stale for %v s, want 2", stale.sum)
	}

	h.OnTrySet(observe.TrySet{Time: t0, Recipe: "count", Label: "hits", Path: "/hits", Conflict: true})
	h.OnTrySet(observe.TrySet{Time: t0, Recipe: "count", Label: "hits", Path: "/hits"})
	h.OnTrySet(observe.TrySet{Time: t0, Recipe: "count", Label: "hits", Path: "/hits"})
	tel.await(t, "gocurator.shared.try_sets", value(1), "gocurator.label=hits", "gocurator.recipe=count", "gocurator.shared.conflict=true")
	tel.await(t, "gocurator.shared.try_sets", value(2), "gocurator.label=hits", "gocurator.recipe=count", "gocurator.shared.conflict=false")
	tel.noPathAttributes(t)
}
