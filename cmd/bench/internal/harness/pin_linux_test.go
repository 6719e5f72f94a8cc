package harness

import (
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
)

// --pin confines every thread of the process to CPU 0, with GOMAXPROCS 1,
// and leaves the other CPUs to the servers. It runs in a child process: the
// test binary's own threads must stay free.
func TestPinClient(t *testing.T) {
	if os.Getenv("BENCH_PIN_CHILD") == "1" {
		cpus, err := pinClient()
		if err != nil {
			t.Fatal(err)
		}
		if len(cpus) != runtime.NumCPU()-1 || cpus[0] != 1 {
			t.Fatalf("servers' CPUs %v with %d CPUs", cpus, runtime.NumCPU())
		}
		if n := runtime.GOMAXPROCS(0); n != 1 {
			t.Fatalf("GOMAXPROCS %d, want 1", n)
		}
		done := make(chan struct{})
		go func() { // a thread made after the pinning inherits it
			runtime.LockOSThread()
			checkThreads(t)
			close(done)
		}()
		<-done
		return
	}
	if runtime.NumCPU() < 2 {
		t.Fatalf("%d CPU: --pin cannot be tested here", runtime.NumCPU())
	}
	cmd := exec.Command(os.Args[0], "-test.run", "^TestPinClient$", "-test.v")
	cmd.Env = append(os.Environ(), "BENCH_PIN_CHILD=1")
	out, err := cmd.CombinedOutput()
	if err != nil || !strings.Contains(string(out), "--- PASS: TestPinClient") {
		t.Fatalf("the pinned child: %v\n%s", err, out)
	}
}

// checkThreads fails t unless every thread of the process may run on CPU 0
// alone.
func checkThreads(t *testing.T) {
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
			if v, ok := strings.CutPrefix(line, "Cpus_allowed_list:"); ok && strings.TrimSpace(v) != "0" {
				t.Errorf("thread %s may run on CPUs %s, want 0", task.Name(), strings.TrimSpace(v))
			}
		}
	}
}
