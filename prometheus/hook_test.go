package prometheus_test

import (
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	prom "github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/testutil"
	dto "github.com/prometheus/client_model/go"

	"github.com/gocurator/curator/framework"
	"github.com/gocurator/curator/observe"
	curatorprom "github.com/gocurator/curator/prometheus"
	"github.com/gocurator/curator/recipes/locks"
	"github.com/gocurator/curator/recipestest"
	"github.com/gocurator/curator/zkharness"
)

// server is the package's shared ZooKeeper.
var server *zkharness.Server

func TestMain(m *testing.M) { recipestest.RunWithServer(m, &server) }

// metrics is a registry with a Hook's collectors.
type metrics struct {
	reg  *prom.Registry
	hook *curatorprom.Hook
}

func newMetrics(t *testing.T) *metrics {
	reg := prom.NewRegistry()
	h, err := curatorprom.New(reg)
	if err != nil {
		t.Fatal(err)
	}
	return &metrics{reg, h}
}

// client starts a client on connect (the shared server if "") in a fresh
// namespace, reporting to the Hook.
func (m *metrics) client(t *testing.T, connect string) *framework.Client {
	if connect == "" {
		connect = server.ConnectString()
	}
	return recipestest.NewClient(t, connect, framework.WithNamespace(recipestest.Namespace(t)), framework.WithHooks(m.hook))
}

// family gathers the registry and returns the family name.
func (m *metrics) family(t *testing.T, name string) *dto.MetricFamily {
	t.Helper()
	fams, err := m.reg.Gather()
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range fams {
		if f.GetName() == name {
			return f
		}
	}
	return nil
}

// labelText is a metric's labels as sorted name=value pairs.
func labelText(x *dto.Metric) string {
	var kv []string
	for _, l := range x.GetLabel() {
		kv = append(kv, l.GetName()+"="+l.GetValue())
	}
	return strings.Join(kv, ",")
}

// value is a metric's value: a counter's or a gauge's, or a histogram's
// count.
func value(x *dto.Metric) float64 {
	switch {
	case x.Counter != nil:
		return x.Counter.GetValue()
	case x.Gauge != nil:
		return x.Gauge.GetValue()
	case x.Histogram != nil:
		return float64(x.Histogram.GetSampleCount())
	}
	return -1
}

// await waits until the series name{labels} has the value want (a
// histogram's count) and returns it.
func (m *metrics) await(t *testing.T, want float64, name string, labels ...string) *dto.Metric {
	t.Helper()
	var found *dto.Metric
	recipestest.Eventually(t, fmt.Sprintf("%s{%s} %v", name, strings.Join(labels, ","), want), func() (bool, string) {
		f := m.family(t, name)
		var saw []string
		for _, x := range f.GetMetric() {
			saw = append(saw, fmt.Sprintf("{%s} %v", labelText(x), value(x)))
			if labelText(x) == strings.Join(labels, ",") && value(x) == want {
				found = x
			}
		}
		return found != nil, strings.Join(saw, "; ")
	})
	return found
}

// conventions fails if a metric breaks Prometheus' naming conventions
// (promlint) or has a path among its labels.
func (m *metrics) conventions(t *testing.T) {
	t.Helper()
	problems, err := testutil.GatherAndLint(m.reg)
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range problems {
		t.Errorf("%s: %s", p.Metric, p.Text)
	}
	fams, _ := m.reg.Gather()
	for _, f := range fams {
		if f.GetHelp() == "" {
			t.Errorf("%s has no help text", f.GetName())
		}
		for _, x := range f.GetMetric() {
			if strings.Contains(labelText(x), "/") {
				t.Errorf("%s has a path among its labels: %s", f.GetName(), labelText(x))
			}
		}
	}
}

