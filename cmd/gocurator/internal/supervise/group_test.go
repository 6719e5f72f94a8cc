//go:build unix

package supervise

import (
	"bufio"
	"errors"
	"io/fs"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// shell runs script under sh -c, with its standard output on a pipe whose
// first line the test reads (a process id the script prints).
type shell struct {
	cmd  Command
	r    *os.File
	line *bufio.Reader
}

func newShell(t *testing.T, script string) *shell {
	t.Helper()
	sh, err := exec.LookPath("sh")
	if err != nil {
		t.Skip("no sh")
	}
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { r.Close(); w.Close() })
	return &shell{cmd: Command{Path: sh, Args: []string{"sh", "-c", script}, Stdout: w}, r: r, line: bufio.NewReader(r)}
}

// pid reads the next line of the script's output as a process id.
func (s *shell) pid(t *testing.T) int {
	t.Helper()
	line, err := s.line.ReadString('\n')
	if err != nil {
		t.Fatalf("reading the script's output: %v", err)
	}
	pid, err := strconv.Atoi(strings.TrimSpace(line))
	if err != nil {
		t.Fatalf("the script printed %q, not a process id", line)
	}
	return pid
}

// gone reports whether no process pid exists, not even a zombie: the group
// was reaped, down to the orphans this process adopted as subreaper.
func gone(pid int) bool { return errors.Is(syscall.Kill(pid, 0), syscall.ESRCH) }

func TestExitStatusIsTheCommands(t *testing.T) {
	s := newShell(t, "exit 7")
	r, err := Run(s.cmd, Watch{})
	if err != nil {
		t.Fatal(err)
	}
	if r.Status.ExitCode() != 7 || r.Lost || r.Leftovers || r.Killed {
		t.Fatalf("got %+v, want exit status 7 and nothing else", r)
	}
}

func TestSignalsReachTheWholeGroup(t *testing.T) {
	s := newShell(t, "sleep 1000 & echo $!; wait")
	g, err := Start(s.cmd)
	if err != nil {
		t.Fatal(err)
	}
	grandchild := s.pid(t)
	sigs := make(chan os.Signal, 1)
	sigs <- syscall.SIGTERM
	r := g.Supervise(Watch{Signals: sigs, Grace: func() time.Duration { return time.Hour }})
	if r.Status.Signal != syscall.SIGTERM || r.Lost || r.Killed {
		t.Fatalf("got %+v, want the shell killed by SIGTERM, no SIGKILL", r)
	}
	if !gone(grandchild) {
		t.Fatalf("the shell's job %d outlived Supervise", grandchild)
	}
}

func TestLossStopsTheGroupAndKillsWhatIgnoresSIGTERM(t *testing.T) {
	s := newShell(t, `trap "" TERM; sleep 1000 & echo $!; wait`)
	g, err := Start(s.cmd)
	if err != nil {
		t.Fatal(err)
	}
	grandchild := s.pid(t)
	lost := make(chan struct{})
	close(lost)
	r := g.Supervise(Watch{Lost: lost, Grace: func() time.Duration { return 50 * time.Millisecond }})
	if !r.Lost || !r.Killed || r.Status.Signal != syscall.SIGKILL {
		t.Fatalf("got %+v, want lost, and the shell killed by SIGKILL", r)
	}
	if !gone(grandchild) {
		t.Fatalf("the shell's job %d, which ignores SIGTERM, outlived Supervise", grandchild)
	}
}

func TestLeftoversAreStoppedWhenTheCommandExits(t *testing.T) {
	s := newShell(t, "sleep 1000 & echo $!")
	g, err := Start(s.cmd)
	if err != nil {
		t.Fatal(err)
	}
	grandchild := s.pid(t)
	r := g.Supervise(Watch{Grace: func() time.Duration { return time.Hour }})
	if r.Status.ExitCode() != 0 || !r.Leftovers || r.Killed || r.Lost {
		t.Fatalf("got %+v, want exit status 0 with leftovers stopped by SIGTERM", r)
	}
	if !gone(grandchild) {
		t.Fatalf("the background job %d outlived Supervise", grandchild)
	}
}

func TestStartReportsAMissingCommand(t *testing.T) {
	_, err := Start(Command{Path: "/nonexistent/command", Args: []string{"command"}})
	if !errors.Is(err, fs.ErrNotExist) {
		t.Fatalf("got %v, want an error matching fs.ErrNotExist", err)
	}
	if _, err := Start(Command{}); err == nil {
		t.Fatal("an empty command started")
	}
}

func TestStatusString(t *testing.T) {
	for s, want := range map[Status]string{
		{Code: 3}:                 "exit status 3",
		{Signal: syscall.SIGKILL}: "killed by signal 9 (killed)",
		{Code: 0, Signal: 0}:      "exit status 0",
		{Signal: syscall.SIGTERM}: "killed by signal 15 (terminated)",
	} {
		if got := s.String(); got != want {
			t.Errorf("%+v: got %q, want %q", s, got, want)
		}
	}
	if got := (Status{Signal: syscall.SIGINT}).ExitCode(); got != 130 {
		t.Errorf("SIGINT's exit code: got %d, want 130", got)
	}
}

// A loss while the command's leftovers are given their moment to end
// stops them within the grace at once, and says lost: the settle time
// does not push the kill past loss + grace.
func TestLossDuringTheSettleStopsLeftovers(t *testing.T) {
	s := newShell(t, `trap "" TERM; sleep 1000 & echo $!`)
	g, err := Start(s.cmd)
	if err != nil {
		t.Fatal(err)
	}
	grandchild := s.pid(t)
	lost := make(chan struct{})
	go func() {
		<-g.Exited() // the shell is done; its job ignores SIGTERM and stays
		close(lost)
	}()
	r := g.Supervise(Watch{Lost: lost, Grace: func() time.Duration { return 10 * time.Millisecond }})
	if !r.Lost || !r.Leftovers || !r.Killed {
		t.Fatalf("got %+v, want lost, leftovers killed", r)
	}
	if !gone(grandchild) {
		t.Fatalf("the job %d outlived Supervise", grandchild)
	}
}
