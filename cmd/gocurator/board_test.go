package main

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/gocurator/curator/framework"
	"github.com/gocurator/curator/recipestest"
)

// testLimit bounds every wait of a test: it catches a hang, and asserts no
// speed.
const testLimit = 60 * time.Second

// board runs one test's gocurator processes in a namespace of its own and
// collects the lines their commands print.
type board struct {
	t      *testing.T
	ns     string
	dir    string // slot files and the like
	ctx    context.Context
	events chan event
	seen   []event // read from events, not yet waited for
	log    []string
}

// event is one line a process printed on its standard output.
type event struct {
	p    *proc
	line string
}

func newBoard(t *testing.T) *board {
	ctx, cancel := context.WithTimeout(context.Background(), testLimit)
	t.Cleanup(cancel)
	b := &board{t: t, ns: recipestest.Namespace(t), dir: t.TempDir(), ctx: ctx, events: make(chan event, 256)}
	t.Cleanup(b.killLeftovers) // runs after the processes' own cleanups
	return b
}

// killLeftovers kills, after a failed test, the helpers that said IN: a
// test that failed because one outlived its gocurator would otherwise leave
// it behind for holdFor.
func (b *board) killLeftovers() {
	if !b.t.Failed() {
		return
	}
	for _, l := range b.log {
		if pid, err := strconv.Atoi(field(l, "pid")); err == nil && pid > 0 {
			syscall.Kill(pid, syscall.SIGKILL)
		}
	}
}

// client returns a client in the board's namespace, for looking at what
// the processes did.
func (b *board) client() *framework.Client {
	return recipestest.NewClient(b.t, server.ConnectString(), framework.WithNamespace(b.ns))
}

// env is the environment of the board's processes: the server, the
// namespace, a short session timeout, and extra.
func (b *board) env(extra ...string) []string {
	return append([]string{
		"ZOOKEEPER_CONNECT=" + server.ConnectString(),
		"GOCURATOR_NAMESPACE=" + b.ns,
		"GOCURATOR_SESSION_TIMEOUT=4s",
	}, extra...)
}

// helper is the environment that makes a command a helper of this mode
// (see helper_test.go), named id, using the slot files named.
func (b *board) helper(mode, id string, slots ...string) []string {
	paths := make([]string, len(slots))
	for i, s := range slots {
		paths[i] = filepath.Join(b.dir, s)
	}
	return []string{
		helperEnv + "=" + mode, "HELPER_ID=" + id, "HELPER_SLOTS=" + strings.Join(paths, ","),
		"GORACE=atexit_sleep_ms=0", // a test binary built with -race otherwise sleeps a second as it exits
	}
}

// proc is a running gocurator.
type proc struct {
	name    string
	cmd     *exec.Cmd
	stdin   io.WriteCloser
	done    chan struct{} // closed once it has exited
	readers sync.WaitGroup
	out     *os.File // the read ends of its standard output and error
	errR    *os.File

	mu     sync.Mutex
	stderr bytes.Buffer
}

// start starts gocurator with args and env (added to the test's own).
func (b *board) start(name string, env []string, args ...string) *proc {
	b.t.Helper()
	return b.startProgram(name, bin, env, args...)
}

// startProgram starts program with args and env (added to the test's own);
// its standard output's lines go to the board.
func (b *board) startProgram(name, program string, env []string, args ...string) *proc {
	b.t.Helper()
	return b.startWithStderr(name, program, nil, env, args...)
}