// Requests and operations are recorded by op and result in seconds, with
// their bytes; the names follow Prometheus' conventions; no label is a
// path.
func TestRequestsAndOperations(t *testing.T) {
	m := newMetrics(t)
	c := m.client(t, "")
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
	m.await(t, 1, "gocurator_operation_duration_seconds", "op=get", "result=no_node")
	ok := m.await(t, 1, "gocurator_request_duration_seconds", "op=getData", "result=ok")
	if s := ok.Histogram.GetSampleSum(); s <= 0 || s > 60 {
		t.Errorf("getData's duration %v s: want seconds, more than 0", s)
	}
	m.await(t, 1, "gocurator_request_duration_seconds", "op=getData", "result=no_node")
	m.await(t, 1, "gocurator_operation_duration_seconds", "op=get", "result=ok")
	m.await(t, 1, "gocurator_operation_duration_seconds", "op=create", "result=ok")
	f := m.family(t, "gocurator_request_duration_seconds")
	if f.GetType() != dto.MetricType_HISTOGRAM || !strings.Contains(f.GetHelp(), "requests to ZooKeeper") {
		t.Errorf("gocurator_request_duration_seconds: %v, %q", f.GetType(), f.GetHelp())
	}
	var sent, received float64
	for _, x := range m.family(t, "gocurator_network_bytes_total").GetMetric() {
		switch labelText(x) {
		case "direction=transmit":
			sent = value(x)
		case "direction=receive":
			received = value(x)
		}
	}
	// The reads alone: two getData frames out, a reply with "hello" and a
	// stat and a bare error header in.
	if sent < 2*(4+8+4+2+1) || received < 4+16+4+5+68+4+16 {
		t.Errorf("bytes transmitted %v, received %v: fewer than the reads' frames", sent, received)
	}
	m.conventions(t)
}

// A call whose reply is lost is retried: the retry decision is counted by
// op and result, with the decision.
func TestRetriedCall(t *testing.T) {
	m := newMetrics(t)
	proxy := recipestest.StartProxy(t, server.Addr())
	c := m.client(t, proxy.Addr())
	ctx := recipestest.Context(t)
	if _, err := c.Create(ctx, "/n", nil); err != nil {
		t.Fatal(err)
	}
	proxy.DropAfter(zkharness.OpGetData)
	if _, _, err := c.Get(ctx, "/n"); err != nil {
		t.Fatal(err)
	}
	m.await(t, 1, "gocurator_operation_duration_seconds", "op=get", "result=ok")
	m.await(t, 1, "gocurator_request_duration_seconds", "op=getData", "result=connection_loss")
	if err := testutil.GatherAndCompare(m.reg, strings.NewReader(`
# HELP gocurator_retry_decisions_total Retry decisions after failed attempts: retry, or give_up.
# TYPE gocurator_retry_decisions_total counter
gocurator_retry_decisions_total{decision="retry",op="get",result="connection_loss"} 1
`), "gocurator_retry_decisions_total"); err != nil {
		t.Error(err)
	}
}

// A session the server ends is counted as a lost session caused by its
// expiry; the transitions and the time spent in each state are recorded.
func TestSessionExpiry(t *testing.T) {
	m := newMetrics(t)
	c := m.client(t, "")
	if err := c.InjectSessionExpiration(recipestest.Context(t)); err != nil {
		t.Fatal(err)
	}
	m.await(t, 1, "gocurator_connection_transitions_total", "state=reconnected")
	if err := testutil.GatherAndCompare(m.reg, strings.NewReader(`
# HELP gocurator_session_losses_total Sessions lost, by cause: expired, timeout, replaced.
# TYPE gocurator_session_losses_total counter
gocurator_session_losses_total{cause="expired"} 1
# HELP gocurator_connection_transitions_total Connection state changes, by the state entered.
# TYPE gocurator_connection_transitions_total counter
gocurator_connection_transitions_total{state="connected"} 1
gocurator_connection_transitions_total{state="lost"} 1
gocurator_connection_transitions_total{state="reconnected"} 1
gocurator_connection_transitions_total{state="suspended"} 1
`), "gocurator_session_losses_total", "gocurator_connection_transitions_total"); err != nil {
		t.Error(err)
	}
	for _, s := range []string{"connected", "suspended", "lost"} {
		m.await(t, 1, "gocurator_connection_state_duration_seconds", "state="+s)
	}
}

