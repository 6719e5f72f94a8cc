//go:build unix

package supervise

import (
	"errors"
	"os"
	"os/signal"
	"sync"
	"syscall"
	"time"
)

// pollInterval is how often the group is looked at when no SIGCHLD says
// that it changed: members the supervisor cannot reap (their parent lives,
// or, off Linux, init reaps them) die without telling it.
const pollInterval = 50 * time.Millisecond

// killWait bounds the wait for the group to empty after its SIGKILL: a
// member stuck in the kernel (a hung network file system) dies only when
// it returns from there, and the supervisor does not wait for ever.
const killWait = 5 * time.Second

// Group is a command running in a process group of its own, with every
// process it started that stayed in that group.
type Group struct {
	pgid   int
	exited chan struct{} // closed once the command has been reaped
	empty  chan struct{} // closed once no member of the group is left
	status Status        // the command's; written before exited is closed
}

// Start starts cmd as the leader of a new process group. The group is
// watched until it is empty; Stop ends it.
func Start(cmd Command) (*Group, error) {
	if cmd.Path == "" || len(cmd.Args) == 0 {
		return nil, errors.New("supervise: no command")
	}
	env := cmd.Env
	if env == nil {
		env = os.Environ()
	}
	becomeSubreaper()
	chld := make(chan os.Signal, 1)
	signal.Notify(chld, syscall.SIGCHLD) // before the fork: no exit goes unseen
	attr := &syscall.ProcAttr{
		Env:   env,
		Files: []uintptr{fd(cmd.Stdin, os.Stdin), fd(cmd.Stdout, os.Stdout), fd(cmd.Stderr, os.Stderr)},
		Sys:   procAttr(),
	}
	pid, err := forkExecWithDefaults(cmd.Path, cmd.Args, attr, cmd.DefaultSignals)
	if err != nil {
		signal.Stop(chld)
		return nil, &os.PathError{Op: "fork/exec", Path: cmd.Path, Err: err}
	}
	g := &Group{pgid: pid, exited: make(chan struct{}), empty: make(chan struct{})}
	go g.watch(chld)
	return g, nil
}

// dispositions serializes the changes forkExecWithDefaults makes to the
// process's signal dispositions, which are the whole process's.
var dispositions sync.Mutex

// forkExecWithDefaults is syscall.ForkExec with the signals in defaults
// that this process ignores at their default action in the child. An
// ignored signal stays ignored across exec, a handled one is reset: the
// Go runtime resets the signals it handles in the forked child before the
// exec. So for the fork they are handled (caught and dropped: they still
// do not stop this process), and ignored again once it is done.
func forkExecWithDefaults(path string, args []string, attr *syscall.ProcAttr, defaults []syscall.Signal) (int, error) {
	if len(defaults) == 0 {
		return syscall.ForkExec(path, args, attr)
	}
	dispositions.Lock()
	defer dispositions.Unlock()
	var reset []os.Signal
	for _, s := range defaults {
		if signal.Ignored(s) {
			reset = append(reset, s)
		}
	}
	if len(reset) == 0 {
		return syscall.ForkExec(path, args, attr)
	}
	drop := make(chan os.Signal, 1)
	signal.Notify(drop, reset...)
	defer signal.Ignore(reset...) // also ends the Notify
	return syscall.ForkExec(path, args, attr)
}

func fd(f, otherwise *os.File) uintptr {
	if f == nil {
		f = otherwise
	}
	return f.Fd()
}

// Pid returns the command's process id, which is also the group's id.
func (g *Group) Pid() int { return g.pgid }

// Exited returns a channel closed once the command itself has ended (and
// been reaped); other members of its group may still run.
func (g *Group) Exited() <-chan struct{} { return g.exited }

// Empty returns a channel closed once no process of the group is left. If
// the group is empty when the command is reaped, Empty is closed before
// Exited.
func (g *Group) Empty() <-chan struct{} { return g.empty }

// Status returns how the command ended; it is valid once Exited is closed.
func (g *Group) Status() Status { return g.status }

// Signal sends sig to every member of the group. A group that is gone is
// not an error.
func (g *Group) Signal(sig syscall.Signal) error {
	select {
	case <-g.empty:
		return nil // its id may belong to another group by now
	default:
	}
	if err := syscall.Kill(-g.pgid, sig); err != nil && !errors.Is(err, syscall.ESRCH) {
		return err
	}
	return nil
}

// Stop ends the group: SIGTERM, and SIGCONT so that a stopped member sees
// it, to every member; then, if any member is left after grace, SIGKILL to
// the group. It returns once the group is empty (or, after a SIGKILL, at
// most killWait later) and reports whether it sent SIGKILL.
func (g *Group) Stop(grace time.Duration) (killed bool) {
	g.Signal(syscall.SIGTERM)
	g.Signal(syscall.SIGCONT)
	t := time.NewTimer(grace)
	defer t.Stop()
	select {
	case <-g.empty:
		return false
	case <-t.C:
	}
	g.Signal(syscall.SIGKILL)
	t.Reset(killWait)
	select {
	case <-g.empty:
	case <-t.C:
	}
	return true
}

// watch reaps the group's members that are the supervisor's children (the
// command, and on Linux the orphans reparented to the supervisor) until no
// member is left.
func (g *Group) watch(chld chan os.Signal) {
	defer signal.Stop(chld)
	tick := time.NewTicker(pollInterval)
	defer tick.Stop()
	exited := false
	for {
		switch {
		case g.reapChildren():
			exited = true
			gone := groupGone(g.pgid)
			if gone {
				close(g.empty) // first: whoever sees Exited can tell at once
			}
			close(g.exited)
			if gone {
				return
			}
		case exited && groupGone(g.pgid):
			close(g.empty)
			return
		}
		select {
		case <-chld:
		case <-tick.C:
		}
	}
}

// reapChildren reaps every child of the supervisor in the group that has
// ended, and reports whether the command was among them (its status is
// then recorded).
func (g *Group) reapChildren() (leader bool) {
	for {
		var ws syscall.WaitStatus
		pid, err := syscall.Wait4(-g.pgid, &ws, syscall.WNOHANG, nil)
		if errors.Is(err, syscall.EINTR) {
			continue
		}
		if err != nil || pid <= 0 {
			return leader
		}
		if pid == g.pgid {
			g.status = statusOf(ws)
			leader = true
		}
	}
}

// groupGone reports whether no process is left in the group pgid.
func groupGone(pgid int) bool {
	return errors.Is(syscall.Kill(-pgid, 0), syscall.ESRCH)
}

func statusOf(ws syscall.WaitStatus) Status {
	if ws.Signaled() {
		return Status{Signal: ws.Signal()}
	}
	return Status{Code: ws.ExitStatus()}
}
