package main

import (
	"context"
	"os"
	"runtime"
	"strconv"
	"strings"
	"time"

	"github.com/gocurator/curator/zkharness"
)

// sample is one look at the soak process and the ensemble.
type sample struct {
	T          float64 `json:"t"` // seconds from the start of the faults
	Goroutines int     `json:"goroutines"`
	HeapBytes  uint64  `json:"heap_bytes"` // live heap after a collection
	OpenFiles  int     `json:"open_files"` // -1 where /proc/self/fd cannot be read
	Members    int     `json:"members"`    // members that answered mntr
	Znodes     int64   `json:"znodes"`     // the most any member holds
	Ephemerals int64   `json:"ephemerals"` // the most any member holds
	Watches    int64   `json:"watches"`    // every member's, summed: each keeps its own clients'
}

// takeSample looks at this process and at every member of ens.
func takeSample(ctx context.Context, ens *zkharness.Ensemble, t float64) sample {
	runtime.GC()
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	s := sample{T: t, Goroutines: runtime.NumGoroutine(), HeapBytes: m.HeapAlloc, OpenFiles: openFiles()}
	for i := range ens.Size() {
		cctx, cancel := context.WithTimeout(ctx, 3*time.Second)
		out, err := ens.Command(cctx, i, "mntr")
		cancel()
		if err != nil || !strings.Contains(out, "zk_znode_count") {
			continue // down, or not serving (mntr then says so)
		}
		s.Members++
		s.Znodes = max(s.Znodes, mntrValue(out, "zk_znode_count"))
		s.Ephemerals = max(s.Ephemerals, mntrValue(out, "zk_ephemerals_count"))
		s.Watches += max(mntrValue(out, "zk_watch_count"), 0)
	}
	return s
}

// openFiles counts this process's open file descriptors, -1 if unknown.
func openFiles() int {
	entries, err := os.ReadDir("/proc/self/fd")
	if err != nil {
		return -1
	}
	return len(entries) - 1 // the directory's own descriptor
}

// mntrValue returns the value of key in mntr's output, -1 if absent.
func mntrValue(out, key string) int64 {
	for _, line := range strings.Split(out, "\n") {
		if v, ok := strings.CutPrefix(line, key+"\t"); ok {
			n, err := strconv.ParseInt(strings.TrimSpace(v), 10, 64)
			if err == nil {
				return n
			}
		}
	}
	return -1
}

// toSeries turns the samples into the series the growth check judges, each
// with its tolerance. The server's figures count only samples at which
// every member answered: while a member is down, its clients' watches are
// on their way to the others.
func toSeries(samples []sample, members int) []series {
	ss := []series{
		{Name: "goroutines", Unit: "count", Rel: 0.03, Abs: 5},
		{Name: "heap", Unit: "MiB, live after GC", Rel: 0.10, Abs: 1},
		{Name: "open files", Unit: "count", Rel: 0.05, Abs: 5},
		{Name: "znodes", Unit: "count, the ensemble's", Rel: 0.10, Abs: 20},
		{Name: "watches", Unit: "count, summed over the members", Rel: 0.10, Abs: 20},
	}
	add := func(i int, t, v float64) {
		ss[i].Times = append(ss[i].Times, t)
		ss[i].Values = append(ss[i].Values, v)
	}
	for _, s := range samples {
		add(0, s.T, float64(s.Goroutines))
		add(1, s.T, float64(s.HeapBytes)/(1<<20))
		if s.OpenFiles >= 0 {
			add(2, s.T, float64(s.OpenFiles))
		}
		if s.Members == members {
			add(3, s.T, float64(s.Znodes))
			add(4, s.T, float64(s.Watches))
		}
	}
	return ss
}
