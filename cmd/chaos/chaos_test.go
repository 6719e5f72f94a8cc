package main

import (
	"bytes"
	"context"
	"log/slog"
	"maps"
	"os"
	"os/exec"
	"slices"
	"testing"
	"time"

	"github.com/gocurator/curator/recipestest"
)

// workerEnv makes the test binary run as a chaos worker.
const workerEnv = "GOCURATOR_CHAOS_WORKER"

func TestMain(m *testing.M) {
	if os.Getenv(workerEnv) != "" {
		os.Exit(runWorker(os.Args[1:], os.Stderr))
	}
	recipestest.VerifyTestMain(m, nil)
}

// testSpawner runs workers as this test binary.
func testSpawner(args []string) *exec.Cmd {
	cmd := exec.Command(os.Args[0], args...)
	cmd.Env = append(os.Environ(), workerEnv+"=1")
	return cmd
}

// A reduced chaos run: three worker processes, every fault once, with
// 2-second sessions. It fails on any client-side violation; server-side
// findings (ZooKeeper's own divergence) are logged.
func TestChaosShort(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a 3-member ensemble and worker processes")
	}
	cfg := config{
		duration: 0, // one round: every fault once
		workers:  3,
		faults:   allFaults(),
		tick:     250 * time.Millisecond,
		session:  2 * time.Second,
		pause:    4 * time.Second,
		down:     time.Second,
		gap:      500 * time.Millisecond,
		settle:   30 * time.Second,
		writes:   2,
		policy:   "mixed",
		dir:      keepOnFailure(t),
		seed:     uint64(time.Now().UnixNano()),
		lockPath: "/chaos/lock", logPath: "/chaos/log", counterPath: "/chaos/counter", members: "/chaos/members", services: "/chaos/services",
		txnTimeout: time.Second,
	}
	var logs bytes.Buffer
	log := slog.New(slog.NewTextHandler(&logs, nil))
	r, err := run(context.Background(), cfg, testSpawner, log)
	t.Log(logs.String())
	if err != nil {
		t.Fatal(err)
	}
	var table bytes.Buffer
	r.writeTable(&table)
	t.Log(table.String())
	if len(r.Server) > 0 {
		t.Logf("server-side findings (ZooKeeper's, not the client's): %v", r.Server)
	}
	if r.Faults[faultFollowerKill]+r.Faults[faultLeaderKill] == 0 || r.Holds == 0 || r.Writes[outOK] == 0 {
		t.Errorf("the run did too little to prove anything: faults %v, %d holds, writes %v", r.Faults, r.Holds, r.Writes)
	}
	for _, kind := range slices.Sorted(maps.Keys(r.Violations)) {
		t.Errorf("%s: %d, e.g. %q", kind, r.Violations[kind], r.Examples[kind])
	}
}

// The queue workload, reduced as TestChaosShort: three workers each
// producing into and consuming from one queue. Lock-safe, with every fault
// once: no item lost, none consumed twice unless a lost lock explains it.
// Plain, with the faults that take items from under a consumer (lost
// replies, cut connections, a kill, an expiry), to keep the test short:
// none consumed twice. Either: every acknowledged put in the queue, the
// queue drained, no lock node left.
func TestChaosQueueShort(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a 3-member ensemble and worker processes")
	}
	for mode, faults := range map[string][]string{
		"lock-safe": allFaults(),
		"plain":     {faultDropReply, faultDisconnect, faultHolderKill, faultSessionExpire},
	} {
		t.Run(mode, func(t *testing.T) {
			cfg := config{
				duration: 0, workers: 3, faults: faults,
				tick: 250 * time.Millisecond, session: 2 * time.Second, pause: 4 * time.Second, down: time.Second,
				gap: 500 * time.Millisecond, settle: 30 * time.Second, policy: "mixed",
				dir: keepOnFailure(t), seed: uint64(time.Now().UnixNano()),
				lockPath: "/chaos/qlocks", logPath: "/chaos/log", queuePath: "/chaos/queue",
				txnTimeout: time.Second, workload: "queue", queueMode: mode,
			}
			var logs bytes.Buffer
			r, err := run(context.Background(), cfg, testSpawner, slog.New(slog.NewTextHandler(&logs, nil)))
			t.Log(logs.String())
			if err != nil {
				t.Fatal(err)
			}
			var table bytes.Buffer
			r.writeTable(&table)
			t.Log(table.String())
			if len(r.Server) > 0 {
				t.Logf("server-side findings (ZooKeeper's, not the client's): %v", r.Server)
			}
			if len(r.Faults) < len(faults) || r.Deliveries == 0 || r.Puts[outOK] == 0 {
				t.Errorf("the run did too little to prove anything: faults %v, %d items consumed, puts %v", r.Faults, r.Deliveries, r.Puts)
			}
			for _, kind := range slices.Sorted(maps.Keys(r.Violations)) {
				t.Errorf("%s: %d, e.g. %q", kind, r.Violations[kind], r.Examples[kind])
			}
		})
	}
}

// keepOnFailure returns a new directory for the run's evidence, removed
// after the test unless it failed.
func keepOnFailure(t *testing.T) string {
	dir, err := os.MkdirTemp("", "chaos-test-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if t.Failed() {
			t.Logf("evidence kept in %s", dir)
			return
		}
		os.RemoveAll(dir)
	})
	return dir
}
