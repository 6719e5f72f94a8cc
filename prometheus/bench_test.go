package prometheus_test

import (
	"testing"
	"time"

	prom "github.com/prometheus/client_golang/prometheus"

	"github.com/gocurator/curator/observe"
	curatorprom "github.com/gocurator/curator/prometheus"
)

// BenchmarkMutexCycle feeds a Hook the events of one uncontended mutex
// cycle (a create and a children listing, the acquire, the release's
// delete, the release: three requests, three operations), as the client's
// delivery goroutine would: the Hook's own cost per cycle.
func BenchmarkMutexCycle(b *testing.B) {
	h, err := curatorprom.New(prom.NewRegistry())
	if err != nil {
		b.Fatal(err)
	}
	node := "/locks/orders/_c_0f1e2d3c-4b5a-4968-8776-655443322110-lock-0000000042"
	b.ReportAllocs()
	for b.Loop() {
		t := time.Now()
		h.OnRequest(observe.Request{Time: t, Op: "create", Path: node, Latency: 200 * time.Microsecond, BytesOut: 120, BytesIn: 90})
		h.OnOperation(observe.Operation{Time: t, Op: "create", Path: "/locks/orders/lock-", Latency: 210 * time.Microsecond, Attempts: 1})
		h.OnRequest(observe.Request{Time: t.Add(10 * time.Microsecond), Op: "getChildren", Path: "/locks/orders", Latency: 250 * time.Microsecond, BytesOut: 30, BytesIn: 100})
		h.OnOperation(observe.Operation{Time: t.Add(10 * time.Microsecond), Op: "children", Path: "/locks/orders", Latency: 260 * time.Microsecond, Attempts: 1})
		h.OnAcquire(observe.Acquire{Time: t, Recipe: "mutex", Label: "orders", Path: "/locks/orders", Wait: 300 * time.Microsecond, Outcome: observe.Acquired})
		h.OnRequest(observe.Request{Time: t.Add(400 * time.Microsecond), Op: "delete", Path: node, Latency: 200 * time.Microsecond, BytesOut: 100, BytesIn: 20})
		h.OnOperation(observe.Operation{Time: t.Add(400 * time.Microsecond), Op: "delete", Path: node, Latency: 210 * time.Microsecond, Attempts: 1})
		h.OnRelease(observe.Release{Time: t.Add(610 * time.Microsecond), Recipe: "mutex", Label: "orders", Path: "/locks/orders", Held: 300 * time.Microsecond})
	}
}
