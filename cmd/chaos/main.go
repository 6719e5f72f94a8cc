// Command chaos is the lock and queue recipes' chaos suite: a 3-member
// ZooKeeper ensemble on loopback, separate worker processes contending for
// one locks.Mutex and doing fenced writes to a log in every critical
// section (or, with --workload queue, each producing into and consuming
// from one queue.Queue), and faults: follower and leader kills, kill -9 and
// SIGSTOP of the holder, session expiry, lost replies and cut connections.
// Afterwards it reads every member's transaction log and checks what the
// workers reported against what the ensemble did.
//
//	go run ./cmd/chaos                        # 5 minutes of faults, 4 workers
//	go run ./cmd/chaos --duration 30s --workers 3
//	go run ./cmd/chaos --workload queue --duration 2m
//
// It prints one JSON line and a table, and exits 1 on any client-side
// violation. docs/chaos.md explains the checks.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"os"
	"os/exec"
	"os/signal"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"time"
)

func main() {
	if len(os.Args) > 1 && os.Args[1] == "worker" {
		os.Exit(runWorker(os.Args[2:], os.Stderr))
	}
	os.Exit(runMain(os.Args[1:], os.Stdout, os.Stderr, selfSpawner()))
}

// selfSpawner runs workers as this binary's "worker" subcommand.
func selfSpawner() spawner {
	exe, err := os.Executable()
	if err != nil {
		exe = os.Args[0]
	}
	return func(args []string) *exec.Cmd { return exec.Command(exe, append([]string{"worker"}, args...)...) }
}

// runMain parses the flags, runs the suite and prints the report; it
// returns the exit status: 0 if no client-side violation, 1 if any, 2 on a
// bad flag or a run that could not be made.
func runMain(args []string, stdout, stderr io.Writer, spawn spawner) int {
	cfg, keep, err := parseFlags(args, stderr)
	if err != nil {
		if !errors.Is(err, flag.ErrHelp) {
			fmt.Fprintln(stderr, err)
		}
		return 2
	}
	log := slog.New(slog.NewTextHandler(stderr, nil))
	if cfg.dir == "" {
		if cfg.dir, err = os.MkdirTemp("", "chaos-"); err != nil {
			fmt.Fprintln(stderr, "chaos:", err)
			return 2
		}
	} else if err := os.MkdirAll(cfg.dir, 0o755); err != nil {
		fmt.Fprintln(stderr, "chaos:", err)
		return 2
	}
	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGINT, syscall.SIGTERM)
	defer stop()
	r, err := run(ctx, cfg, spawn, log)
	if err != nil {
		fmt.Fprintln(stderr, "chaos:", err, "(worker output in "+cfg.dir+")")
		return 2
	}
	if err := r.writeJSON(stdout); err != nil {
		fmt.Fprintln(stderr, "chaos:", err)
	}
	r.writeTable(stdout)
	if r.OK && !keep {
		os.RemoveAll(cfg.dir)
	}
	if !r.OK {
		return 1
	}
	return 0
}

// defaultFaults is --faults' default: every kind, the holder's SIGSTOP
// twice a round (where it lands in the critical section matters most).
func defaultFaults() string {
	var kinds []string
	for _, f := range allFaults() {
		if f == faultHolderStop {
			f += "=2"
		}
		kinds = append(kinds, f)
	}
	return strings.Join(kinds, ",")
}

