package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"sync"
	"time"

	"github.com/gocurator/curator/cmd/gocurator/internal/holdrun"
	"github.com/gocurator/curator/cmd/gocurator/internal/supervise"
	"github.com/gocurator/curator/framework"
	"github.com/gocurator/curator/recipes/leader"
)

// elect is `gocurator elect`.
func (a *app) elect(args []string) int {
	const cmd = "elect"
	fs := newFlagSet(cmd)
	var conn connFlags
	conn.register(fs, a.getenv)
	timeout := foreverFlag()
	fs.Var(&timeout, "timeout", "")
	requeue := fs.Bool("requeue", false, "")
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
	case timeout.d < 0:
		a.usageError(cmd, fmt.Sprintf("--timeout must not be negative, not %v", timeout.d))
		return exitUsage
	case timeout.tryOnce():
		// A participant learns that it leads only after joining: there is
		// no one try to make, as there is for a lock.
		a.usageError(cmd, "--timeout 0: an election cannot be tried once; give a duration above 0, or forever")
		return exitUsage
	}
	client, err := conn.newClient(a.getenv, a.stdin, "")
	if err != nil {
		a.usageError(cmd, err.Error())
		return exitUsage
	}
	command, err := holdrun.Lookup(p.command)
	if err != nil {
		return a.fail(cmd, lookupStatus(err), "%v", err)
	}
	path := p.args[0]
	e := &election{
		command: command,
		client:  client,
		base:    conn.holdAt(path),
		results: make(chan term, 1),
	}
	opts := []leader.Option{leader.WithID(*id)}
	if *requeue {
		opts = append(opts, leader.WithAutoRequeue())
	}
	sel, err := leader.NewSelector(client, path, e.lead, opts...)
	if err != nil {
		a.usageError(cmd, err.Error())
		return exitUsage
	}
	return a.runElected(&conn, client, sel, e, timeout, *requeue)
}

// election runs the command in each term of leadership the selector gets.
type election struct {
	command supervise.Command
	client  *framework.Client
	base    holdrun.Hold // the path and connection; each term adds its node
	results chan term    // each term's outcome; holds one, as at most one is pending

	mu       sync.Mutex
	stopping bool           // no more terms: a term that begins returns at once
	started  bool           // a term has run the command
	signals  chan os.Signal // the running term's signals; nil between terms
}

// term is how one term of leadership went.
type term struct {
	res      supervise.Result
	tokenErr error // reading the fencing token failed: the command did not run
	startErr error // the command could not be started
	lossErr  error // the term's Err once the command had ended
}

// lead is the selector's leadership function: it runs the command for as
// long as the term lasts.
func (e *election) lead(ctx context.Context, l *leader.Leadership) error {
	e.mu.Lock()
	if e.stopping {
		e.mu.Unlock()
		return nil
	}
	e.started = true
	sigs := make(chan os.Signal, 8)
	e.signals = sigs
	e.mu.Unlock()
	defer func() {
		e.mu.Lock()
		e.signals = nil
		e.mu.Unlock()
	}()
	h := e.base
	h.Node, h.Session = l.Node(), e.client.SessionID()
	var t term
	h.Token, t.tokenErr = l.Token(ctx)
	if t.tokenErr == nil {
		t.res, t.startErr = holdrun.Run(e.command, h, ctx.Done(), e.client.SessionTimeout, sigs)
	}
	t.lossErr = l.Err()
	e.results <- t
	return nil
}

// stop makes every later term return at once, passes sig (if not nil) on
// to the running term's command, and reports whether a term is running.
func (e *election) stop(sig os.Signal) (running bool) {
	e.mu.Lock()
	defer e.mu.Unlock()
	e.stopping = true
	if e.signals != nil && sig != nil {
		select {
		case e.signals <- sig:
		default:
		}
	}
	return e.signals != nil
}

// isStopping reports whether the election is being left.
func (e *election) isStopping() bool {
	e.mu.Lock()
	defer e.mu.Unlock()
	return e.stopping
}

