package main

import (
	"os"
	"time"

	"github.com/gocurator/curator/framework"
)

// startQuery is the start of a command that reads an election or a lock
// (leader, holders): it checks PATH, connects, and catches signals. It
// returns an exit status >= 0 if the command must end with it; otherwise
// done undoes the rest once the command is over.
func (a *app) startQuery(cmd string, p parsed, conn *connFlags) (client *framework.Client, path string, sigs <-chan os.Signal, done func(), status int) {
	if msg := pathOnlyProblem(p); msg != "" {
		a.usageError(cmd, msg)
		return nil, "", nil, nil, exitUsage
	}
	client, err := conn.newClient(a.getenv, a.stdin, "")
	if err != nil {
		a.usageError(cmd, err.Error())
		return nil, "", nil, nil, exitUsage
	}
	sigs, _, restore := catchSignals()
	done = func() {
		closeWithin(client, 2*time.Second)
		restore()
	}
	if sig, err := connect(conn, client, sigs); sig != nil || err != nil {
		done()
		if sig != nil {
			return nil, "", nil, nil, signalStatus(sig)
		}
		return nil, "", nil, nil, a.fail(cmd, exitFailed, "%v", err)
	}
	return client, p.args[0], sigs, done, -1
}