// startWithStderr is startProgram with stderr, if not nil, as the
// program's standard error (errText then has nothing).
func (b *board) startWithStderr(name, program string, stderr *os.File, env []string, args ...string) *proc {
	t := b.t
	t.Helper()
	cmd := exec.Command(program, args...)
	cmd.Env = append(os.Environ(), env...)
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	outR, outW, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	errR, errW, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	// The pipes are handed over as files: nothing waits on copying them,
	// whatever the command leaves behind holding them.
	cmd.Stdout, cmd.Stderr = outW, errW
	if stderr != nil {
		cmd.Stderr = stderr
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	outW.Close()
	errW.Close()
	p := &proc{name: name, cmd: cmd, stdin: stdin, done: make(chan struct{}), out: outR, errR: errR}
	p.readers.Add(2)
	go func() {
		defer p.readers.Done()
		sc := bufio.NewScanner(outR)
		for sc.Scan() {
			b.events <- event{p, sc.Text()}
		}
	}()
	go func() {
		defer p.readers.Done()
		buf := make([]byte, 4096)
		for {
			n, err := errR.Read(buf)
			p.mu.Lock()
			p.stderr.Write(buf[:n])
			p.mu.Unlock()
			if err != nil {
				return
			}
		}
	}()
	go func() {
		cmd.Wait()
		close(p.done)
	}()
	t.Cleanup(func() {
		stdin.Close()
		select {
		case <-p.done:
		default:
			cmd.Process.Kill()
			<-p.done
		}
		outR.Close() // a process the command left behind may hold the other end
		errR.Close()
		p.readers.Wait()
	})
	return p
}

// release ends a gate helper's standard input: its command exits.
func (p *proc) release() { p.stdin.Close() }

// errText returns what the process printed on standard error so far.
func (p *proc) errText() string {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.stderr.String()
}

// wait waits for p to exit and returns its exit status (-1 if a signal
// killed it).
func (b *board) wait(p *proc) int {
	b.t.Helper()
	select {
	case <-p.done:
	case <-b.ctx.Done():
		b.t.Fatalf("%s did not exit; its stderr: %s\n%s", p.name, p.errText(), b.dump())
	}
	return p.cmd.ProcessState.ExitCode()
}

// expectExit waits for p to exit with status want.
func (b *board) expectExit(p *proc, want int) {
	b.t.Helper()
	if got := b.wait(p); got != want {
		b.t.Fatalf("%s exited with %d, want %d; its stderr: %s\n%s", p.name, got, want, p.errText(), b.dump())
	}
}

// next waits for a line starting with prefix from one of from (any
// process if none is named), and fails the test at any VIOLATION line.
func (b *board) next(prefix string, from ...*proc) event {
	b.t.Helper()
	match := func(e event) bool {
		if !strings.HasPrefix(e.line, prefix) {
			return false
		}
		if len(from) == 0 {
			return true
		}
		for _, p := range from {
			if e.p == p {
				return true
			}
		}
		return false
	}
	for i, e := range b.seen {
		if match(e) {
			b.seen = append(b.seen[:i:i], b.seen[i+1:]...)
			return e
		}
	}
	for {
		select {
		case e := <-b.events:
			b.log = append(b.log, e.p.name+": "+e.line)
			if strings.HasPrefix(e.line, "VIOLATION") {
				b.t.Fatalf("%s: %s\n%s", e.p.name, e.line, b.dump())
			}
			if match(e) {
				return e
			}
			b.seen = append(b.seen, e)
		case <-b.ctx.Done():
			b.t.Fatalf("no line %q came\n%s", prefix, b.dump())
		}
	}
}

// drain reads the lines already printed, failing the test at any
// VIOLATION line.
func (b *board) drain() {
	b.t.Helper()
	for {
		select {
		case e := <-b.events:
			b.log = append(b.log, e.p.name+": "+e.line)
			if strings.HasPrefix(e.line, "VIOLATION") {
				b.t.Fatalf("%s: %s\n%s", e.p.name, e.line, b.dump())
			}
			b.seen = append(b.seen, e)
		default:
			return
		}
	}
}

// linesOf returns the lines p printed that the board has read, in order.
func (b *board) linesOf(p *proc) []string {
	var out []string
	for _, l := range b.log {
		if rest, ok := strings.CutPrefix(l, p.name+": "); ok {
			out = append(out, rest)
		}
	}
	return out
}

// dump describes what the processes printed, for a failure message.
func (b *board) dump() string {
	return "lines so far:\n  " + strings.Join(b.log, "\n  ")
}

// run runs gocurator to its end and returns its standard output, standard
// error and exit status.
func (b *board) run(env []string, args ...string) (string, string, int) {
	b.t.Helper()
	cmd := exec.CommandContext(b.ctx, bin, args...)
	cmd.Env = append(os.Environ(), env...)
	var out, errOut bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errOut
	err := cmd.Run()
	if _, ok := err.(*exec.ExitError); err != nil && !ok {
		b.t.Fatal(err)
	}
	return out.String(), errOut.String(), cmd.ProcessState.ExitCode()
}

// field returns the value of name=value in an IN line.
func field(line, name string) string {
	for _, f := range strings.Fields(line) {
		if v, ok := strings.CutPrefix(f, name+"="); ok {
			return v
		}
	}
	return ""
}

// waitNodes polls until the lock directory has n nodes, in sum over dirs:
// a waiter's node shows up on the server with no event of ours to wait on.
func (b *board) waitNodes(c *framework.Client, n int, dirs ...string) {
	b.t.Helper()
	recipestest.Eventually(b.t, fmt.Sprintf("%d nodes in %v", n, dirs), func() (bool, string) {
		var all []string
		for _, d := range dirs {
			kids, _, err := c.Children(b.ctx, d)
			if err != nil && !isNoNode(err) {
				return false, err.Error()
			}
			all = append(all, kids...)
		}
		return len(all) == n, fmt.Sprint(all)
	})
}

// waitGone polls until path is gone (the server reaps containers on its
// own schedule).
func (b *board) waitGone(c *framework.Client, path string) {
	b.t.Helper()
	recipestest.Eventually(b.t, path+" gone", func() (bool, string) {
		ok, _, err := c.Exists(b.ctx, path)
		if err != nil {
			return false, err.Error()
		}
		kids, _, _ := c.Children(b.ctx, path)
		return !ok, fmt.Sprintf("it has children %v", kids)
	})
}

func isNoNode(err error) bool { return errors.Is(err, framework.ErrNoNode) }
