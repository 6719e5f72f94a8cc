package main

import (
	"slices"
	"strings"
	"syscall"
	"testing"

	"github.com/gocurator/curator/recipestest"
)

// Three gocurator elect processes run one command at a time. When the
// leader's gocurator is killed (SIGKILL), its command dies with it, and the
// next leader's command starts once the server has expired the dead
// process's session: its slot is free. A SIGTERM to the next leader's
// gocurator reaches its command, which dies of it; gocurator exits 143 and
// leaves, and the third leads. leader prints the leader, and leader
// --watch prints the three in turn.
func TestElectRunsOneCommandAtATimeAndFailsOver(t *testing.T) {
	b := newBoard(t)
	c := b.client()
	watch := b.start("W", b.env(), "leader", "--watch", "/election")
	procs := map[string]*proc{}
	for _, id := range []string{"E0", "E1", "E2"} {
		procs[id] = b.start(id, b.env(append(b.helper("gate", id, "slot"), "GOCURATOR_SESSION_TIMEOUT=2s")...),
			"elect", "--id", id, "/election", "--", self)
	}
	b.waitNodes(c, 3, "/election")
	first := b.next("IN")
	if out, errOut, status := b.run(b.env(), "leader", "/election"); status != 0 || strings.TrimSpace(out) != first.p.name {
		t.Fatalf("leader printed %q (%s, status %d), want %s", out, errOut, status, first.p.name)
	}
	first.p.cmd.Process.Kill()
	b.wait(first.p)
	second := b.next("IN")
	second.p.cmd.Process.Signal(syscall.SIGTERM)
	b.expectExit(second.p, 128+int(syscall.SIGTERM))
	third := b.next("IN")
	if third.p == first.p || third.p == second.p || second.p == first.p {
		t.Fatalf("leaders %s, %s, %s", first.p.name, second.p.name, third.p.name)
	}
	b.next(third.p.name, watch) // the watcher has seen the third leader
	third.p.release()
	b.expectExit(third.p, 0)
	watch.cmd.Process.Signal(syscall.SIGINT)
	b.expectExit(watch, 0)
	b.drain()
	var leaders []string
	for _, l := range b.linesOf(watch) {
		if len(leaders) == 0 || leaders[len(leaders)-1] != l {
			leaders = append(leaders, l)
		}
	}
	leaders = slices.DeleteFunc(leaders, func(l string) bool { return l == "" })
	if want := []string{first.p.name, second.p.name, third.p.name}; !slices.Equal(leaders, want) {
		t.Fatalf("leader --watch printed leaders %q, want %q", leaders, want)
	}
	b.waitNodes(c, 0, "/election")
	if _, errOut, status := b.run(b.env(), "leader", "/election"); status != exitNoLeader || !strings.Contains(errOut, "no leader") {
		t.Fatalf("leader of an empty election: status %d, stderr %q", status, errOut)
	}
}

// With --requeue, gocurator elect runs the command again each time it
// leads, until a SIGTERM; it then leaves the election.
func TestElectRequeueRunsAgainUntilTerminated(t *testing.T) {
	b := newBoard(t)
	c := b.client()
	e := b.start("E", b.env(b.helper("run", "E")...), "elect", "--requeue", "--id", "E", "/requeue", "--", self)
	for range 3 {
		b.next("RUN E", e)
	}
	e.cmd.Process.Signal(syscall.SIGTERM)
	// 143 if the signal came while waiting or killed a command; 0 if it
	// came as a command was exiting on its own.
	if status := b.wait(e); status != 128+int(syscall.SIGTERM) && status != 0 {
		t.Fatalf("exit status %d; stderr %s", status, e.errText())
	}
	if kids, _, err := c.Children(b.ctx, "/requeue"); err != nil && !isNoNode(err) || len(kids) != 0 {
		t.Fatalf("left in /requeue: %v %v", kids, err)
	}
}

// With --requeue, a lost leadership stops the command and joins again: the
// connection is dropped (Suspended ends the term), the command's group is
// stopped, and once the client is back it leads again and runs the
// command again, whose slot check finds the first one dead.
func TestElectRequeueRunsAgainAfterALoss(t *testing.T) {
	b := newBoard(t)
	proxy := recipestest.StartProxy(t, server.ConnectString())
	env := append(b.env(b.helper("hold", "E", "slot")...), "ZOOKEEPER_CONNECT="+proxy.Addr())
	e := b.start("E", env, "elect", "--requeue", "--id", "E", "/election", "--", self)
	first := b.next("IN E", e)
	proxy.DropAll()
	second := b.next("IN E", e)
	if field(first.line, "pid") == field(second.line, "pid") || token(t, second) <= token(t, first) {
		t.Fatalf("the second term's command %q is not a new one after %q", second.line, first.line)
	}
	if msg := e.errText(); !strings.Contains(msg, "stopped the command's process group") || !strings.Contains(msg, "joining the election again") {
		t.Fatalf("gocurator elect said %q", msg)
	}
	e.cmd.Process.Signal(syscall.SIGTERM)
	b.expectExit(e, 128+int(syscall.SIGTERM))
	b.drain()
}
