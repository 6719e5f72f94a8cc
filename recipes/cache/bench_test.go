package cache_test

import (
	"context"
	"errors"
	"fmt"
	"os"
	"runtime"
	"strconv"
	"testing"

	"golang.org/x/sync/errgroup"

	"github.com/gocurator/curator/framework"
	"github.com/gocurator/curator/recipes/cache"
	"github.com/gocurator/curator/recipestest"
	"github.com/gocurator/curator/zkharness"
)

// BenchmarkLoad loads a tree of $CACHE_BENCH_NODES nodes (100,000 by
// default) under $CACHE_BENCH_PARENTS parents (100 by default; 1 makes one
// flat directory) into a cache, and reports the heap it holds per node and
// the requests it sent per node.
//
//	go test -run '^$' -bench Load -benchtime 3x ./recipes/cache/
//	CACHE_BENCH_NODES=70000 CACHE_BENCH_PARENTS=1 go test -run '^$' -bench Load -benchtime 1x ./recipes/cache/
func BenchmarkLoad(b *testing.B) {
	nodes := 100_000
	if s := os.Getenv("CACHE_BENCH_NODES"); s != "" {
		n, err := strconv.Atoi(s)
		if err != nil || n < 1000 {
			b.Fatalf("CACHE_BENCH_NODES=%q: want a number of at least 1000", s)
		}
		nodes = n
	}
	parents := 100
	if s := os.Getenv("CACHE_BENCH_PARENTS"); s != "" {
		n, err := strconv.Atoi(s)
		if err != nil || n < 1 || n >= nodes {
			b.Fatalf("CACHE_BENCH_PARENTS=%q: want a number from 1 to the nodes", s)
		}
		parents = n
	}
	srv := recipestest.StartServer(b, zkharness.WithoutFsync())
	ns := recipestest.Namespace(b)
	w := recipestest.NewClient(b, srv.ConnectString(), framework.WithNamespace(ns))
	g, ctx := errgroup.WithContext(ctxT(b))
	g.SetLimit(64)
	for i := range parents {
		if _, err := w.Create(ctx, fmt.Sprintf("/big/p%03d", i), nil, framework.WithParents()); err != nil && !errors.Is(err, framework.ErrNodeExists) {
			b.Fatal(err)
		}
	}
	for i := range nodes - parents - 1 {
		g.Go(func() error {
			_, err := w.Create(ctx, fmt.Sprintf("/big/p%03d/n%06d", i%parents, i), []byte("config-value-0123456789"))
			return err
		})
	}
	if err := g.Wait(); err != nil {
		b.Fatal(err)
	}
	counter := zkharness.NewCounter()
	c := recipestest.NewClient(b, srv.ConnectString(), framework.WithNamespace(ns), framework.WithDialer(counter.Dialer(nil)))
	b.ResetTimer()
	var heap, requests float64
	for range b.N {
		runtime.GC()
		var before, after runtime.MemStats
		runtime.ReadMemStats(&before)
		sent := counter.Requests()
		cc, err := cache.New(c, "/big")
		if err != nil {
			b.Fatal(err)
		}
		if err := cc.Start(context.Background()); err != nil {
			b.Fatal(err)
		}
		<-cc.Initialized()
		b.StopTimer()
		runtime.GC()
		runtime.ReadMemStats(&after)
		if n := cc.Len(); n != nodes {
			b.Fatalf("cache holds %d nodes, want %d", n, nodes)
		}
		heap += float64(after.HeapAlloc) - float64(before.HeapAlloc)
		requests += float64(counter.Requests() - sent)
		runtime.KeepAlive(cc)
		cc.Close()
		b.StartTimer()
	}
	b.ReportMetric(heap/float64(b.N)/float64(nodes), "heapB/node")
	b.ReportMetric(requests/float64(b.N)/float64(nodes), "requests/node")
	b.ReportMetric(float64(nodes), "nodes")
}
