package main

import (
	"fmt"
	"strconv"
	"strings"
	"testing"

	"github.com/gocurator/curator/framework"
	"github.com/gocurator/curator/recipestest"
)

// token returns an IN line's fencing token.
func token(t *testing.T, e event) int64 {
	t.Helper()
	n, err := strconv.ParseInt(field(e.line, "token"), 10, 64)
	if err != nil {
		t.Fatalf("%s: no fencing token in %q", e.p.name, e.line)
	}
	return n
}

// holdersOf runs gocurator holders and returns its rows (without the
// header) as fields.
func (b *board) holdersOf(args ...string) [][]string {
	b.t.Helper()
	out, errOut, status := b.run(b.env(), append([]string{"holders"}, args...)...)
	if status != 0 {
		b.t.Fatalf("holders exited with %d: %s", status, errOut)
	}
	lines := strings.Split(strings.TrimSpace(out), "\n")
	if len(lines) < 2 || strings.Join(strings.Fields(lines[0]), " ") != "STATE KIND AGE SESSION ID NODE" {
		b.t.Fatalf("holders printed %q", out)
	}
	var rows [][]string
	for _, l := range lines[1:] {
		rows = append(rows, strings.Fields(l))
	}
	return rows
}

// row finds the holders row of participant id and kind.
func row(rows [][]string, id, kind string) []string {
	for _, r := range rows {
		if len(r) == 6 && r[4] == id && r[1] == kind {
			return r
		}
	}
	return nil
}

// Two gocurator lock processes on one path never run their commands at
// once: the second command starts only after the first has exited (its
// slot check would fail otherwise), and holders shows who holds and who
// waits. The command's environment names the hold's node, session and
// fencing token, and they are the node's own.
func TestLockRunsOneCommandAtATime(t *testing.T) {
	b := newBoard(t)
	c := b.client()
	a := b.start("A", b.env(b.helper("gate", "A", "slot")...), "lock", "--id", "A", "/lock", "--", self)
	inA := b.next("IN A", a)
	second := b.start("B", b.env(b.helper("gate", "B", "slot")...), "lock", "--id", "B", "/lock", "--", self)
	b.waitNodes(c, 2, "/lock")

	rows := b.holdersOf("/lock")
	if r := row(rows, "A", "lock"); r == nil || r[0] != "holds" {
		t.Fatalf("holders does not show A holding: %q", rows)
	}
	if r := row(rows, "B", "lock"); r == nil || r[0] != "waits" || len(rows) != 2 {
		t.Fatalf("holders does not show B waiting, alone: %q", rows)
	}
	node := field(inA.line, "node")
	if !strings.HasPrefix(node, "/lock/_c_") || !strings.HasSuffix(row(rows, "A", "lock")[5], node[len("/lock/"):]) {
		t.Fatalf("A's command was given node %q; holders shows %q", node, rows)
	}
	_, stat, err := c.Get(b.ctx, node)
	if err != nil {
		t.Fatal(err)
	}
	if got, want := field(inA.line, "session"), fmt.Sprintf("%#x", stat.EphemeralOwner); got != want {
		t.Fatalf("A's command was given session %s; the node's owner is %s", got, want)
	}
	if got := token(t, inA); got != stat.Czxid {
		t.Fatalf("A's command was given token %d; the node was created by zxid %d", got, stat.Czxid)
	}
	if got := field(inA.line, "path"); got != "/lock" {
		t.Fatalf("A's command was given path %q", got)
	}

	a.release()
	b.expectExit(a, 0)
	inB := b.next("IN B", second)
	if token(t, inB) <= token(t, inA) {
		t.Fatalf("B's fencing token %d is not above A's %d", token(t, inB), token(t, inA))
	}
	second.release()
	b.expectExit(second, 0)
	b.drain()
	if kids, _, err := c.Children(b.ctx, "/lock"); err != nil && !isNoNode(err) || len(kids) != 0 {
		t.Fatalf("left in /lock: %v %v", kids, err)
	}
}