// A contended mutex: acquires by outcome with their waits, holds with their
// lengths, by recipe and label; two clients' Hooks on one registry share
// its collectors.
func TestLock(t *testing.T) {
	m := newMetrics(t)
	second, err := curatorprom.New(m.reg) // the same registry: shares the collectors
	if err != nil {
		t.Fatal(err)
	}
	ns := recipestest.Namespace(t)
	connect := server.ConnectString()
	a := recipestest.NewClient(t, connect, framework.WithNamespace(ns), framework.WithHooks(m.hook))
	b := recipestest.NewClient(t, connect, framework.WithNamespace(ns), framework.WithHooks(second))
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
	recipestest.Eventually(t, "b queued", func() (bool, string) {
		kids, _, err := a.Children(ctx, "/lock")
		return err == nil && len(kids) == 2, fmt.Sprint(kids, err)
	})
	time.Sleep(50 * time.Millisecond) // let b's wait show in its acquire's duration (not a synchronisation)
	if err := ha.Release(ctx); err != nil {
		t.Fatal(err)
	}
	if err := <-got; err != nil {
		t.Fatal(err)
	}
	acquired := m.await(t, 2, "gocurator_lock_acquire_duration_seconds", "label=orders", "outcome=acquired", "recipe=mutex")
	m.await(t, 1, "gocurator_lock_acquire_duration_seconds", "label=orders", "outcome=busy", "recipe=mutex")
	held := m.await(t, 2, "gocurator_lock_hold_duration_seconds", "end=released", "label=orders", "recipe=mutex")
	// b waited through a's hold of at least 50 ms; a held that long.
	if acquired.Histogram.GetSampleSum() < 0.05 || held.Histogram.GetSampleSum() < 0.05 {
		t.Errorf("waits %v s, holds %v s: want each at least the 50 ms a held the lock", acquired.Histogram.GetSampleSum(), held.Histogram.GetSampleSum())
	}
	m.conventions(t)
}

