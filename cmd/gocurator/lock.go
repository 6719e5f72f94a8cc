package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"time"

	"github.com/gocurator/curator/cmd/gocurator/internal/holdrun"
	"github.com/gocurator/curator/cmd/gocurator/internal/supervise"
	"github.com/gocurator/curator/framework"
	"github.com/gocurator/curator/recipes/locks"
)

// locker is a lock gocurator lock can take: a Mutex, a Semaphore, or a
// side of a ReadWriteLock.
type locker interface {
	Acquire(ctx context.Context) (*locks.Hold, error)
	TryAcquire(ctx context.Context) (*locks.Hold, error)
}

// releaseWithin bounds a release: Release does not wait for a connection
// that is down, so this only caps a slow server.
const releaseWithin = 10 * time.Second

// lock is `gocurator lock`.
func (a *app) lock(args []string) int {
	const cmd = "lock"
	fs := newFlagSet(cmd)
	var conn connFlags
	conn.register(fs, a.getenv)
	timeout := foreverFlag()
	fs.Var(&timeout, "timeout", "")
	shared := fs.Int("shared", 0, "")
	read := fs.Bool("read", false, "")
	write := fs.Bool("write", false, "")
	id := fs.String("id", defaultID(), "")
	p, status := a.parseOrHelp(cmd, fs, args)
	if status >= 0 {
		return status
	}
	if msg := commandLineProblem(p); msg != "" {
		a.usageError(cmd, msg)
		return exitUsage
	}
	switch {
	case *shared < 0:
		a.usageError(cmd, fmt.Sprintf("--shared must be at least 1, not %d", *shared))
		return exitUsage
	case *shared > 0 && (*read || *write):
		a.usageError(cmd, "--shared cannot be combined with --read or --write")
		return exitUsage
	case *read && *write:
		a.usageError(cmd, "--read and --write exclude each other")
		return exitUsage
	case timeout.d < 0:
		a.usageError(cmd, fmt.Sprintf("--timeout must not be negative, not %v", timeout.d))
		return exitUsage
	}
	client, err := conn.newClient(a.getenv, a.stdin, *id)
	if err != nil {
		a.usageError(cmd, err.Error())
		return exitUsage
	}
	path := p.args[0]
	l, err := newLocker(client, path, *shared, *read, *write)
	if err != nil {
		a.usageError(cmd, err.Error())
		return exitUsage
	}
	command, err := holdrun.Lookup(p.command)
	if err != nil {
		return a.fail(cmd, lookupStatus(err), "%v", err)
	}
	return a.runLocked(&conn, client, l, path, *shared, timeout, command)
}

// newLocker makes the lock the flags ask for; it sends nothing.
func newLocker(client *framework.Client, path string, shared int, read, write bool) (locker, error) {
	switch {
	case shared > 0:
		return locks.NewSemaphore(client, path, shared)
	case read || write:
		rw, err := locks.NewReadWriteLock(client, path)
		if err != nil {
			return nil, err
		}
		if read {
			return rw.ReadLock(), nil
		}
		return rw.WriteLock(), nil
	}
	return locks.NewMutex(client, path)
}

// runLocked takes the lock, runs the command under it and releases it.
// shared is the semaphore's number of leases (0: not a semaphore).
func (a *app) runLocked(conn *connFlags, client *framework.Client, l locker, path string, shared int, wait waitFlag, command supervise.Command) int {
	const cmd = "lock"
	sigs, ignoring, restore := catchSignals()
	defer restore()
	command.DefaultSignals = ignoring
	defer closeWithin(client, 2*time.Second)

	hold, sig, timedOut, err := a.acquire(conn, client, l, path, shared, wait, sigs)
	switch {
	case sig != nil:
		return a.fail(cmd, signalStatus(sig), "%v while waiting for %s", sig, path)
	case timedOut && wait.tryOnce():
		if note := busyNote(client, path, shared, conn.connectTimeout); note != "" {
			return a.fail(cmd, exitTimeout, "%s is busy, %s (--timeout 0 tries once)", path, note)
		}
		return a.fail(cmd, exitTimeout, "%s is busy (--timeout 0 tries once)", path)
	case timedOut:
		return a.fail(cmd, exitTimeout, "%s not acquired within %v", path, wait.d)
	case err != nil:
		return a.fail(cmd, exitFailed, "acquiring %s: %v", path, err)
	}
	lost := hold.Lost() // watches the node from here on
	h := conn.holdAt(path)
	h.Node, h.Session = hold.Path(), client.SessionID()
	ctx, cancel := context.WithTimeout(context.Background(), conn.connectTimeout)
	h.Token, err = hold.Token(ctx)
	cancel()
	if err != nil {
		rerr := release(hold)
		if hold.Err() != nil || errors.Is(rerr, locks.ErrLockLost) {
			return a.fail(cmd, exitLost, "lost %s before the command started: %v", path, errors.Join(hold.Err(), rerr))
		}
		return a.fail(cmd, exitFailed, "reading the fencing token of %s: %v", path, err)
	}
	res, err := holdrun.Run(command, h, lost, client.SessionTimeout, sigs)
	rerr := release(hold)
	if err != nil {
		return a.fail(cmd, lookupStatus(err), "%v", err)
	}
	return a.outcome(cmd, path, res, hold.Err(), rerr)
}