// forward passes sig on to the running term's command, if there is one.
func (e *election) forward(sig os.Signal) {
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.signals != nil {
		select {
		case e.signals <- sig:
		default:
		}
	}
}

// giveUpIfNeverLed stops the election if no term has run the command yet,
// and reports whether it did.
func (e *election) giveUpIfNeverLed() bool {
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.started {
		return false
	}
	e.stopping = true
	return true
}

// runElected joins the election and runs the command while leading: once,
// or, with requeue, again after each term until a terminating signal.
func (a *app) runElected(conn *connFlags, client *framework.Client, sel *leader.Selector, e *election, wait waitFlag, requeue bool) int {
	const cmd = "elect"
	path := e.base.Path
	sigs, ignoring, restore := catchSignals()
	defer restore()
	e.command.DefaultSignals = ignoring
	defer closeWithin(client, 2*time.Second)
	if sig, err := connect(conn, client, sigs); sig != nil || err != nil {
		if sig != nil {
			return a.fail(cmd, signalStatus(sig), "%v while connecting", sig)
		}
		return a.fail(cmd, exitFailed, "%v", err)
	}
	if err := sel.Start(context.Background()); err != nil {
		return a.fail(cmd, exitFailed, "joining the election at %s: %v", path, err)
	}
	var expired <-chan time.Time
	timeout, limited := wait.deadline()
	if limited {
		t := time.NewTimer(timeout)
		defer t.Stop()
		expired = t.C
	}
	for {
		select {
		case t := <-e.results:
			again := requeue && !e.isStopping()
			status := a.termOutcome(path, t, again)
			if again {
				continue
			}
			e.stop(nil)
			sel.Close()
			return status
		case s := <-sigs:
			if !terminating(s) {
				e.forward(s)
				continue
			}
			if e.stop(s) {
				continue // the command ends, and its term's outcome comes
			}
			sel.Close()
			select {
			case t := <-e.results: // a term ended meanwhile
				return a.termOutcome(path, t, false)
			default:
			}
			return a.fail(cmd, signalStatus(s), "%v while waiting to lead %s", s, path)
		case <-expired:
			if e.giveUpIfNeverLed() {
				sel.Close()
				return a.fail(cmd, exitTimeout, "not leading %s within %v", path, timeout)
			}
		}
	}
}

// termOutcome reports how a term went and returns gocurator's exit status
// for it: lost if the term ended while the command ran (or as it ended),
// else the command's own status. With rejoin, it says that the election
// goes on.
func (a *app) termOutcome(path string, t term, rejoin bool) int {
	const cmd = "elect"
	again := ""
	if rejoin {
		again = "; joining the election again"
	}
	lost := errors.Is(t.lossErr, leader.ErrLost)
	switch {
	case t.startErr != nil:
		return a.fail(cmd, lookupStatus(t.startErr), "%v%s", t.startErr, again)
	case t.tokenErr != nil && lost:
		return a.fail(cmd, exitLost, "lost the leadership of %s before the command started: %v%s", path, t.lossErr, again)
	case t.tokenErr != nil:
		return a.fail(cmd, exitFailed, "reading the fencing token of %s: %v%s", path, t.tokenErr, again)
	case t.res.Lost:
		how := "it ended on SIGTERM"
		if t.res.Killed {
			how = "SIGKILL after the grace period"
		}
		return a.fail(cmd, exitLost, "the leadership of %s ended (%v): stopped the command's process group (%s)%s", path, t.lossErr, how, again)
	case lost:
		return a.fail(cmd, exitLost, "lost the leadership of %s as the command ended (%v); the command had ended: %v%s", path, t.lossErr, t.res.Status, again)
	}
	if t.res.Leftovers {
		fmt.Fprintf(a.stderr, "gocurator %s: the command exited and left processes in its group: stopped them\n", cmd)
	}
	if rejoin {
		fmt.Fprintf(a.stderr, "gocurator %s: the command ended (%v)%s\n", cmd, t.res.Status, again)
	}
	return t.res.Status.ExitCode()
}
