package harness

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"time"
)

// peer is an implementation in another language, run as a process that
// prints the harness's JSON lines.
type peer struct {
	name     string
	supports func(workload string) bool
	run      func(e env, workload string, herdSizes []string) []result
}

const curatorJar = "/usr/share/java/curator-recipes.jar" // Debian's libcurator-recipes-java

func peers() []peer {
	return []peer{
		{"curator", func(w string) bool { return w != "memory" }, runCurator},
		{"kazoo", func(w string) bool { return w != "memory" && w != "atomic" && w != "queue" }, runKazoo}, // Kazoo's Counter is the counter workload's row; its queues are not Curator's
	}
}

// peerDir is where the peers' sources are: cmd/bench/peers.
func peerDir() string {
	_, file, _, _ := runtime.Caller(0)
	return filepath.Join(filepath.Dir(file), "..", "..", "peers")
}

func runCurator(e env, workload string, herdSizes []string) []result {
	fail := func(err error) []result {
		return []result{{Impl: "curator", Workload: workload, Error: err.Error()}}
	}
	classes, err := compileCurator()
	if err != nil {
		return fail(err)
	}
	defer os.RemoveAll(classes)
	javaAs := func(impl, name string, args ...string) []result { // impl and name: the row an error reports
		warmup := "-Dbench.warmupMs=" + strconv.FormatInt(e.peerWarmup.Milliseconds(), 10)
		return peerResults(e, impl, name, "java", append([]string{"-Xss512k", warmup, "-cp", classes + ":" + curatorJar, "CuratorBench", e.addr}, args...)...)
	}
	java := func(name string, args ...string) []result { return javaAs("curator", name, args...) }
	ms := strconv.FormatInt(e.duration.Milliseconds(), 10)
	switch workload {
	case "herd":
		var rs []result
		for _, n := range herdSizes {
			rs = append(rs, java("herd-"+n, "herd", ms, n)...)
		}
		return rs
	case "atomic-promoted": // a row of the atomic workload
		return javaAs("curator-promoted", "atomic", workload, ms)
	case "failover": // LeaderSelector, then LeaderLatch
		n := strconv.Itoa(e.failovers)
		return append(java(workload, workload, ms, n, "selector"), javaAs("curator-latch", workload, workload, ms, n, "latch")...)
	}
	if _, ok := manyLocksClients(workload); ok {
		return java(workload, workload, ms, strconv.Itoa(e.goroutines))
	}
	return java(workload, workload, ms)
}

// compileCurator compiles the Java peer into a new directory, which the
// caller removes.
func compileCurator() (classes string, err error) {
	if _, err := os.Stat(curatorJar); err != nil {
		return "", fmt.Errorf("curator is not installed (apt-get install -y libcurator-recipes-java)")
	}
	classes, err = os.MkdirTemp("", "curator-bench-")
	if err != nil {
		return "", err
	}
	if out, err := exec.Command("javac", "-nowarn", "-cp", curatorJar, "-d", classes, filepath.Join(peerDir(), "CuratorBench.java")).CombinedOutput(); err != nil {
		os.RemoveAll(classes)
		return "", fmt.Errorf("javac: %v: %s", err, out)
	}
	return classes, nil
}

// debianPython is the interpreter Debian's python3-kazoo is installed for
// (a python3 earlier on PATH, pyenv's say, may not see it).
const debianPython = "/usr/bin/python3"

func runKazoo(e env, workload string, herdSizes []string) []result {
	if out, err := exec.Command(debianPython, "-c", "import kazoo").CombinedOutput(); err != nil {
		return []result{{Impl: "kazoo", Workload: workload, Error: fmt.Sprintf("Kazoo is not installed (apt-get install -y python3-kazoo): %s", out)}}
	}
	script := filepath.Join(peerDir(), "kazoo_bench.py")
	ms := strconv.FormatInt(e.duration.Milliseconds(), 10)
	if workload == "failover" {
		return peerResults(e, "kazoo", workload, debianPython, script, e.addr, workload, ms, strconv.Itoa(e.failovers))
	}
	if _, ok := manyLocksClients(workload); ok {
		return peerResults(e, "kazoo", workload, debianPython, script, e.addr, workload, ms, strconv.Itoa(e.goroutines))
	}
	if workload != "herd" {
		return peerResults(e, "kazoo", workload, debianPython, script, e.addr, workload, ms)
	}
	var rs []result
	for _, n := range herdSizes {
		rs = append(rs, peerResults(e, "kazoo", "herd-"+n, debianPython, script, e.addr, "herd", ms, n)...)
	}
	return rs
}

// peerSlack is how much longer than its measured duration and warm-up a
// peer process may run (start-up, set-up, a herd's drains) before it is
// killed and reported as timed out: Kazoo's herd of 1000 sessions once
// never finished setting up on a slow machine, and held the whole run.
const peerSlack = 5 * time.Minute

// peerResults runs a peer, within its time limit, and decodes its JSON
// lines.
func peerResults(e env, name, workload, prog string, args ...string) []result {
	limit := e.duration + e.peerWarmup + peerSlack
	ctx, cancel := context.WithTimeout(context.Background(), limit)
	defer cancel()
	cmd := exec.CommandContext(ctx, prog, args...)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if ctx.Err() != nil {
		err = fmt.Errorf("killed after %v, the peer's time limit: %w", limit, err)
	}
	var rs []result
	sc := bufio.NewScanner(bytes.NewReader(out))
	for sc.Scan() {
		var r result
		if json.Unmarshal(sc.Bytes(), &r) == nil && r.Impl != "" {
			rs = append(rs, r)
		}
	}
	if err != nil || len(rs) == 0 {
		tail := stderr.String()
		if len(tail) > 400 {
			tail = tail[len(tail)-400:]
		}
		rs = append(rs, result{Impl: name, Workload: workload, Error: fmt.Sprintf("%v: %s", err, tail)})
	}
	return rs
}
