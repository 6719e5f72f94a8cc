// Command hooks is cmd/bench with hooks: the lock workloads on the plain
// client (gocurator), with a hook that does nothing (gocurator+noop), with
// the OpenTelemetry adapter (gocurator+otel) and with the Prometheus adapter
// (gocurator+prometheus), in one run with the floor, each row paired round
// by round with the floor and with the plain client. --hooks otel-metrics
// adds a row with the OpenTelemetry adapter's metrics alone (no span), and
// otel-sampled one whose TracerProvider samples 1 trace in 100
// (sdktrace.TraceIDRatioBased(0.01)), as a busy service's would.
//
//	cd cmd/bench/hooks && go run . --rounds 15 --duration 45s --fsync=false
//
// It is a module of its own so that the core's go.mod needs neither
// OpenTelemetry nor Prometheus: it imports the harness
// (cmd/bench/internal/harness, whose import path it shares the root of) and
// the adapters' modules, each replaced by this checkout's. Every client gets
// a hook of its own, as the adapters' docs ask; the otel ones share one
// SDK MeterProvider (a periodic reader every 10 s into an exporter that
// drops what it is given) and one SDK TracerProvider (every span sampled,
// batched to an exporter that drops them), the prometheus ones one
// registry, gathered every 10 s as a scraper would. The flags are
// cmd/bench's.
package main

import (
	"context"
	"time"

	prom "github.com/prometheus/client_golang/prometheus"
	sdkmetric "go.opentelemetry.io/otel/sdk/metric"
	"go.opentelemetry.io/otel/sdk/metric/metricdata"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"

	"github.com/gocurator/curator/cmd/bench/internal/harness"
	curatorotel "github.com/gocurator/curator/otel"
	curatorprom "github.com/gocurator/curator/prometheus"
)

func main() {
	meters := sdkmetric.NewMeterProvider(sdkmetric.WithReader(sdkmetric.NewPeriodicReader(discard{}, sdkmetric.WithInterval(10*time.Second))))
	tracers := sdktrace.NewTracerProvider(sdktrace.WithBatcher(tracetest.NewNoopExporter()))
	sampled := sdktrace.NewTracerProvider(sdktrace.WithBatcher(tracetest.NewNoopExporter()),
		sdktrace.WithSampler(sdktrace.TraceIDRatioBased(0.01)))
	reg := prom.NewRegistry()
	go func() { // the process's lifetime
		for range time.Tick(10 * time.Second) {
			reg.Gather()
		}
	}()
	harness.Main(harness.Program{
		Hooks: []harness.HookSet{
			{Name: "otel", New: func() (any, error) {
				return curatorotel.New(curatorotel.WithMeterProvider(meters), curatorotel.WithTracerProvider(tracers))
			}},
			{Name: "otel-metrics", New: func() (any, error) { // the metrics alone, no span
				return curatorotel.New(curatorotel.WithMeterProvider(meters), curatorotel.WithTracerProvider(tracers), curatorotel.WithSpans())
			}},
			{Name: "otel-sampled", New: func() (any, error) { // spans sampled as a busy service would: 1 in 100
				return curatorotel.New(curatorotel.WithMeterProvider(meters), curatorotel.WithTracerProvider(sampled))
			}},
			{Name: "prometheus", New: func() (any, error) { return curatorprom.New(reg) }},
		},
		DefaultImpls:     "gocurator,floor",
		DefaultWorkloads: "mutex-uncontended,mutex-contended",
		DefaultHooks:     "none,noop,otel,prometheus",
	})
}

// discard is a metric exporter that drops what it is given.
type discard struct{}

func (discard) Temporality(k sdkmetric.InstrumentKind) metricdata.Temporality {
	return sdkmetric.DefaultTemporalitySelector(k)
}

func (discard) Aggregation(k sdkmetric.InstrumentKind) sdkmetric.Aggregation {
	return sdkmetric.DefaultAggregationSelector(k)
}

func (discard) Export(context.Context, *metricdata.ResourceMetrics) error { return nil }
func (discard) ForceFlush(context.Context) error                          { return nil }
func (discard) Shutdown(context.Context) error                            { return nil }
