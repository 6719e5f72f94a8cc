package harness

import (
	"context"
	"fmt"
	"os"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"text/tabwriter"
	"time"

	"golang.org/x/sync/errgroup"
)

// The many-locks workload: many goroutines of one process, each looping
// acquire and release on a lock of its own (so no lock is ever contended),
// through few clients: what a service holding a lock per entity asks of its
// library. The locks share the clients' sessions, so every request of every
// goroutine goes through the same few connections.

// manyLocksPrefix names the workload's rows: many-locks-<clients>.
const manyLocksPrefix = "many-locks-"

// manyLocksClients returns the number of clients a many-locks row's name
// asks for, or false if w is not such a row.
func manyLocksClients(w string) (int, bool) {
	n, err := strconv.Atoi(strings.TrimPrefix(w, manyLocksPrefix))
	return n, strings.HasPrefix(w, manyLocksPrefix) && err == nil && n >= 1
}

// runManyLocks runs goroutines goroutines over clients sessions of im
// (goroutine g on session g mod clients), each looping acquire → section
// → release on its own lock for the duration. A violation is a goroutine
// finding another inside its lock. Then every goroutine takes its lock once
// more and keeps it while the heap and the goroutines are counted: what a
// held lock costs beyond its caller (runManyLocks's own goroutines exist on
// both sides of the count).
func runManyLocks(e env, im impl, clients, goroutines int) result {
	r := result{Impl: im.name(), Workload: fmt.Sprintf("%s%d", manyLocksPrefix, clients), Clients: clients, Waiters: goroutines}
	sessions, done, err := e.sessions(im, clients)
	if err != nil {
		r.Error = err.Error()
		return r
	}
	defer done()
	acqs := make([]acquirer, goroutines)
	for g := range acqs {
		acqs[g] = im.mutex(sessions[g%clients], fmt.Sprintf("/bench/%s/many/%d", im.name(), g))
		if acqs[g] == nil {
			r.Error = "not supported"
			return r
		}
	}
	ctx, cancel := context.WithTimeout(context.Background(), e.duration+2*time.Minute)
	defer cancel()
	var (
		cycles, violations atomic.Int64
		inside             = make([]atomic.Int32, goroutines)
	)
	// The held phase: once every loop is over and the heap and goroutines
	// are counted, every goroutine acquires again, says so on held, and
	// keeps its lock until hold is closed.
	var (
		acquire = make(chan struct{})
		held    = make(chan error, goroutines)
		hold    = make(chan struct{})
	)
	reqs0, srv0, cpu0 := requests(sessions), e.received(), processCPU()
	stop := time.Now().Add(e.duration)
	start := time.Now()
	var loops sync.WaitGroup
	loops.Add(goroutines)
	g, gctx := errgroup.WithContext(ctx)
	for i := range goroutines {
		g.Go(func() error {
			actx := gctx
			if e.noCancel {
				actx = context.Background()
			}
			err := func() error {
				defer loops.Done()
				for time.Now().Before(stop) {
					rel, err := acqs[i](actx)
					if err != nil {
						return err
					}
					if inside[i].Add(1) != 1 {
						violations.Add(1)
					}
					inside[i].Add(-1)
					if err := rel(actx); err != nil {
						return err
					}
					cycles.Add(1)
				}
				return nil
			}()
			if err != nil {
				return err
			}
			select {
			case <-acquire:
			case <-gctx.Done():
				return nil
			}
			rel, err := acqs[i](actx)
			held <- err
			if err != nil {
				return err
			}
			select {
			case <-hold:
			case <-gctx.Done():
			}
			return rel(actx)
		})
	}
	loops.Wait()
	elapsed, cpu := time.Since(start), processCPU()-cpu0
	reqs, srv := requests(sessions)-reqs0, e.received()-srv0
	r.Cycles, r.Seconds = cycles.Load(), elapsed.Seconds()
	r.CyclesPerSec = float64(r.Cycles) / r.Seconds
	if r.Cycles > 0 {
		r.ClientReqs = float64(reqs) / float64(r.Cycles)
		r.ServerReqs = float64(srv) / float64(r.Cycles)
		r.CPUPerCycleUs = float64(cpu.Microseconds()) / float64(r.Cycles)
	}
	if gctx.Err() == nil {
		// Before: every goroutine parked between its loop and its last
		// acquire; after: every lock held, its goroutine parked.
		heap0, goros0 := liveHeap(), runtime.NumGoroutine()
		close(acquire)
		ok := true
		for range goroutines {
			if err := <-held; err != nil {
				ok = false
				break
			}
		}
		if ok {
			heap1, goros1 := liveHeap(), runtime.NumGoroutine()
			r.HeapPerWaiter = float64(heap1-heap0) / float64(goroutines)
			r.GorosPerWaiter = float64(goros1-goros0) / float64(goroutines)
		}
	}
	close(hold)
	if err := g.Wait(); err != nil {
		r.Error = err.Error()
	}
	r.Violations = violations.Load()
	return r
}

// liveHeap is the bytes of live heap objects, after a collection.
func liveHeap() int64 {
	runtime.GC()
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	return int64(m.HeapAlloc)
}

// printManyLocks prints the many-locks rows: throughput with its ratios to
// the floor, and what each held lock costs.
func printManyLocks(rs []result) {
	if len(rs) == 0 {
		return
	}
	fmt.Println()
	floorOf := floorRows(rs)
	tw := tabwriter.NewWriter(os.Stdout, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "workload\timpl\tgoroutines\tcycles/s\tvs floor\tvs floor (median of rounds [95 % CI])\treq/cycle (client)\treq/cycle (server)\tclient CPU µs/cycle\theap B/held lock\tgoroutines/held lock\tviolations\t")
	for _, r := range rs {
		if r.Error != "" {
			fmt.Fprintf(tw, "%s\t%s\terror: %s\t\t\t\t\t\t\t\t\t\t\n", r.Workload, r.Impl, r.Error)
			continue
		}
		ratio, client, cpu, heap, goros := "", "–", "–", "–", "–"
		if f, ok := floorOf[r.Workload]; ok && f.CyclesPerSec > 0 && r.CyclesPerSec > 0 {
			ratio = fmt.Sprintf("%.2f×", r.CyclesPerSec/f.CyclesPerSec)
		}
		if r.ClientReqs > 0 {
			client, cpu = fmt.Sprintf("%.2f", r.ClientReqs), fmt.Sprintf("%.0f", r.CPUPerCycleUs)
			heap, goros = fmt.Sprintf("%.0f", r.HeapPerWaiter), fmt.Sprintf("%.2f", r.GorosPerWaiter)
		}
		fmt.Fprintf(tw, "%s\t%s\t%d\t%.0f\t%s\t%s\t%s\t%.2f\t%s\t%s\t%s\t%d\t\n", r.Workload, r.Impl, r.Waiters, r.CyclesPerSec, ratio, pairedText(r),
			client, r.ServerReqs, cpu, heap, goros, r.Violations)
	}
	tw.Flush()
	printOver(rs)
}
