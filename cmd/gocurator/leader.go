package main

import (
	"context"
	"fmt"
	"time"

	"github.com/gocurator/curator/recipes/leader"
)

// leader is `gocurator leader`.
func (a *app) leader(args []string) int {
	const cmd = "leader"
	fs := newFlagSet(cmd)
	var conn connFlags
	conn.register(fs, a.getenv)
	watch := fs.Bool("watch", false, "")
	node := fs.Bool("node", false, "")
	p, status := a.parseOrHelp(cmd, fs, args)
	if status >= 0 {
		return status
	}
	if msg := pathOnlyProblem(p); msg != "" {
		a.usageError(cmd, msg)
		return exitUsage
	}
	client, err := conn.newClient(a.getenv, "")
	if err != nil {
		a.usageError(cmd, err.Error())
		return exitUsage
	}
	path := p.args[0]
	sigs, restore := catchSignals()
	defer restore()
	defer closeWithin(client, 2*time.Second)
	if sig, err := connect(&conn, client, sigs); sig != nil || err != nil {
		if sig != nil {
			return signalStatus(sig)
		}
		return a.fail(cmd, exitFailed, "%v", err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	leaders, err := leader.Observe(ctx, client, path)
	if err != nil {
		return a.fail(cmd, exitFailed, "%v", err)
	}
	show := func(p leader.Participant) {
		if *node {
			fmt.Fprintln(a.stdout, p.Node)
		} else {
			fmt.Fprintln(a.stdout, p.ID)
		}
	}
	for {
		select {
		case p, ok := <-leaders:
			if !ok {
				return a.fail(cmd, exitFailed, "the client closed")
			}
			if !*watch {
				if p.Node == "" {
					return a.fail(cmd, exitNoLeader, "no leader at %s", path)
				}
				show(p)
				return exitOK
			}
			show(p) // an empty line: no leader
		case s := <-sigs:
			if terminating(s) {
				if *watch {
					return exitOK // the way to stop watching
				}
				return signalStatus(s)
			}
		}
	}
}
