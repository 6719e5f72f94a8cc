package zkharness

import (
	"errors"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// WithCPUs confines every thread of the server's JVM to the CPUs it names,
// and a bad CPU is refused before anything starts.
func TestWithCPUsConfinesTheJVM(t *testing.T) {
	if _, err := NewServer(WithCPUs(-1)); !errors.Is(err, ErrBadCPU) {
		t.Fatalf("WithCPUs(-1): %v, want ErrBadCPU", err)
	}
	cpu := firstAllowedCPU(t)
	s, err := NewServer(WithCPUs(cpu))
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	s.mu.Lock()
	pid := s.proc.cmd.Process.Pid
	s.mu.Unlock()
	tasks, err := os.ReadDir(filepath.Join("/proc", strconv.Itoa(pid), "task"))
	if err != nil {
		t.Fatal(err)
	}
	if len(tasks) < 2 {
		t.Fatalf("the JVM has %d threads: the test proves nothing", len(tasks))
	}
	for _, task := range tasks {
		b, err := os.ReadFile(filepath.Join("/proc", strconv.Itoa(pid), "task", task.Name(), "status"))
		if err != nil {
			continue // the thread ended
		}
		for line := range strings.Lines(string(b)) {
			if v, ok := strings.CutPrefix(line, "Cpus_allowed_list:"); ok && strings.TrimSpace(v) != strconv.Itoa(cpu) {
				t.Errorf("JVM thread %s may run on CPUs %s, want %d", task.Name(), strings.TrimSpace(v), cpu)
			}
		}
	}
}

// firstAllowedCPU returns the lowest CPU this process may run on.
func firstAllowedCPU(t *testing.T) int {
	b, err := os.ReadFile("/proc/self/status")
	if err != nil {
		t.Fatal(err)
	}
	for line := range strings.Lines(string(b)) {
		if v, ok := strings.CutPrefix(line, "Cpus_allowed_list:"); ok {
			first, _, _ := strings.Cut(strings.TrimSpace(v), ",")
			first, _, _ = strings.Cut(first, "-")
			cpu, err := strconv.Atoi(first)
			if err != nil {
				t.Fatalf("Cpus_allowed_list %q", v)
			}
			return cpu
		}
	}
	t.Fatal("no Cpus_allowed_list in /proc/self/status")
	return 0
}
