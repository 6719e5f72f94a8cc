package supervise

import (
	"os/signal"
	"strconv"
	"strings"
	"syscall"
	"testing"
)

// jobControl are the signals a supervisor ignores so that a terminal
// cannot stop it (gocurator does).
var jobControl = []syscall.Signal{syscall.SIGTSTP, syscall.SIGTTIN, syscall.SIGTTOU}

// A supervisor that ignores the job-control signals starts the command
// with them at their default action when it asks for that (ignored
// dispositions survive exec; handled ones do not), and stays ignoring them
// itself. Signals it was not asked to reset stay as inherited.
func TestDefaultSignalsReachTheCommandAtTheirDefault(t *testing.T) {
	for _, s := range append(jobControl, syscall.SIGUSR1) {
		signal.Ignore(s)
	}
	t.Cleanup(func() { signal.Reset(syscall.SIGTSTP, syscall.SIGTTIN, syscall.SIGTTOU, syscall.SIGUSR1) })

	ignoredIn := func(cmd Command) uint64 {
		t.Helper()
		s := newShell(t, "exec grep SigIgn /proc/self/status")
		s.cmd.DefaultSignals = cmd.DefaultSignals
		g, err := Start(s.cmd)
		if err != nil {
			t.Fatal(err)
		}
		line, err := s.line.ReadString('\n')
		g.Supervise(Watch{})
		if err != nil {
			t.Fatalf("reading the command's SigIgn line: %v", err)
		}
		mask, err := strconv.ParseUint(strings.TrimSpace(strings.TrimPrefix(line, "SigIgn:")), 16, 64)
		if err != nil {
			t.Fatalf("the command printed %q", line)
		}
		return mask
	}
	bit := func(s syscall.Signal) uint64 { return 1 << (uint(s) - 1) }

	mask := ignoredIn(Command{DefaultSignals: jobControl})
	for _, s := range jobControl {
		if mask&bit(s) != 0 {
			t.Errorf("the command starts with %v ignored (SigIgn %#x), want its default action", s, mask)
		}
		if !signal.Ignored(s) {
			t.Errorf("the supervisor no longer ignores %v after the start", s)
		}
	}
	if mask&bit(syscall.SIGUSR1) == 0 {
		t.Errorf("SIGUSR1, ignored by the supervisor and not asked for, reached the command at its default (SigIgn %#x), want it inherited", mask)
	}
	if mask := ignoredIn(Command{}); mask&bit(syscall.SIGTSTP) == 0 {
		t.Errorf("without DefaultSignals, SIGTSTP reached the command at its default (SigIgn %#x), want it inherited", mask)
	}
}
