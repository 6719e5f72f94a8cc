package main

import (
	"context"
	"fmt"

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
	client, path, sigs, done, status := a.startQuery(cmd, p, &conn)
	if status >= 0 {
		return status
	}
	defer done()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	leaders, err := leader.Observe(ctx, client, path)
	if err != nil {
		return a.fail(cmd, exitFailed, "%v", err)
	}
	show := func(p leader.Participant) {
		switch {
		case *watch && p.Node == "":
			fmt.Fprintln(a.stdout) // no leader
		case *node:
			fmt.Fprintln(a.stdout, display(p.Node))
		default:
			fmt.Fprintln(a.stdout, display(p.ID))
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