// A hold lost with its session is counted by its cause.
func TestLockLoss(t *testing.T) {
	m := newMetrics(t)
	c := m.client(t, "")
	ctx := recipestest.Context(t)
	mu, _ := locks.NewMutex(c, "/lock")
	h, err := mu.Acquire(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if err := c.InjectSessionExpiration(ctx); err != nil {
		t.Fatal(err)
	}
	<-h.Lost()
	h.Release(ctx)
	m.await(t, 1, "gocurator_lock_hold_duration_seconds", "end=lost", "label=", "recipe=mutex")
	var causes []string
	for _, x := range m.family(t, "gocurator_lock_losses_total").GetMetric() {
		causes = append(causes, fmt.Sprintf("{%s} %v", labelText(x), value(x)))
	}
	if len(causes) != 1 || causes[0] != "{cause=connection_loss,label=,recipe=mutex} 1" && causes[0] != "{cause=session_expired,label=,recipe=mutex} 1" {
		t.Errorf("losses %v: want one, by the suspension or the expiry", causes)
	}
}

// The recipe families whose events the recipes may not report yet (leader
// terms, caches, shared values) are recorded as observe describes them:
// fed to the Hook directly here.
func TestLeaderCacheShared(t *testing.T) {
	m := newMetrics(t)
	h := m.hook
	t0 := time.Now()
	h.OnTermStart(observe.TermStart{Time: t0, Recipe: "latch", Label: "jobs", Path: "/election", ID: "a", Gap: 1500 * time.Millisecond})
	m.await(t, 1, "gocurator_leader_terms", "label=jobs", "recipe=latch")
	h.OnTermEnd(observe.TermEnd{Time: t0.Add(3 * time.Second), Recipe: "latch", Label: "jobs", Path: "/election", ID: "a", Length: 3 * time.Second,
		Cause: fmt.Errorf("lost: %w", framework.ErrSessionExpired)})
	h.OnTermStart(observe.TermStart{Time: t0, Recipe: "selector", Path: "/e"})
	h.OnTermEnd(observe.TermEnd{Time: t0, Recipe: "selector", Path: "/e", Length: time.Second})
	m.await(t, 0, "gocurator_leader_terms", "label=jobs", "recipe=latch")
	term := m.await(t, 1, "gocurator_leader_term_duration_seconds", "cause=session_expired", "label=jobs", "recipe=latch")
	gap := m.await(t, 1, "gocurator_leader_gap_duration_seconds", "label=jobs", "recipe=latch")
	m.await(t, 1, "gocurator_leader_term_duration_seconds", "cause=none", "label=", "recipe=selector")
	if term.Histogram.GetSampleSum() != 3 || gap.Histogram.GetSampleSum() != 1.5 {
		t.Errorf("term %v s, gap %v s: want 3 and 1.5", term.Histogram.GetSampleSum(), gap.Histogram.GetSampleSum())
	}

	h.OnCacheResync(observe.CacheResync{Time: t0, Label: "config", Initial: true, Nodes: 10, Duration: 20 * time.Millisecond})
	h.OnCacheChange(observe.CacheChange{Time: t0, Label: "config", Type: "created", Path: "/config/x", Nodes: 11})
	h.OnCacheChange(observe.CacheChange{Time: t0, Label: "config", Type: "deleted", Path: "/config/y", Nodes: 10})
	h.OnCacheResync(observe.CacheResync{Time: t0, Label: "config", Nodes: 9, Changes: 3, Duration: 5 * time.Millisecond})
	h.OnCacheStale(observe.CacheStale{Time: t0, Label: "config", Duration: 2 * time.Second})
	h.OnCacheOverflow(observe.CacheOverflow{Time: t0, Label: "config", Dropped: 7})
	h.OnTrySet(observe.TrySet{Time: t0, Recipe: "count", Label: "hits", Path: "/hits", Conflict: true})
	h.OnTrySet(observe.TrySet{Time: t0, Recipe: "count", Label: "hits", Path: "/hits"})
	h.OnTrySet(observe.TrySet{Time: t0, Recipe: "count", Label: "hits", Path: "/hits"})
	if err := testutil.GatherAndCompare(m.reg, strings.NewReader(`
# HELP gocurator_cache_changes_total Changes caches applied, by type.
# TYPE gocurator_cache_changes_total counter
gocurator_cache_changes_total{label="config",type="created"} 1
gocurator_cache_changes_total{label="config",type="deleted"} 1
# HELP gocurator_cache_nodes Nodes a cache holds.
# TYPE gocurator_cache_nodes gauge
gocurator_cache_nodes{label="config"} 9
# HELP gocurator_cache_resync_changes_total Changes caches found by a resync.
# TYPE gocurator_cache_resync_changes_total counter
gocurator_cache_resync_changes_total{label="config"} 3
# HELP gocurator_cache_dropped_events_total Events a cache's listener missed by falling behind.
# TYPE gocurator_cache_dropped_events_total counter
gocurator_cache_dropped_events_total{label="config"} 7
# HELP gocurator_shared_try_sets_total Shared values' compare-and-sets, by result: ok or conflict.
# TYPE gocurator_shared_try_sets_total counter
gocurator_shared_try_sets_total{label="hits",recipe="count",result="conflict"} 1
gocurator_shared_try_sets_total{label="hits",recipe="count",result="ok"} 2
`), "gocurator_cache_changes_total", "gocurator_cache_nodes", "gocurator_cache_resync_changes_total", "gocurator_cache_dropped_events_total", "gocurator_shared_try_sets_total"); err != nil {
		t.Error(err)
	}
	m.await(t, 1, "gocurator_cache_resync_duration_seconds", "initial=true", "label=config")
	m.await(t, 1, "gocurator_cache_resync_duration_seconds", "initial=false", "label=config")
	if s := m.await(t, 1, "gocurator_cache_stale_duration_seconds", "label=config"); s.Histogram.GetSampleSum() != 2 {
		t.Errorf("stale for %v s, want 2", s.Histogram.GetSampleSum())
	}
	m.conventions(t)
}

// New refuses a nil registerer, and a registry where one of its names is
// another kind of collector.
func TestNewRefuses(t *testing.T) {
	if _, err := curatorprom.New(nil); err == nil {
		t.Error("New(nil): no error")
	}
	reg := prom.NewRegistry()
	reg.MustRegister(prom.NewGaugeVec(prom.GaugeOpts{Name: "gocurator_request_duration_seconds", Help: "a gauge"}, []string{"op", "result"}))
	if _, err := curatorprom.New(reg); err == nil {
		t.Error("New on a registry with a gauge of the same name: no error")
	}
}
