// Command bench measures the lock recipes against go-zookeeper's zk.Lock,
// the bare-call floor of Curator's protocol, Apache Curator (Java) and Kazoo
// (Python), on one ZooKeeper server in one run.
//
//	go run ./bench                       # a throwaway server on loopback
//	go run ./bench --connect 127.0.0.1:2181 --duration 5s --out results.jsonl
//
// It prints a table and writes one JSON line per implementation × workload.
// docs/performance.md explains the figures.
package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"runtime/pprof"
	"slices"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/gocurator/curator/recipestest"
)

func main() {
	connect := flag.String("connect", "", "ZooKeeper to use (loopback only); default: start a throwaway one")
	duration := flag.Duration("duration", 3*time.Second, "time per throughput workload")
	out := flag.String("out", "bench-results.jsonl", "JSON lines output file")
	only := flag.String("impls", "gocurator,floor,zk.Lock,curator,kazoo", "implementations to run")
	workloads := flag.String("workloads", "mutex-uncontended,mutex-contended,semaphore,rwlock,herd,memory", "workloads to run")
	herdSizes := flag.String("herd", "100,1000", "herd sizes")
	fsync := flag.Bool("fsync", true, "the throwaway server fsyncs its transaction log (ZooKeeper's default)")
	warmup := flag.Duration("warmup", time.Second, "unrecorded run of each throughput workload before it is measured, per implementation")
	rounds := flag.Int("rounds", 3, "the Go implementations take turns this many times per throughput workload, each for duration/rounds")
	noCancel := flag.Bool("no-cancel", false, "acquire with context.Background() instead of a cancellable context")
	cpuprofile := flag.String("cpuprofile", "", "write a CPU profile of the Go side here")
	flag.Parse()
	if *cpuprofile != "" {
		f, err := os.Create(*cpuprofile)
		if err == nil {
			pprof.StartCPUProfile(f)
			defer pprof.StopCPUProfile()
		}
	}
	o := options{connect: *connect, fsync: *fsync, warmup: *warmup, rounds: max(*rounds, 1), out: *out,
		only: split(*only), workloads: split(*workloads), herdSizes: split(*herdSizes)}
	e := env{duration: *duration, noCancel: *noCancel}
	if err := run(e, o); err != nil {
		fmt.Fprintln(os.Stderr, "bench:", err)
		pprof.StopCPUProfile()
		os.Exit(1)
	}
}

func split(s string) []string { return strings.Split(s, ",") }

// options are the harness's flags beyond env.
type options struct {
	connect, out               string
	fsync                      bool
	warmup                     time.Duration
	rounds                     int
	only, workloads, herdSizes []string
}

// throughput runs one of the timed workloads.
var throughput = map[string]func(env, impl) result{
	"mutex-uncontended": runMutexUncontended,
	"mutex-contended":   runMutexContended,
	"semaphore":         runSemaphore,
	"rwlock":            runRWLock,
}

func run(e env, o options) error {
	connect, only := o.connect, o.only
	if connect == "" {
		var opts []recipestest.Option
		if !o.fsync {
			opts = append(opts, recipestest.WithoutFsync())
		}
		srv, err := recipestest.NewServer(opts...)
		if err != nil {
			return err
		}
		defer srv.Close()
		connect = srv.ConnectString()
	}
	if !strings.HasPrefix(connect, "127.") && !strings.HasPrefix(connect, "localhost:") {
		return fmt.Errorf("--connect %s: benchmarks send traffic to loopback only", connect)
	}
	f, err := os.Create(o.out)
	if err != nil {
		return err
	}
	defer f.Close()
	enc := json.NewEncoder(f)
	e.addr = connect
	e.received = func() int64 {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		n, _ := recipestest.Received(ctx, connect)
		return n
	}
	var results []result
	emit := func(r result) {
		results = append(results, r)
		enc.Encode(r)
		fmt.Fprintf(os.Stderr, "%-10s %-18s %s\n", r.Impl, r.Workload, summary(r))
	}
	var goImpls []impl
	for _, im := range []impl{curatorGo{}, floor{}, zkLock{}} {
		if slices.Contains(only, im.name()) {
			goImpls = append(goImpls, im)
		}
	}
	for _, w := range o.workloads {
		if runW, ok := throughput[w]; ok {
			for _, r := range interleaved(e, o, goImpls, runW) {
				emit(r)
			}
		}
		if w == "herd" {
			if o.warmup > 0 {
				warmUp(e, goImpls, func(e env, im impl) result { return runHerd(e, im, 100) })
			}
			for _, n := range o.herdSizes {
				var size int
				fmt.Sscan(n, &size)
				for _, r := range inTurns(e, o.rounds, goImpls, func(e env, im impl) result { return runHerd(e, im, size) }) {
					emit(r)
				}
			}
		}
		if w == "memory" {
			for _, im := range goImpls {
				emit(runMemory(e, im, 1000))
			}
		}
		pe := e
		pe.warmup = o.warmup
		for _, peer := range peers() {
			if slices.Contains(only, peer.name) && peer.supports(w) {
				for _, r := range peer.run(pe, w, o.herdSizes) {
					emit(r)
				}
			}
		}
	}
	printTable(results)
	fmt.Fprintln(os.Stderr, "JSON lines written to", o.out)
	return nil
}

