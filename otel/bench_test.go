package otel_test

import (
	"context"
	"testing"
	"time"

	sdkmetric "go.opentelemetry.io/otel/sdk/metric"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"

	"github.com/gocurator/curator/observe"
	curatorotel "github.com/gocurator/curator/otel"
)

// BenchmarkMutexCycle feeds a Hook the events of one uncontended mutex
// cycle (a create and a children listing, the acquire, the release's
// delete, the release: three requests and three operations), as the
// client's delivery goroutine would: the Hook's own cost per cycle, with
// the metrics alone, with the acquire's span (the default), and with the
// hold's span too; every span is sampled and batched to an exporter that
// drops them.
func BenchmarkMutexCycle(b *testing.B) {
	for _, c := range []struct {
		name  string
		spans []string
	}{{"metrics", nil}, {"acquire-span", []string{"lock.acquire"}}, {"acquire-and-hold-spans", []string{"lock.acquire", "lock.hold"}}} {
		b.Run(c.name, func(b *testing.B) {
			meters := sdkmetric.NewMeterProvider(sdkmetric.WithReader(sdkmetric.NewManualReader()))
			tracers := sdktrace.NewTracerProvider(sdktrace.WithBatcher(tracetest.NewNoopExporter()))
			b.Cleanup(func() {
				meters.Shutdown(context.Background())
				tracers.Shutdown(context.Background())
			})
			h, err := curatorotel.New(curatorotel.WithMeterProvider(meters), curatorotel.WithTracerProvider(tracers), curatorotel.WithSpans(c.spans...))
			if err != nil {
				b.Fatal(err)
			}
			b.ReportAllocs()
			for b.Loop() {
				mutexCycle(h)
			}
		})
	}
}

// mutexCycle is one uncontended mutex cycle's events.
func mutexCycle(h *curatorotel.Hook) {
	node := "/locks/orders/_c_0f1e2d3c-4b5a-4968-8776-655443322110-lock-0000000042"
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
