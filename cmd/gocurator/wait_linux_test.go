package main

import (
	"bufio"
	"fmt"
	"os"
	"strings"
	"syscall"
	"testing"
	"unsafe"
)

// openPTY opens a pseudo-terminal and returns its two ends: a program
// given tty as its standard error writes to a terminal, and what it writes
// comes out of ptmx.
func openPTY(t *testing.T) (ptmx, tty *os.File) {
	t.Helper()
	ptmx, err := os.OpenFile("/dev/ptmx", os.O_RDWR|syscall.O_NOCTTY, 0)
	if err != nil {
		t.Skipf("no pseudo-terminal here: %v", err)
	}
	var unlock int32
	var n uint32
	if _, _, e := syscall.Syscall(syscall.SYS_IOCTL, ptmx.Fd(), syscall.TIOCSPTLCK, uintptr(unsafe.Pointer(&unlock))); e != 0 {
		t.Fatalf("unlocking the pseudo-terminal: %v", e)
	}
	if _, _, e := syscall.Syscall(syscall.SYS_IOCTL, ptmx.Fd(), syscall.TIOCGPTN, uintptr(unsafe.Pointer(&n))); e != 0 {
		t.Fatalf("naming the pseudo-terminal: %v", e)
	}
	tty, err = os.OpenFile(fmt.Sprintf("/dev/pts/%d", n), os.O_RDWR|syscall.O_NOCTTY, 0)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		tty.Close() // again, if the test has not
		ptmx.Close()
	})
	return ptmx, tty
}

// ttyLines returns the lines written to the terminal whose master is ptmx.
func ttyLines(ptmx *os.File) <-chan string {
	lines := make(chan string, 64)
	go func() {
		defer close(lines)
		sc := bufio.NewScanner(ptmx)
		for sc.Scan() { // ends with EIO once the terminal is closed
			lines <- strings.TrimRight(sc.Text(), "\r")
		}
	}()
	return lines
}

// nextLine waits for a line from lines that starts with prefix, and fails
// the test if another comes first.
func (b *board) nextLine(lines <-chan string, prefix string) string {
	b.t.Helper()
	select {
	case l, ok := <-lines:
		if !ok || !strings.HasPrefix(l, prefix) {
			b.t.Fatalf("the terminal showed %q (open %v); want a line starting %q\n%s", l, ok, prefix, b.dump())
		}
		return l
	case <-b.ctx.Done():
		b.t.Fatalf("the terminal showed no line %q\n%s", prefix, b.dump())
	}
	return ""
}

// A gocurator lock waiting at a terminal says what it waits for: the path
// and who holds it (id, session, when it queued), again when the holder
// changes, and when it has the lock. One whose standard error is a pipe (a
// script) waits and runs without a word.
func TestWaitingAtATerminalSaysWhoHolds(t *testing.T) {
	b := newBoard(t)
	c := b.client()
	h1 := b.start("H1", b.env(b.helper("gate", "H1", "slot")...), "lock", "--id", "H1", "/lock", "--", self)
	b.next("IN H1", h1)
	h2 := b.start("H2", b.env(b.helper("gate", "H2", "slot")...), "lock", "--id", "H2", "/lock", "--", self)
	waitData(t, b, c, "H2", "/lock")

	ptmx, tty := openPTY(t)
	lines := ttyLines(ptmx)
	waiter := b.startWithStderr("T", bin, tty, b.env(b.helper("gate", "T", "slot")...), "lock", "--id", "T", "/lock", "--", self)
	tty.Close() // the terminal closes when the waiter (and its command) have exited

	first := b.nextLine(lines, "gocurator lock: waiting for /lock: held by H1 (session 0x")
	_, stat, err := c.Get(b.ctx, "/lock/"+row(b.holdersOf("/lock"), "H1", "lock")[5])
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(first, fmt.Sprintf("(session %#x, queued ", stat.EphemeralOwner)) || !strings.Contains(first, "1 other(s) waiting") {
		t.Fatalf("the first line %q does not name H1's session %#x and H2 waiting", first, stat.EphemeralOwner)
	}
	waitData(t, b, c, "T", "/lock") // T's queued node, after its try's
	quiet := b.start("Q", b.env(b.helper("gate", "Q", "slot")...), "lock", "--id", "Q", "/lock", "--", self)
	b.waitNodes(c, 4, "/lock")

	h1.release()
	b.expectExit(h1, 0)
	b.next("IN H2", h2)
	b.nextLine(lines, "gocurator lock: waiting for /lock: held by H2 (session 0x")
	h2.release()
	b.expectExit(h2, 0)
	b.nextLine(lines, "gocurator lock: acquired /lock after ")
	b.next("IN T", waiter)
	waiter.release()
	b.expectExit(waiter, 0)
	b.next("IN Q", quiet)
	quiet.release()
	b.expectExit(quiet, 0)
	if s := quiet.errText(); s != "" {
		t.Fatalf("the waiter whose standard error is a pipe printed %q; want nothing", s)
	}
	for l := range lines { // until the terminal closed
		t.Errorf("the terminal showed %q after the lock was had", l)
	}
	b.drain()
}