// parseFlags reads the suite's flags.
func parseFlags(args []string, stderr io.Writer) (config, bool, error) {
	cfg := config{lockPath: "/chaos/lock", logPath: "/chaos/log", counterPath: "/chaos/counter", queuePath: "/chaos/queue",
		members: "/chaos/members", services: "/chaos/services"}
	fs := flag.NewFlagSet("chaos", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.DurationVar(&cfg.duration, "duration", 5*time.Minute, "how long to inject faults (each kind is injected at least once)")
	fs.IntVar(&cfg.workers, "workers", 4, "worker processes contending for the lock")
	fs.StringVar(&cfg.counterPath, "counter", cfg.counterPath, "the atomic long every worker increments beside its lock work (\"\": none)")
	faults := fs.String("faults", defaultFaults(), "faults to inject, comma-separated; kind=N puts N of that kind in every round")
	fs.DurationVar(&cfg.tick, "tick", 250*time.Millisecond, "ZooKeeper's tickTime")
	fs.DurationVar(&cfg.session, "session", 5*time.Second, "the workers' session timeout")
	fs.DurationVar(&cfg.pause, "pause", 0, "how long holder-stop keeps the holder stopped (default: twice the session timeout)")
	fs.DurationVar(&cfg.down, "down", 2*time.Second, "how long a killed member stays down")
	fs.DurationVar(&cfg.gap, "gap", 3*time.Second, "mean quiet time between two faults")
	fs.DurationVar(&cfg.settle, "settle", time.Minute, "longest wait for every worker to acquire after the last fault")
	fs.IntVar(&cfg.writes, "writes", 2, "fenced writes per hold")
	fs.DurationVar(&cfg.txnTimeout, "txn-timeout", 2*time.Second, "deadline of each fenced write (shorter than --pause, so that a stopped writer's deadline passes)")
	fs.StringVar(&cfg.policy, "policy", "mixed", "the workers' connection error policy: standard, session, or mixed (odd workers standard)")
	fs.StringVar(&cfg.dir, "dir", "", "directory for the workers' output (default: a new temporary one, removed after a clean run)")
	keep := fs.Bool("keep", false, "keep the workers' output after a clean run")
	fs.Uint64Var(&cfg.seed, "seed", uint64(time.Now().UnixNano()), "seed of the fault order")
	fs.BoolVar(&cfg.verbose, "verbose", false, "the workers' library logs at debug level to their stderr files")
	fs.StringVar(&cfg.workload, "workload", "lock", "lock: the workers contend for a mutex and write under its fence; queue: each worker produces into and consumes from one queue")
	fs.StringVar(&cfg.queueMode, "queue-mode", "lock-safe", "the queue workload's consumers: lock-safe (at least once, none lost) or plain (at most once)")
	if err := fs.Parse(args); err != nil {
		return cfg, false, err
	}
	if fs.NArg() > 0 {
		return cfg, false, fmt.Errorf("chaos: unexpected argument %q", fs.Arg(0))
	}
	cfg.faults = nil
	for _, f := range strings.Split(*faults, ",") {
		if f = strings.TrimSpace(f); f == "" {
			continue
		}
		kind, weight, found := strings.Cut(f, "=")
		n := 1
		if found {
			var err error
			if n, err = strconv.Atoi(weight); err != nil || n < 0 {
				return cfg, false, fmt.Errorf("chaos: --faults: %q: want kind=N with N a count", f)
			}
		}
		if !slices.Contains(allFaults(), kind) {
			return cfg, false, fmt.Errorf("chaos: --faults: unknown fault %q (known: %s)", kind, strings.Join(allFaults(), ", "))
		}
		for range n {
			cfg.faults = append(cfg.faults, kind)
		}
	}
	if cfg.pause == 0 {
		cfg.pause = 2 * cfg.session
	}
	if cfg.workload == "queue" {
		cfg.lockPath = "/chaos/qlocks" // the queue's lock path: Curator's lockPath
	}
	switch {
	case len(cfg.faults) == 0:
		return cfg, false, errors.New("chaos: --faults: no fault")
	case cfg.workers < 1:
		return cfg, false, errors.New("chaos: --workers must be at least 1")
	case cfg.policy != "standard" && cfg.policy != "session" && cfg.policy != "mixed":
		return cfg, false, fmt.Errorf("chaos: --policy %q: want standard, session or mixed", cfg.policy)
	case cfg.workload != "lock" && cfg.workload != "queue":
		return cfg, false, fmt.Errorf("chaos: --workload %q: want lock or queue", cfg.workload)
	case cfg.queueMode != "lock-safe" && cfg.queueMode != "plain":
		return cfg, false, fmt.Errorf("chaos: --queue-mode %q: want lock-safe or plain", cfg.queueMode)
	case cfg.duration < 0 || cfg.tick <= 0 || cfg.session <= 0 || cfg.pause < 0 || cfg.down < 0 || cfg.gap < 0 || cfg.settle <= 0 || cfg.writes < 0 || cfg.txnTimeout <= 0:
		return cfg, false, errors.New("chaos: durations and counts must be positive")
	}
	return cfg, *keep, nil
}
