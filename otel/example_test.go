package otel_test

import (
	"context"
	"log"

	sdkmetric "go.opentelemetry.io/otel/sdk/metric"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"

	"github.com/gocurator/curator/framework"
	curatorotel "github.com/gocurator/curator/otel"
)

// A client whose requests, retries, states and recipes are recorded
// through an OpenTelemetry SDK (here with a manual reader; in production a
// periodic reader with an exporter).
func Example() {
	meters := sdkmetric.NewMeterProvider(sdkmetric.WithReader(sdkmetric.NewManualReader()))
	tracers := sdktrace.NewTracerProvider()
	defer meters.Shutdown(context.Background())
	defer tracers.Shutdown(context.Background())

	hook, err := curatorotel.New(curatorotel.WithMeterProvider(meters), curatorotel.WithTracerProvider(tracers))
	if err != nil {
		log.Fatal(err)
	}
	client, err := framework.New("127.0.0.1:2181", framework.WithHooks(hook))
	if err != nil {
		log.Fatal(err)
	}
	defer client.Close()
	// client.Start(ctx), then recipes built on client report to hook.
}