// acquire connects (within the connect timeout, as elect does) and takes
// l at path, giving up at the --timeout (it then reports timedOut; with
// --timeout 0 it tries once, and reports timedOut if l was busy) or at a
// terminating signal, which it returns. On a terminal it says, if l is
// busy, what it waits for (see followHolders), and when it has l.
func (a *app) acquire(conn *connFlags, client *framework.Client, l locker, path string, shared int, wait waitFlag, sigs <-chan os.Signal) (hold *locks.Hold, sig os.Signal, timedOut bool, err error) {
	base, cancel := context.WithCancel(context.Background()) // a signal ends both steps
	defer cancel()
	ctx := base
	if d, ok := wait.deadline(); ok && d > 0 {
		var cancelWait context.CancelFunc
		ctx, cancelWait = context.WithTimeout(base, d)
		defer cancelWait()
	}
	type result struct {
		hold      *locks.Hold
		err       error
		connected bool // a failed connect is never a timeout, whatever --timeout says
	}
	done := make(chan result, 1)
	go func() {
		if err := conn.connectWithin(base, client); err != nil {
			done <- result{nil, err, false}
			return
		}
		h, err := a.take(ctx, client, l, path, shared, wait)
		done <- result{h, err, true}
	}()
	for {
		select {
		case r := <-done:
			if sig != nil && r.hold != nil {
				release(r.hold)
				r.hold = nil
			}
			timedOut = r.err != nil && sig == nil && r.connected &&
				(errors.Is(ctx.Err(), context.DeadlineExceeded) || wait.tryOnce() && errors.Is(r.err, locks.ErrBusy))
			return r.hold, sig, timedOut, r.err
		case s := <-sigs:
			if terminating(s) && sig == nil {
				sig = s
				cancel() // the acquire deletes its node and returns
			}
		}
	}
}

// take takes l once connected: one try with --timeout 0; otherwise a
// wait, which on a terminal begins with a try to learn whether the lock is
// busy, and then says what it waits for until it has the lock.
func (a *app) take(ctx context.Context, client *framework.Client, l locker, path string, shared int, wait waitFlag) (*locks.Hold, error) {
	if !wait.tryOnce() && !a.tty {
		return l.Acquire(ctx)
	}
	h, err := l.TryAcquire(ctx)
	if wait.tryOnce() || !errors.Is(err, locks.ErrBusy) {
		return h, err
	}
	start := time.Now()
	followCtx, stop := context.WithCancel(ctx)
	followed := make(chan struct{})
	go func() {
		defer close(followed)
		a.followHolders(followCtx, client, path, shared)
	}()
	h, err = l.Acquire(ctx)
	stop()
	<-followed
	if err == nil {
		fmt.Fprintf(a.stderr, "gocurator lock: acquired %s after %s\n", path, age(time.Since(start)))
	}
	return h, err
}

// release releases hold within releaseWithin.
func release(hold *locks.Hold) error {
	ctx, cancel := context.WithTimeout(context.Background(), releaseWithin)
	defer cancel()
	return hold.Release(ctx)
}

// outcome reports how a command run under a hold ended and returns
// gocurator's exit status: lost if the hold was lost while the command ran
// or before its release, else the command's own status. lossErr is why
// the hold was lost, releaseErr the release's error.
func (a *app) outcome(cmd, path string, res supervise.Result, lossErr, releaseErr error) int {
	how := "it ended on SIGTERM"
	if res.Killed {
		how = "SIGKILL after the grace period"
	}
	switch {
	case res.Lost:
		return a.fail(cmd, exitLost, "lost %s (%v): stopped the command's process group (%s)", path, lossErr, how)
	case errors.Is(releaseErr, locks.ErrLockLost):
		return a.fail(cmd, exitLost, "lost %s before it was released (%v); the command had ended: %v", path, releaseErr, res.Status)
	}
	if res.Leftovers {
		fmt.Fprintf(a.stderr, "gocurator %s: the command exited and left processes in its group: stopped them (%s)\n", cmd, how)
	}
	if releaseErr != nil {
		fmt.Fprintf(a.stderr, "gocurator %s: releasing %s: %v (the node goes with the session)\n", cmd, path, oneLine(releaseErr.Error()))
	}
	return res.Status.ExitCode()
}
