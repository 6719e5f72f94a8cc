package main

import (
	"context"
	"fmt"

	"github.com/gocurator/curator/recipes/leader"
)

// maxLeaderID is the longest id gocurator leader prints: an id is data
// whoever joins the election chooses, up to the server's limit on a
// node's data (jute.maxbuffer, 1 MiB by default).
const maxLeaderID = 4096

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
	show := func(p leader.Participant) bool {
		if !*node && len(p.ID) > maxLeaderID {
			a.fail(cmd, exitFailed, "the id of %s is %d bytes, and gocurator leader prints at most %d", p.Node, len(p.ID), maxLeaderID)
			return false
		}
		switch {
		case *watch && p.Node == "":
			fmt.Fprintln(a.stdout) // no leader
		case *node:
			fmt.Fprintln(a.stdout, display(p.Node))
		default:
			fmt.Fprintln(a.stdout, display(p.ID))
		}
		return true
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
				if !show(p) {
					return exitFailed
				}
				return exitOK
			}
			if !show(p) { // an empty line: no leader
				return exitFailed
			}
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
