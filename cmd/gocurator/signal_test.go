package main

import (
	"os"
	"path/filepath"
	"syscall"
	"testing"

	"github.com/gocurator/curator/recipestest"
)

// SIGINT or SIGTERM to gocurator lock reaches the command's whole group
// (a shell and its job): gocurator exits with the shell's status (130 or
// 143), nothing of the command runs any more (its slot is free), the lock
// is released, and nothing is left in ZooKeeper: the lock's container and
// the namespace's go once empty.
func TestSignalStopsTheCommandAndReleases(t *testing.T) {
	for _, sig := range []syscall.Signal{syscall.SIGINT, syscall.SIGTERM} {
		t.Run(sig.String(), func(t *testing.T) {
			b := newBoard(t)
			c := b.client()
			if _, _, err := c.Children(b.ctx, "/"); err != nil { // the namespace exists before the lock does
				t.Fatal(err)
			}
			p := b.start("P", b.env(b.helper("hold", "P", "slot")...), "lock", "--id", "P", "/lock", "--", "sh", "-c", `"$0" & wait`, self)
			b.next("IN P", p)
			p.cmd.Process.Signal(sig)
			b.expectExit(p, 128+int(sig))
			t.Logf("gocurator's stderr: %s", p.errText())
			f, err := takeSlot(filepath.Join(b.dir, "slot"), false)
			if err != nil {
				t.Fatalf("a process of the command outlived gocurator: %v", err)
			}
			f.Close()
			if kids, _, err := c.Children(b.ctx, "/lock"); err != nil && !isNoNode(err) || len(kids) != 0 {
				t.Fatalf("left in /lock: %v %v", kids, err)
			}
			root := recipestest.NewClient(t, server.ConnectString())
			b.waitGone(root, "/"+b.ns)
			b.drain()
		})
	}
}

// A terminating signal while gocurator waits for the lock: it gives up,
// its node is deleted, and it exits 128+N without running the command.
func TestSignalWhileWaiting(t *testing.T) {
	b := newBoard(t)
	c := b.client()
	holder := b.start("H", b.env(b.helper("gate", "H", "slot")...), "lock", "--id", "H", "/lock", "--", self)
	b.next("IN H", holder)
	waiter := b.start("W", b.env(b.helper("gate", "W", "slot")...), "lock", "--id", "W", "/lock", "--", self)
	b.waitNodes(c, 2, "/lock")
	waiter.cmd.Process.Signal(os.Interrupt)
	b.expectExit(waiter, 128+int(syscall.SIGINT))
	b.waitNodes(c, 1, "/lock")
	holder.release()
	b.expectExit(holder, 0)
	b.drain()
	for _, l := range b.linesOf(waiter) {
		t.Fatalf("the waiter's command ran: %q", l)
	}
}

// Ctrl-Z (SIGTSTP) to gocurator while its command runs does not stop it:
// stopped, it would send no pings, and the server would let another holder
// in while the command ran on. gocurator still sees the command end and
// exits with its status.
func TestJobControlDoesNotStopGocurator(t *testing.T) {
	b := newBoard(t)
	holder := b.start("H", b.env(b.helper("gate", "H", "slot")...), "lock", "--id", "H", "/lock", "--", self)
	b.next("IN H", holder)
	for _, sig := range []syscall.Signal{syscall.SIGTSTP, syscall.SIGTTIN, syscall.SIGTTOU} {
		if err := holder.cmd.Process.Signal(sig); err != nil {
			t.Fatal(err)
		}
	}
	holder.release()
	b.expectExit(holder, 0) // a stopped gocurator would not
	b.drain()
}
