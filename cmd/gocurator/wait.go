package main

// How gocurator lock waits: its --timeout, and what it tells a person at a
// terminal while it waits.

import (
	"context"
	"fmt"
	"os"
	"strings"
	"time"

	"github.com/gocurator/curator/cmd/gocurator/internal/lockview"
	"github.com/gocurator/curator/framework"
	"github.com/gocurator/curator/recipes/locks"
)

// waitFlag is a --timeout: how long to wait. It is "forever" unless set;
// 0 is one try (Curator's acquire with a zero wait), a duration above 0 a
// deadline. A negative duration parses, for the command to refuse.
type waitFlag struct {
	d       time.Duration
	forever bool
}

// foreverFlag is --timeout's default: no limit.
func foreverFlag() waitFlag { return waitFlag{forever: true} }

func (w *waitFlag) String() string {
	if w.forever {
		return "forever"
	}
	return w.d.String()
}

func (w *waitFlag) Set(s string) error {
	if s == "forever" {
		*w = foreverFlag()
		return nil
	}
	d, err := time.ParseDuration(s)
	if err != nil {
		return fmt.Errorf("want a duration (90s, 10m), 0 to try once, or forever")
	}
	*w = waitFlag{d: d}
	return nil
}

// tryOnce reports whether the flag asks for one try and no wait.
func (w waitFlag) tryOnce() bool { return !w.forever && w.d == 0 }

// deadline returns the limit to wait, and false for none.
func (w waitFlag) deadline() (time.Duration, bool) { return w.d, !w.forever }

// isTerminal reports whether f is a character device: a terminal (or
// /dev/null, where what is written goes nowhere anyway). Only a person at a
// terminal is told what gocurator lock waits for; a script's standard
// error stays as it was.
func isTerminal(f *os.File) bool {
	fi, err := f.Stat()
	return err == nil && fi.Mode()&os.ModeCharDevice != 0
}

// describeBusy says who holds the lock at path, for a person: the holders
// (each one's id, session and when it queued, by the server's clock) and
// how many others wait. It leaves out the participants of session self
// (this process's own waiting node). It returns "" if it cannot tell.
func describeBusy(ps []lockview.Participant, self int64, now time.Time) string {
	var holders []string
	waiting := 0
	for _, p := range ps {
		switch {
		case p.Session == self && self != 0:
		case p.State == lockview.Holds:
			holders = append(holders, fmt.Sprintf("%s (session %#x, queued %s, %s ago)",
				display(string(p.Data)), p.Session, p.Created.Local().Format(time.TimeOnly), age(now.Sub(p.Created))))
		case p.State == lockview.Waits:
			waiting++
		}
	}
	if len(holders) == 0 {
		return ""
	}
	const shown = 3
	s := "held by " + strings.Join(holders[:min(len(holders), shown)], ", ")
	if len(holders) > shown {
		s += fmt.Sprintf(" and %d more", len(holders)-shown)
	}
	if waiting > 0 {
		s += fmt.Sprintf("; %d other(s) waiting", waiting)
	}
	return s
}

// holderKey identifies who holds, leaving out session self, to notice when
// that changes.
func holderKey(ps []lockview.Participant, self int64) string {
	var nodes []string
	for _, p := range ps {
		if p.State == lockview.Holds && (p.Session != self || self == 0) {
			nodes = append(nodes, p.Node)
		}
	}
	return strings.Join(nodes, ",")
}

// busyNote is describeBusy for path read now, within d; "" if the read
// fails or finds no holder.
func busyNote(client *framework.Client, path string, shared int, d time.Duration) string {
	ctx, cancel := context.WithTimeout(context.Background(), d)
	defer cancel()
	ps, err := lockview.List(ctx, client, path, shared, lockview.DefaultLimits())
	if err != nil {
		return ""
	}
	return describeBusy(ps, client.SessionID(), time.Now())
}

// followHolders tells a person at a terminal what gocurator lock waits for:
// a line saying who holds path, and another each time the holders change,
// until ctx ends. It reads only; an error ends it quietly (the wait goes
// on, and only the lines stop).
func (a *app) followHolders(ctx context.Context, client *framework.Client, path string, shared int) {
	dir := path // where a change of holder shows up
	if shared > 0 {
		dir = framework.JoinPath(path, locks.SemaphoreLeaseDir)
	}
	said, last := false, ""
	for {
		_, _, w, werr := client.ChildrenW(ctx, dir)
		ps, err := lockview.List(ctx, client, path, shared, lockview.DefaultLimits())
		if ctx.Err() != nil {
			return
		}
		if err == nil {
			self := client.SessionID()
			switch key, note := holderKey(ps, self), describeBusy(ps, self, time.Now()); {
			case note != "" && (!said || key != last):
				fmt.Fprintf(a.stderr, "gocurator lock: waiting for %s: %s\n", path, note)
				said, last = true, key
			case !said: // no holder to name: one is between two steps
				fmt.Fprintf(a.stderr, "gocurator lock: waiting for %s\n", path)
				said = true
			}
		}
		if err != nil || werr != nil {
			if !said {
				fmt.Fprintf(a.stderr, "gocurator lock: waiting for %s\n", path)
			}
			return
		}
		select {
		case <-w.Done():
		case <-ctx.Done():
			return
		}
	}
}
