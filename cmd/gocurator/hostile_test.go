package main

import (
	"strconv"
	"strings"
	"testing"

	"github.com/gocurator/curator/framework"
)

// A participant's id and node name come from whoever could write to the
// election: gocurator leader and holders print them escaped, so that an id
// with a newline cannot pass for a second line, and one with terminal
// escapes or bidirectional controls cannot rewrite what the reader sees.
// Plain ids print as they are.
func TestLeaderAndHoldersEscapeWhatTheyRead(t *testing.T) {
	b := newBoard(t)
	c := b.client()
	const hostile = "\x1b[2K\rop-1\nop-2\u202e"
	for _, tc := range []struct {
		name, id, want string
	}{
		{"hostile id", hostile, strconv.Quote(hostile)},
		{"plain id", "build-7:4121", "build-7:4121"},
		{"id with a space", "build 7", `"build 7"`},
		{"id that looks quoted", `"op-1"`, strconv.Quote(`"op-1"`)},
		{"empty id", "", `""`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := "/e-" + strings.ReplaceAll(tc.name, " ", "-")
			node, err := c.Create(b.ctx, dir+"/x\u202ey-lock-", []byte(tc.id),
				framework.WithMode(framework.EphemeralSequential), framework.WithContainerParents())
			if err != nil {
				t.Fatal(err)
			}
			out, errOut, status := b.run(b.env(), "leader", dir)
			if status != 0 || out != tc.want+"\n" {
				t.Errorf("leader printed %q (status %d, stderr %q), want %q and a newline", out, status, errOut, tc.want)
			}
			out, errOut, status = b.run(b.env(), "leader", "--node", dir)
			if want := strconv.Quote(node); status != 0 || out != want+"\n" {
				t.Errorf("leader --node printed %q (status %d, stderr %q), want %q and a newline", out, status, errOut, want)
			}
			out, errOut, status = b.run(b.env(), "holders", dir)
			lines := strings.Split(strings.TrimSuffix(out, "\n"), "\n")
			_, name := framework.SplitPath(node)
			if status != 0 || len(lines) != 2 || strings.ContainsAny(out, "\x1b\r\u202e") {
				t.Fatalf("holders printed %q (status %d, stderr %q), want a header and one escaped line", out, status, errOut)
			}
			row := strings.Fields(lines[1])
			wantID := tc.want
			if tc.id == "" {
				wantID = "-"
			}
			if got := strings.Join(row[4:len(row)-1], " "); got != wantID || row[len(row)-1] != strconv.Quote(name) {
				t.Errorf("holders' row %q: id %q, node %q; want %q, %q", lines[1], got, row[len(row)-1], wantID, strconv.Quote(name))
			}
		})
	}
}

// gocurator's own messages can carry what it read (a node's name in an
// error): they stay one line of printable text, escapes and all.
func TestMessagesAreOneLineOfPrintableText(t *testing.T) {
	for in, want := range map[string]string{
		"lost /a/b: gone":            "lost /a/b: gone",
		"two\nlines\r\nthree\rfour":  "two lines three four",
		"node x\x1b[2K\x07y\u202ez":  `node x\x1b[2K\ay\u202ez`,
		"tab\there, ünïcode kept":    "tab\there, ünïcode kept",
		"bad utf-8 \xff\xfe in name": `bad utf-8 \xff\xfe in name`,
	} {
		if got := oneLine(in); got != want {
			t.Errorf("oneLine(%q) = %q, want %q", in, got, want)
		}
	}
}
