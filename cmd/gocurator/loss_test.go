package main

import (
	"strings"
	"testing"

	"github.com/gocurator/curator/recipestest"
)

// The holder's network goes silent (a blackhole between it and the
// server) and the server expires its session. Its command is a shell whose
// job ignores SIGTERM. Another gocurator waits on the same lock; its
// command starts only after the server has let it in, and finds the slot
// free: the holder's shell and the shell's job were both dead by then. The
// holder exits 122, having needed SIGKILL.
func TestSessionExpiryStopsTheWholeGroupBeforeTheNextHolder(t *testing.T) {
	b := newBoard(t)
	c := b.client()
	proxy := recipestest.StartProxy(t, server.ConnectString())
	env := append(b.env(b.helper("stubborn", "A", "slot")...), "ZOOKEEPER_CONNECT="+proxy.Addr(), "GOCURATOR_SESSION_TIMEOUT=2s")
	a := b.start("A", env, "lock", "--id", "A", "/lock", "--", "sh", "-c", `"$0" & wait`, self)
	inA := b.next("IN A", a)
	next := b.start("B", b.env(b.helper("gate", "B", "slot")...), "lock", "--id", "B", "/lock", "--", self)
	b.waitNodes(c, 2, "/lock")

	proxy.Blackhole(true)
	inB := b.next("IN B", next) // its slot check: nothing of A's command runs
	b.expectExit(a, exitLost)
	t.Logf("A's stderr: %s", a.errText())
	if msg := a.errText(); !strings.Contains(msg, "lost /lock") || !strings.Contains(msg, "SIGKILL") {
		t.Fatalf("A's message %q does not say the lock was lost and SIGKILL was needed", msg)
	}
	if token(t, inB) <= token(t, inA) {
		t.Fatalf("B's fencing token %d is not above A's %d", token(t, inB), token(t, inA))
	}
	next.release()
	b.expectExit(next, 0)
	b.drain()
}
