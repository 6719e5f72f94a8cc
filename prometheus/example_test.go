package prometheus_test

import (
	"log"
	"net/http"

	prom "github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/promhttp"

	"github.com/gocurator/curator/framework"
	curatorprom "github.com/gocurator/curator/prometheus"
)

// A client whose requests, retries, states and recipes are counted on a
// registry, served at /metrics.
func Example() {
	reg := prom.NewRegistry()
	hook, err := curatorprom.New(reg)
	if err != nil {
		log.Fatal(err)
	}
	client, err := framework.New("127.0.0.1:2181", framework.WithHooks(hook))
	if err != nil {
		log.Fatal(err)
	}
	defer client.Close()
	http.Handle("/metrics", promhttp.HandlerFor(reg, promhttp.HandlerOpts{}))
	// client.Start(ctx), then recipes built on client report to hook.
}
