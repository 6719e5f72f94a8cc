package main

import (
	"bytes"
	"context"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/gocurator/curator/cmd/gocurator/internal/lockview"
)

// runWithin runs gocurator to its end, killing it after d, and returns its
// standard output, standard error and exit status (-1 if it was killed).
func (b *board) runWithin(d time.Duration, env []string, args ...string) (string, string, int) {
	b.t.Helper()
	ctx, cancel := context.WithTimeout(b.ctx, d)
	defer cancel()
	cmd := exec.CommandContext(ctx, bin, args...)
	cmd.Env = append(os.Environ(), env...)
	var out, errOut bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errOut
	err := cmd.Run()
	if _, ok := err.(*exec.ExitError); err != nil && !ok {
		b.t.Fatal(err)
	}
	return out.String(), errOut.String(), cmd.ProcessState.ExitCode()
}

// A server that cannot be reached is a failure to connect (121), not a lock
// still busy at --timeout (124), though the timeout ran out while the
// connect was tried: a script that takes 124 for "busy, skip this run" must
// not skip while ZooKeeper is down.
func TestUnreachableServerIsNotATimeout(t *testing.T) {
	addr, _ := listener(t) // accepts and hangs up: no session
	env := map[string]string{"ZOOKEEPER_CONNECT": addr}
	_, stderr, status := runApp([]string{"lock", "--timeout", "100ms", "--connect-timeout", "1s", "/a", "--", "true"}, env)
	if status != exitFailed {
		t.Fatalf("status %d, stderr %q; want %d", status, stderr, exitFailed)
	}
}

// --timeout 0 is Curator's zero-wait acquire: one try. On a busy lock
// gocurator exits 124 at once without running its command, leaves no node,
// and says who holds the lock; on a free lock it runs the command. An
// explicit --timeout forever waits, as leaving the flag out does.
func TestTimeoutZeroTriesOnce(t *testing.T) {
	b := newBoard(t)
	c := b.client()
	holder := b.start("H", b.env(b.helper("gate", "H", "slot")...), "lock", "--id", "H", "/lock", "--", self)
	b.next("IN H", holder)

	// Today's --timeout 0 waits for ever: 20 s is plenty for one try.
	out, errOut, status := b.runWithin(20*time.Second, b.env(b.helper("run", "T")...),
		"lock", "--timeout", "0", "--id", "T", "/lock", "--", self)
	if status != exitTimeout || out != "" {
		t.Fatalf("--timeout 0 on a busy lock: status %d, stdout %q, stderr %q; want 124 and no command", status, out, errOut)
	}
	if !strings.Contains(errOut, "/lock is busy, held by H (session 0x") || !strings.Contains(errOut, "--timeout 0 tries once") ||
		strings.Count(errOut, "\n") != 1 {
		t.Fatalf("--timeout 0 on a busy lock said %q; want one line naming the holder H", errOut)
	}
	if rows := b.holdersOf("/lock"); len(rows) != 1 || rows[0][4] != "H" {
		t.Fatalf("after the try /lock has %q; want only H's node", rows)
	}

	// Explicit forever waits (its node queues) until the holder is gone.
	waiter := b.start("W", b.env(b.helper("gate", "W", "slot")...), "lock", "--timeout", "forever", "--id", "W", "/lock", "--", self)
	waitData(t, b, c, "W", "/lock")
	holder.release()
	b.expectExit(holder, 0)
	b.next("IN W", waiter)
	waiter.release()
	b.expectExit(waiter, 0)

	out, errOut, status = b.runWithin(20*time.Second, b.env(b.helper("run", "T")...),
		"lock", "--timeout", "0", "--id", "T", "/lock", "--", self)
	if status != 0 || strings.TrimSpace(out) != "RUN T" || errOut != "" {
		t.Fatalf("--timeout 0 on a free lock: status %d, stdout %q, stderr %q; want the command run once", status, out, errOut)
	}
	b.drain()
}

// describeBusy names the holders (three at most), leaves out this process's
// own session, counts the others waiting, and says nothing when no one
// else holds.
func TestDescribeBusy(t *testing.T) {
	now := time.Date(2026, 11, 26, 14, 5, 0, 0, time.Local)
	at := func(ago time.Duration) time.Time { return now.Add(-ago) }
	p := func(id string, state lockview.State, session int64, ago time.Duration) lockview.Participant {
		return lockview.Participant{Node: id + "-node", Data: []byte(id), State: state, Session: session, Created: at(ago)}
	}
	for _, tc := range []struct {
		ps   []lockview.Participant
		want string
	}{
		{[]lockview.Participant{p("A", lockview.Holds, 0xa, 3*time.Minute), p("B", lockview.Waits, 0xb, time.Minute), p("me", lockview.Waits, 0x5, time.Second)},
			"held by A (session 0xa, queued 14:02:00, 3m0s ago); 1 other(s) waiting"},
		{[]lockview.Participant{p("A", lockview.Holds, 0xa, 4*time.Second), p("B", lockview.Holds, 0xb, 3*time.Second), p("C", lockview.Holds, 0xc, 2*time.Second),
			p("D", lockview.Holds, 0xd, time.Second)},
			"held by A (session 0xa, queued 14:04:56, 4s ago), B (session 0xb, queued 14:04:57, 3s ago), C (session 0xc, queued 14:04:58, 2s ago) and 1 more"},
		{[]lockview.Participant{p("me", lockview.Holds, 0x5, time.Second), p("B", lockview.Waits, 0xb, time.Second)}, ""},
		{nil, ""},
	} {
		if got := describeBusy(tc.ps, 0x5, now); got != tc.want {
			t.Errorf("describeBusy:\n got %q\nwant %q", got, tc.want)
		}
	}
}