// Three gocurator lock --shared 2 processes: two commands run at once
// (both say IN while neither has ended), and the third starts only once
// one of them has exited: it finds a slot free.
func TestSharedLetsTwoRunNeverThree(t *testing.T) {
	b := newBoard(t)
	c := b.client()
	procs := map[string]*proc{}
	for _, id := range []string{"A", "B", "C"} {
		procs[id] = b.start(id, b.env(b.helper("gate", id, "slot1", "slot2")...), "lock", "--shared", "2", "--id", id, "/sem", "--", self)
	}
	first, second := b.next("IN"), b.next("IN")
	var third *proc
	for _, p := range procs {
		if p != first.p && p != second.p {
			third = p
		}
	}
	// The third is in the semaphore's queue, with a node holding its id.
	waitData(t, b, c, third.name, "/sem/leases", "/sem/locks")
	rows := b.holdersOf("--shared", "2", "/sem")
	for _, p := range []*proc{first.p, second.p} {
		if r := row(rows, p.name, "lease"); r == nil || r[0] != "holds" {
			t.Fatalf("holders does not show %s holding a lease: %q", p.name, rows)
		}
	}
	for _, r := range rows {
		if r[4] == third.name && r[0] != "waits" {
			t.Fatalf("holders shows %s, the third, as %s: %q", third.name, r[0], rows)
		}
	}

	first.p.release()
	b.expectExit(first.p, 0)
	b.next("IN "+third.name, third)
	second.p.release()
	third.release()
	b.expectExit(second.p, 0)
	b.expectExit(third, 0)
	b.drain()
}

// waitData polls until one of dirs has a node whose data is id.
func waitData(t *testing.T, b *board, c *framework.Client, id string, dirs ...string) {
	t.Helper()
	recipestest.Eventually(t, id+"'s node", func() (bool, string) {
		var saw []string
		for _, d := range dirs {
			kids, _, _ := c.Children(b.ctx, d)
			for _, k := range kids {
				data, _, err := c.Get(b.ctx, d+"/"+k)
				if err == nil && string(data) == id {
					return true, ""
				}
				saw = append(saw, string(data))
			}
		}
		return false, fmt.Sprint(saw)
	})
}

// Readers share: two --read commands run at once. A --write command waits
// for both and runs alone (its exclusive slot check fails while a reader
// runs).
func TestReadersShareAndAWriterWaits(t *testing.T) {
	b := newBoard(t)
	c := b.client()
	r1 := b.start("R1", b.env(b.helper("read", "R1", "rw")...), "lock", "--read", "--id", "R1", "/rw", "--", self)
	r2 := b.start("R2", b.env(b.helper("read", "R2", "rw")...), "lock", "--read", "--id", "R2", "/rw", "--", self)
	b.next("IN R1", r1)
	b.next("IN R2", r2)
	w := b.start("W", b.env(b.helper("gate", "W", "rw")...), "lock", "--write", "--id", "W", "/rw", "--", self)
	b.waitNodes(c, 3, "/rw")
	rows := b.holdersOf("/rw")
	for id, want := range map[string]string{"R1": "holds", "R2": "holds"} {
		if r := row(rows, id, "read"); r == nil || r[0] != want {
			t.Fatalf("holders does not show %s %s: %q", id, want, rows)
		}
	}
	if r := row(rows, "W", "write"); r == nil || r[0] != "waits" {
		t.Fatalf("holders does not show W waiting: %q", rows)
	}
	r1.release()
	r2.release()
	b.expectExit(r1, 0)
	b.expectExit(r2, 0)
	b.next("IN W", w)
	w.release()
	b.expectExit(w, 0)
	b.drain()
}

// While another holds the lock, gocurator lock --timeout gives up: exit
// 124, its command never ran, and its node is gone. The same for
// gocurator elect --timeout while another leads.
func TestTimeoutGivesUpWithoutRunning(t *testing.T) {
	b := newBoard(t)
	c := b.client()
	holder := b.start("H", b.env(b.helper("gate", "H", "slot")...), "lock", "--id", "H", "/lock", "--", self)
	b.next("IN H", holder)
	leader := b.start("L", b.env(b.helper("gate", "L", "slot2")...), "elect", "--id", "L", "/election", "--", self)
	b.next("IN L", leader)
	for _, args := range [][]string{
		{"lock", "--timeout", "200ms", "--id", "T", "/lock", "--", self},
		{"elect", "--timeout", "200ms", "--id", "T", "/election", "--", self},
	} {
		out, errOut, status := b.run(b.env(b.helper("gate", "T", "other")...), args...)
		if status != exitTimeout || out != "" || !strings.Contains(errOut, "within 200ms") {
			t.Errorf("%q: status %d, stdout %q, stderr %q; want 124 and no command", args, status, out, errOut)
		}
	}
	rows := b.holdersOf("/lock")
	if len(rows) != 1 || rows[0][4] != "H" {
		t.Fatalf("after the timeouts /lock has %q", rows)
	}
	if kids, _, err := c.Children(b.ctx, "/election"); err != nil || len(kids) != 1 {
		t.Fatalf("after the timeout /election has %q, %v", kids, err)
	}
	holder.release()
	leader.release()
	b.expectExit(holder, 0)
	b.expectExit(leader, 0)
	b.drain()
}
