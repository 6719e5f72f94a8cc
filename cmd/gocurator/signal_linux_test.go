package main

import (
	"strconv"
	"strings"
	"syscall"
	"testing"
)

// gocurator ignores the job-control signals (TSTP, TTIN, TTOU) for itself,
// but its command starts with them at their default action, as a shell
// would start it: a command that reads the terminal from the background is
// stopped (SIGTTIN) rather than fed EIO. Signals gocurator forwards are at
// their default in the command too. Both lock and elect.
func TestCommandStartsWithDefaultJobControlSignals(t *testing.T) {
	b := newBoard(t)
	for _, args := range [][]string{
		{"lock", "/lock", "--", self},
		{"elect", "/election", "--", self},
	} {
		out, errOut, status := b.run(b.env(b.helper("status", "S")...), args...)
		if status != 0 {
			t.Fatalf("%s: status %d, stderr %q", args[0], status, errOut)
		}
		var ignored uint64
		found := false
		for _, l := range strings.Split(out, "\n") {
			if v, ok := strings.CutPrefix(l, "STATUS SigIgn:"); ok {
				mask, err := strconv.ParseUint(strings.TrimSpace(v), 16, 64)
				if err != nil {
					t.Fatalf("%s: the command printed %q", args[0], l)
				}
				ignored, found = mask, true
			}
		}
		if !found {
			t.Fatalf("%s: no SigIgn line in the command's output %q", args[0], out)
		}
		for _, s := range []syscall.Signal{syscall.SIGTSTP, syscall.SIGTTIN, syscall.SIGTTOU,
			syscall.SIGINT, syscall.SIGTERM, syscall.SIGHUP, syscall.SIGQUIT, syscall.SIGUSR1, syscall.SIGUSR2} {
			if ignored&(1<<(uint(s)-1)) != 0 {
				t.Errorf("%s: the command starts with %v ignored (SigIgn %#x), want its default action", args[0], s, ignored)
			}
		}
	}
}
