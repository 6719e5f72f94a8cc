package shared_test

import (
	"context"
	"testing"

	"github.com/gocurator/curator/framework"
	"github.com/gocurator/curator/recipes/shared"
	"github.com/gocurator/curator/recipestest"
	"github.com/gocurator/curator/zkharness"
)

// BenchmarkCountIncrement times one uncontended increment of a Count (Get,
// then TrySet: one setData request, and the watch's re-read of the node,
// which coalesces when sets come faster than its round trip), against the
// same write made with a bare Set at the version read last (the protocol's
// floor), on the package's server. It reports requests per increment from
// the wire.
func BenchmarkCountIncrement(b *testing.B) {
	for _, tc := range []struct {
		name string
		run  func(ctx context.Context, c *framework.Client, cnt *shared.Count, version *int32) error
	}{
		{"count", func(ctx context.Context, _ *framework.Client, cnt *shared.Count, _ *int32) error {
			cur := cnt.Get()
			_, err := cnt.TrySet(ctx, cur, cur.Value+1)
			return err
		}},
		{"floor", func(ctx context.Context, c *framework.Client, _ *shared.Count, version *int32) error {
			stat, err := c.Set(ctx, "/count", []byte{0, 0, 0, 1}, *version)
			if err == nil {
				*version = stat.Version
			}
			return err
		}},
	} {
		b.Run(tc.name, func(b *testing.B) {
			wire := zkharness.NewCounter()
			c := recipestest.NewClient(b, server.ConnectString(), framework.WithNamespace(recipestest.Namespace(b)), framework.WithDialer(wire.Dialer(nil)))
			ctx := context.Background()
			cnt, err := shared.NewCount(c, "/count", 0)
			if err != nil {
				b.Fatal(err)
			}
			if err := cnt.Start(ctx); err != nil {
				b.Fatal(err)
			}
			version := cnt.Get().Version
			if tc.name == "floor" {
				cnt.Close() // the floor is the bare write: no watch, no re-read
			}
			defer cnt.Close()
			before := wire.Requests()
			b.ReportAllocs()
			for b.Loop() {
				if err := tc.run(ctx, c, cnt, &version); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(wire.Requests()-before)/float64(b.N), "requests/op")
		})
	}
}
