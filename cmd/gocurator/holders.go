package main

import (
	"context"
	"fmt"
	"text/tabwriter"
	"time"

	"github.com/gocurator/curator/cmd/gocurator/internal/lockview"
)

// holders is `gocurator holders`.
func (a *app) holders(args []string) int {
	const cmd = "holders"
	fs := newFlagSet(cmd)
	var conn connFlags
	conn.register(fs, a.getenv)
	shared := fs.Int("shared", 0, "")
	p, status := a.parseOrHelp(cmd, fs, args)
	if status >= 0 {
		return status
	}
	if *shared < 0 {
		a.usageError(cmd, fmt.Sprintf("--shared must be at least 1, not %d", *shared))
		return exitUsage
	}
	client, path, _, done, status := a.startQuery(cmd, p, &conn)
	if status >= 0 {
		return status
	}
	defer done()
	ctx, cancel := context.WithTimeout(context.Background(), conn.connectTimeout)
	defer cancel()
	ps, err := lockview.List(ctx, client, path, *shared, lockview.DefaultLimits())
	if err != nil {
		return a.fail(cmd, exitFailed, "listing %s: %v", path, err)
	}
	if len(ps) == 0 {
		return exitOK
	}
	now := time.Now()
	w := tabwriter.NewWriter(a.stdout, 0, 4, 2, ' ', 0)
	fmt.Fprintln(w, "STATE\tKIND\tAGE\tSESSION\tID\tNODE")
	for _, p := range ps {
		fmt.Fprintf(w, "%s\t%s\t%s\t%#x\t%s\t%s\n", p.State, dash(p.Kind), age(now.Sub(p.Created)), p.Session, shownID(p), display(p.Node))
	}
	w.Flush()
	return exitOK
}

// age rounds an age for reading: tenths of a second under a minute.
func age(d time.Duration) string {
	if d < time.Minute {
		return max(d, 0).Round(100 * time.Millisecond).String()
	}
	return d.Round(time.Second).String()
}

// shownID is a node's data in holders' ID column: "-" if empty, else as
// display shows it; data longer than lockview kept is shown quoted, cut,
// and followed by its length: "abc"…(65536 bytes).
func shownID(p lockview.Participant) string {
	switch {
	case p.Size == 0:
		return "-"
	case p.Size > len(p.Data):
		return fmt.Sprintf("%q…(%d bytes)", p.Data, p.Size)
	}
	return display(string(p.Data))
}

func dash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}
