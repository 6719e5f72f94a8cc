package cache_test

import (
	"testing"

	"github.com/gocurator/curator/framework"
	"github.com/gocurator/curator/recipes/cache"
	"github.com/gocurator/curator/recipestest"
	"github.com/gocurator/curator/zkharness"
)

// BenchmarkChangeInADirectory times, for a cache of a directory of 10,000
// children, a child made and then deleted by another client, each until
// the cache's event, and counts the cache's requests and the bytes it
// received per change, in each watch mode.
//
//	go test -run '^$' -bench ChangeInADirectory ./recipes/cache/
func BenchmarkChangeInADirectory(b *testing.B) {
	for _, mode := range []struct {
		name string
		opt  cache.Option
	}{{"persistent", cache.WithPersistentWatch()}, {"one-shot", cache.WithOneShotWatches()}} {
		b.Run(mode.name, func(b *testing.B) {
			ns := recipestest.Namespace(b)
			counter := zkharness.NewCounter()
			c := recipestest.NewClient(b, server.ConnectString(), framework.WithNamespace(ns), framework.WithDialer(counter.Dialer(nil)))
			w := recipestest.NewClient(b, server.ConnectString(), framework.WithNamespace(ns))
			ctx := ctxT(b)
			makeDir(b, w, 10_000)
			cc, err := cache.New(c, "/dir", mode.opt)
			if err != nil {
				b.Fatal(err)
			}
			events := make(chan cache.Event, 16)
			if _, err := cc.AddListener(func(ev cache.Event) { events <- ev }); err != nil {
				b.Fatal(err)
			}
			if err := cc.Start(ctx); err != nil {
				b.Fatal(err)
			}
			defer cc.Close()
			await := func(typ cache.EventType) {
				for ev := range events {
					if ev.Type == typ {
						return
					}
				}
			}
			await(cache.Initialized)
			requests, bytesIn := counter.Requests(), counter.BytesIn()
			b.ResetTimer()
			for b.Loop() {
				if _, err := w.Create(ctx, "/dir/new", []byte("v")); err != nil {
					b.Fatal(err)
				}
				await(cache.Created)
				if err := w.Delete(ctx, "/dir/new"); err != nil {
					b.Fatal(err)
				}
				await(cache.Deleted)
			}
			changes := float64(2 * b.N)
			b.ReportMetric(float64(counter.Requests()-requests)/changes, "requests/change")
			b.ReportMetric(float64(counter.BytesIn()-bytesIn)/changes, "bytes-in/change")
		})
	}
}
