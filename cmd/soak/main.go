// Command soak runs every recipe together for a long time on a 3-member
// ZooKeeper ensemble, with a fault every minute, and fails if a resource of
// its process or of the ensemble grows without bound or a recipe's
// invariant breaks.
//
// One process holds the clients (4 by default, each through a fault proxy
// in front of every member) and, on each, the recipes: a mutex and a
// semaphore (at most 1 and 2 holds current at once), a leader latch and a
// leader selector (at most one term current), a tree cache (every cache
// converges on a marker the writer sets every 15 s, and ends equal to the
// server's tree), a shared count and an atomic long (the node ends within
// the increments acknowledged and those of unknown outcome), a barrier (no
// waiter passes before the removal) and a lock-safe queue (every item put
// is consumed). Faults, in turn: kill -9 of a follower and of the leader
// (each restarted after --down), every client connection cut, and one
// client's session expired. Every --sample it records its goroutines, its
// live heap, its open files, and the ensemble's node and watch counts
// (mntr). At the end the growth check judges each series (see growth.go),
// every recipe closes and must leave no ephemeral node, and with the
// clients closed the goroutines must be back where they were.
//
//	go run ./cmd/soak --duration 30m            # scripts/soak
//	go run ./cmd/soak --duration 2m --fault-every 15s --dir /tmp/soak
//
// It writes samples.jsonl, report.json and soak.svg (the plot) to --dir,
// prints a summary, and exits 1 if anything failed. docs/performance.md
// explains the check.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"maps"
	"os"
	"os/signal"
	"slices"
	"strings"
	"syscall"
	"text/tabwriter"
	"time"
)

func main() {
	os.Exit(runMain(os.Args[1:], os.Stdout, os.Stderr))
}

// runMain parses the flags, runs the soak and prints its summary; it
// returns the exit status: 0 if it passed, 1 if not, 2 on a bad flag or a
// run that could not be made.
func runMain(args []string, stdout, stderr io.Writer) int {
	cfg, err := parseFlags(args, stderr)
	if err != nil {
		if !errors.Is(err, flag.ErrHelp) {
			fmt.Fprintln(stderr, err)
		}
		return 2
	}
	log := slog.New(slog.NewTextHandler(stderr, nil))
	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGINT, syscall.SIGTERM)
	defer stop()
	r, err := run(ctx, cfg, log)
	if err != nil {
		fmt.Fprintln(stderr, "soak:", err)
		return 2
	}
	printReport(stdout, r, cfg.dir)
	if !r.OK {
		return 1
	}
	return 0
}

// parseFlags reads the soak's flags.
func parseFlags(args []string, stderr io.Writer) (config, error) {
	var cfg config
	fs := flag.NewFlagSet("soak", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.DurationVar(&cfg.duration, "duration", 30*time.Minute, "how long the recipes run under faults")
	fs.DurationVar(&cfg.faultEvery, "fault-every", time.Minute, "one fault this often")
	fs.DurationVar(&cfg.sampleEvery, "sample", 5*time.Second, "how often the process and the ensemble are sampled")
	fs.IntVar(&cfg.clients, "clients", 4, "clients, each running every recipe")
	fs.DurationVar(&cfg.tick, "tick", 200*time.Millisecond, "ZooKeeper's tickTime")
	fs.DurationVar(&cfg.session, "session", 4*time.Second, "the clients' session timeout")
	fs.DurationVar(&cfg.down, "down", 2*time.Second, "how long a killed member stays down")
	fs.DurationVar(&cfg.settle, "settle", 30*time.Second, "longest wait for a cache to converge, the queue to drain, the goroutines to end")
	fs.DurationVar(&cfg.grace, "grace", 5*time.Second, "how long a holder that began beside others waits for their losses to be reported")
	faults := fs.String("faults", strings.Join(allFaults(), ","), "faults to inject, in turn, comma-separated")
	fs.StringVar(&cfg.dir, "dir", "soak-out", "directory for samples.jsonl, report.json and soak.svg")
	fs.Uint64Var(&cfg.seed, "seed", uint64(time.Now().UnixNano()), "seed of the faults' targets")
	fs.BoolVar(&cfg.verbose, "verbose", false, "the clients log at info level to stderr")
	if err := fs.Parse(args); err != nil {
		return cfg, err
	}
	if fs.NArg() > 0 {
		return cfg, fmt.Errorf("soak: unexpected argument %q", fs.Arg(0))
	}
	for _, f := range strings.Split(*faults, ",") {
		if f = strings.TrimSpace(f); f == "" {
			continue
		}
		if !slices.Contains(allFaults(), f) {
			return cfg, fmt.Errorf("soak: --faults: unknown fault %q (known: %s)", f, strings.Join(allFaults(), ", "))
		}
		cfg.faults = append(cfg.faults, f)
	}
	switch {
	case len(cfg.faults) == 0:
		return cfg, errors.New("soak: --faults: no fault")
	case cfg.clients < 1:
		return cfg, errors.New("soak: --clients must be at least 1")
	case cfg.duration <= 0 || cfg.faultEvery <= 0 || cfg.sampleEvery <= 0 || cfg.tick <= 0 || cfg.session <= 0 || cfg.down < 0 || cfg.settle <= 0 || cfg.grace <= 0:
		return cfg, errors.New("soak: durations must be positive")
	}
	return cfg, nil
}

// printReport prints the run's outcome: the growth checks, the parts'
// counts, the faults and every finding.
func printReport(w io.Writer, r *report, dir string) {
	verdict := "PASS"
	if !r.OK {
		verdict = "FAIL"
	}
	fmt.Fprintf(w, "soak: %s after %.1f min of faults (%d faults, %d samples, %d clients); files in %s\n\n", verdict, r.Seconds/60, len(r.Faults), r.Samples, r.Clients, dir)
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "series\tsamples\tfirst third median\tlast third median\tlimit\tslope /min\tverdict\t")
	for _, g := range r.Growth {
		v := "flat"
		switch {
		case g.Grows:
			v = "GROWS"
		case g.Note != "":
			v = "not judged: " + g.Note
		}
		fmt.Fprintf(tw, "%s\t%d\t%.2f\t%.2f\t%.2f\t%+.3f\t%s\t\n", g.Series, g.Samples, g.FirstMedian, g.LastMedian, g.Limit, g.SlopePerMin, v)
	}
	tw.Flush()
	fmt.Fprintln(w)
	for _, p := range r.Parts {
		var kv []string
		for _, k := range slices.Sorted(maps.Keys(p.Stats)) {
			kv = append(kv, fmt.Sprintf("%s %d", k, p.Stats[k]))
		}
		fmt.Fprintf(w, "%-13s %s\n", p.Name+":", strings.Join(kv, ", "))
	}
	kinds := map[string]int{}
	for _, f := range r.Faults {
		kinds[f.Kind]++
	}
	fmt.Fprintf(w, "\nfaults: %v; goroutines before the clients and after every close: %d, %d; ephemeral nodes after the recipes closed: %d\n", kinds, r.Goroutines[0], r.Goroutines[1], r.Ephemerals)
	for _, d := range r.Divergence {
		fmt.Fprintln(w, "server divergence (the server's fault, not a client's):", d)
	}
	for _, f := range r.Findings {
		fmt.Fprintf(w, "FINDING at %.1f s, %s: %s\n", f.At, f.Part, f.What)
	}
}
