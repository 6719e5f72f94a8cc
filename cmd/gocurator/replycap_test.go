package main

import (
	"strconv"
	"strings"
	"testing"

	"github.com/gocurator/curator/framework"
)

// An id is data anyone who joins an election chooses, up to the server's
// limit (1 MiB): gocurator leader refuses one over 4 KiB with a clear error
// (121) rather than print it, and holders shows a kilobyte of it, quoted,
// with its length. --node still prints the leader's node.
func TestLeaderAndHoldersCapTheIDsTheyRead(t *testing.T) {
	b := newBoard(t)
	c := b.client()
	big := strings.Repeat("x", 64<<10)
	node, err := c.Create(b.ctx, "/e/lock-", []byte(big), framework.WithMode(framework.EphemeralSequential), framework.WithContainerParents())
	if err != nil {
		t.Fatal(err)
	}
	out, errOut, status := b.run(b.env(), "leader", "/e")
	if status != exitFailed || out != "" || !strings.Contains(errOut, "65536 bytes") || !strings.Contains(errOut, "at most 4096") {
		t.Errorf("leader of a 64 KiB id: status %d, %d bytes out, stderr %q; want %d, nothing printed, and the sizes said", status, len(out), errOut, exitFailed)
	}
	if out, errOut, status := b.run(b.env(), "leader", "--node", "/e"); status != 0 || out != node+"\n" {
		t.Errorf("leader --node: %q, status %d, stderr %q", out, status, errOut)
	}
	out, errOut, status = b.run(b.env(), "holders", "/e")
	lines := strings.Split(strings.TrimSuffix(out, "\n"), "\n")
	want := strconv.Quote(big[:1024]) + "…(65536 bytes)"
	if status != 0 || len(lines) != 2 || !strings.Contains(lines[1], want) {
		t.Errorf("holders: status %d, stderr %q, %d bytes out; want one row with the ID %s…", status, errOut, len(out), want[:20])
	}
}
