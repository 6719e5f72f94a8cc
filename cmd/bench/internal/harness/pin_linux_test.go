package harness

import (
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"testing"
)

// --pin confines every thread of the process to one CPU, the first it may
// run on, with GOMAXPROCS 1, and leaves the other CPUs to the servers. It
// runs in a child process: the test binary's own threads must stay free.
func TestPinClient(t *testing.T) {
	if os.Getenv("BENCH_PIN_CHILD") == "1" {
		allowed := allowedCPUs(t)
		cpus, err := pinClient()
		if err != nil {
			t.Fatal(err)
		}
		if want := strings.Join(allowed[1:], ","); intsList(cpus) != want {
			t.Fatalf("servers' CPUs %v, want %s", cpus, want)
		}
		if n := runtime.GOMAXPROCS(0); n != 1 {
			t.Fatalf("GOMAXPROCS %d, want 1", n)
		}
		done := make(chan struct{})
		go func() { // a thread made after the pinning inherits it
			runtime.LockOSThread()
			checkThreads(t, allowed[0])
			close(done)
		}()
		<-done
		return
	}
	if n := len(allowedCPUs(t)); n < 2 {
		t.Fatalf("%d CPU: --pin cannot be tested here", n)
	}
	cmd := exec.Command(os.Args[0], "-test.run", "^TestPinClient$", "-test.v")
	cmd.Env = append(os.Environ(), "BENCH_PIN_CHILD=1")
	out, err := cmd.CombinedOutput()
	if err != nil || !strings.Contains(string(out), "--- PASS: TestPinClient") {
		t.Fatalf("the pinned child: %v\n%s", err, out)
	}
}

// checkThreads fails t unless every thread of the process may run on cpu
// alone.
func checkThreads(t *testing.T, cpu string) {
	tasks, err := os.ReadDir("/proc/self/task")
	if err != nil {
		t.Error(err)
		return
	}
	for _, task := range tasks {
		b, err := os.ReadFile(filepath.Join("/proc/self/task", task.Name(), "status"))
		if err != nil {
			continue // the thread ended
		}
		for line := range strings.Lines(string(b)) {
			if v, ok := strings.CutPrefix(line, "Cpus_allowed_list:"); ok && strings.TrimSpace(v) != cpu {
				t.Errorf("thread %s may run on CPUs %s, want %s", task.Name(), strings.TrimSpace(v), cpu)
			}
		}
	}
}

// allowedCPUs returns the CPUs the process may run on, from
// runtime.NumCPU's own source (the affinity mask), as /proc lists them.
func allowedCPUs(t *testing.T) []string {
	b, err := os.ReadFile("/proc/self/status")
	if err != nil {
		t.Fatal(err)
	}
	for line := range strings.Lines(string(b)) {
		if v, ok := strings.CutPrefix(line, "Cpus_allowed_list:"); ok {
			var cpus []string
			for _, part := range strings.Split(strings.TrimSpace(v), ",") {
				lo, hi, isRange := strings.Cut(part, "-")
				if !isRange {
					hi = lo
				}
				a, err1 := strconv.Atoi(lo)
				b, err2 := strconv.Atoi(hi)
				if err1 != nil || err2 != nil {
					t.Fatalf("Cpus_allowed_list %q", v)
				}
				for cpu := a; cpu <= b; cpu++ {
					cpus = append(cpus, strconv.Itoa(cpu))
				}
			}
			return cpus
		}
	}
	t.Fatal("no Cpus_allowed_list in /proc/self/status")
	return nil
}

// intsList is cpus as a comma-separated list.
func intsList(cpus []int) string {
	s := make([]string, len(cpus))
	for i, c := range cpus {
		s[i] = strconv.Itoa(c)
	}
	return strings.Join(s, ",")
}