// interleaved runs a throughput workload for every Go implementation: each
// first warms the server and itself up for o.warmup (not recorded), then the
// implementations take turns, o.rounds times, for e.duration/o.rounds each,
// so that a drift of the server over the run touches all of them alike.
func interleaved(e env, o options, impls []impl, runW func(env, impl) result) []result {
	if o.warmup > 0 {
		we := e
		we.duration = o.warmup
		warmUp(we, impls, runW)
	}
	re := e
	re.duration = e.duration / time.Duration(o.rounds)
	return inTurns(re, o.rounds, impls, runW)
}

// warmUp runs the workload once for every implementation, unrecorded.
func warmUp(e env, impls []impl, runW func(env, impl) result) {
	for _, im := range impls {
		runW(e, im)
	}
}

// inTurns runs the workload rounds times for every implementation, taking
// turns, and merges each implementation's rounds.
func inTurns(e env, rounds int, impls []impl, runW func(env, impl) result) []result {
	merged := make([]result, len(impls))
	for range rounds {
		for i, im := range impls {
			merged[i] = merge(merged[i], runW(e, im))
		}
	}
	return merged
}

func summary(r result) string {
	if r.Error != "" {
		return "error: " + r.Error
	}
	s := fmt.Sprintf("%.0f cycles/s", r.CyclesPerSec)
	if r.Notes != "" {
		s += " (" + r.Notes + ")"
	}
	return s
}

// printTable prints every result, with each figure's ratio to the floor's.
func printTable(rs []result) {
	floorOf := map[string]result{}
	for _, r := range rs {
		if r.Impl == "floor" {
			floorOf[r.Workload] = r
		}
	}
	tw := tabwriter.NewWriter(os.Stdout, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "workload\timpl\tcycles/s\tvs floor\tp50 µs\tp99 µs\treq/cycle (client)\treq/cycle (server)\tclient CPU µs/cycle\tnotif/release\tB in/acquire\theap B/waiter\tgoroutines/waiter\tviolations\t")
	for _, r := range rs {
		if r.Error != "" {
			fmt.Fprintf(tw, "%s\t%s\terror: %s\t\t\t\t\t\t\t\t\t\t\t\t\n", r.Workload, r.Impl, r.Error)
			continue
		}
		ratio := ""
		if f, ok := floorOf[r.Workload]; ok && f.CyclesPerSec > 0 && r.CyclesPerSec > 0 {
			ratio = fmt.Sprintf("%.2f×", r.CyclesPerSec/f.CyclesPerSec)
		}
		fmt.Fprintf(tw, "%s\t%s\t%.0f\t%s\t%.0f\t%.0f\t%.2f\t%.2f\t%.0f\t%.2f\t%.0f\t%.0f\t%.2f\t%d\t\n", r.Workload, r.Impl, r.CyclesPerSec, ratio,
			r.HandoffP50us, r.HandoffP99us, r.ClientReqs, r.ServerReqs, r.CPUPerCycleUs, r.NotifPerRel, r.BytesInPerAcq, r.HeapPerWaiter, r.GorosPerWaiter, r.Violations)
	}
	tw.Flush()
}
