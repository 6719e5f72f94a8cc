package main

import (
	"errors"
	"fmt"
	"io/fs"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/gocurator/curator/cmd/gocurator/internal/holdrun"
)

// Exit statuses, documented in docs/cli.md and in every subcommand's help.
// Otherwise gocurator lock and elect exit with the command's own status
// (128 plus the signal's number if a signal killed it).
const (
	exitOK = 0
	// exitNoLeader: gocurator leader found no leader.
	exitNoLeader = 1
	// exitUsage: bad flags, path, connect string or environment, or no
	// command after "--". Nothing was sent to ZooKeeper.
	exitUsage = 2
	// exitFailed: gocurator itself failed: it could not connect, ZooKeeper
	// refused its credentials, or a request failed.
	exitFailed = 121
	// exitLost: the lock or the leadership was lost while the command ran
	// (the command's process group was stopped), or before its release.
	exitLost = 122
	// exitTimeout: the lock or the leadership was not had within
	// --timeout; the command did not run.
	exitTimeout = 124
	// exitCannotRun and exitNotFound: the command cannot be run, or does
	// not exist (as a shell's 126 and 127); the lock was not taken.
	exitCannotRun = 126
	exitNotFound  = 127
)

// usageError prints a bad usage's one-line message.
func (a *app) usageError(cmd, msg string) {
	name := "gocurator"
	if cmd != "" {
		name += " " + cmd
	}
	fmt.Fprintf(a.stderr, "%s: %s (see %s --help)\n", name, oneLine(msg), name)
}

// fail prints a one-line message and returns status.
func (a *app) fail(cmd string, status int, format string, args ...any) int {
	fmt.Fprintf(a.stderr, "gocurator %s: %s\n", cmd, oneLine(fmt.Sprintf(format, args...)))
	return status
}

// oneLine keeps a message on one line of printable text: line breaks
// become spaces, and other control and format characters, and invalid
// UTF-8, are escaped as in a Go string literal. A message can carry what
// gocurator read from ZooKeeper (a node's name), which whoever made the
// node chose.
func oneLine(s string) string {
	s = strings.NewReplacer("\r\n", " ", "\n", " ", "\r", " ").Replace(s)
	var b strings.Builder
	for i, r := range s {
		switch {
		case r == utf8.RuneError && !strings.HasPrefix(s[i:], "\uFFFD"):
			fmt.Fprintf(&b, `\x%02x`, s[i])
		case r == '\t' || unicode.IsPrint(r):
			b.WriteRune(r)
		default:
			q := strconv.QuoteRune(r)
			b.WriteString(q[1 : len(q)-1])
		}
	}
	return b.String()
}

// lookupStatus is the exit status of a command that cannot be run.
func lookupStatus(err error) int {
	if errors.Is(err, holdrun.ErrNotFound) || errors.Is(err, fs.ErrNotExist) { // gone since the lookup
		return exitNotFound
	}
	return exitCannotRun
}
