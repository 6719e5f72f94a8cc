package cache_test

import (
	"testing"
	"time"

	"github.com/gocurator/curator/framework"
	"github.com/gocurator/curator/internal/benchstat"
	"github.com/gocurator/curator/recipestest"
	"github.com/gocurator/curator/zkharness"
)

// loadRounds is BenchmarkLoad with $CACHE_BENCH_ROUNDS set: that many
// rounds, each loading the tree once with each row (gocurator on a direct
// connection, the floor, and Curator unless $CACHE_BENCH_CURATOR is 0), the
// rows' order turning from round to round, each on a connection or process
// of its own. It reports the medians of the per-round rates and ratios,
// and each ratio's 95 % interval (benchstat.MedianCI): a drift of the
// machine across rounds cancels out of a ratio, as in cmd/bench.
//
//	CACHE_BENCH_ROUNDS=15 go test -run '^$' -bench Load -benchtime 1x -timeout 2h ./recipes/cache/
func loadRounds(b *testing.B, t tree, rounds, inflight int) {
	withCurator := envInt(b, "CACHE_BENCH_CURATOR", 1, 0, 1) == 1
	var classes string
	if withCurator {
		classes = compileCacheLoadPeer(b)
	}
	b.Run("rounds", func(b *testing.B) {
		var goRate, floorRate, curRate, goCPU, floorCPU, heap []float64
		var curLoaded int64
		rows := []func(){
			func() {
				c := recipestest.NewClient(b, t.srv.ConnectString(), framework.WithNamespace(t.ns))
				l := loadOnce(b, c, zkharness.NewCounter(), nil, t.nodes)
				c.Close()
				goRate = append(goRate, float64(t.nodes)/l.took.Seconds())
				goCPU = append(goCPU, perNode(l.cpu, t.nodes))
				heap = append(heap, (l.heap-t.dataBytes)/float64(t.nodes))
			},
			func() {
				f := floorOnce(b, t.srv.ConnectString(), t.root(), t.nodes, inflight)
				floorRate = append(floorRate, float64(t.nodes)/f.took.Seconds())
				floorCPU = append(floorCPU, perNode(f.cpu, t.nodes))
			},
		}
		if withCurator {
			rows = append(rows, func() {
				c := curatorOnce(b, classes, t.srv.ConnectString(), t.root())
				curRate = append(curRate, float64(c.loaded)/c.took.Seconds())
				curLoaded += c.loaded
			})
		}
		for r := range rounds {
			for i := range rows {
				rows[(r+i)%len(rows)]()
			}
		}
		report := func(name string, a, over []float64) {
			ratios := make([]float64, len(a))
			for i := range a {
				ratios[i] = a[i] / over[i]
			}
			m := benchstat.Median(ratios)
			lo, hi := benchstat.MedianCI(ratios)
			b.ReportMetric(m, name)
			b.ReportMetric(lo, name+"-ci95-low")
			b.ReportMetric(hi, name+"-ci95-high")
			b.Logf("%s: median %.3f, 95 %% interval [%.3f, %.3f] over %d rounds", name, m, lo, hi, len(ratios))
		}
		report("x-floor", goRate, floorRate)
		if withCurator {
			report("x-curator", goRate, curRate)
			logCuratorCap(b, curLoaded, int64(rounds)*int64(t.nodes))
			b.ReportMetric(benchstat.Median(curRate), "curator-nodes/s")
		}
		b.ReportMetric(benchstat.Median(goRate), "nodes/s")
		b.ReportMetric(benchstat.Median(floorRate), "floor-nodes/s")
		b.ReportMetric(benchstat.Median(goCPU), "cpu-us/node")
		b.ReportMetric(benchstat.Median(floorCPU), "floor-cpu-us/node")
		b.ReportMetric(benchstat.Median(heap), "heapB/node")
	})
}

// perNode is d in microseconds per node.
func perNode(d time.Duration, nodes int) float64 {
	return float64(d.Microseconds()) / float64(nodes)
}
