package main

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// A COMMAND found only through "." in $PATH is refused (126) before the
// lock is taken, and does not run; "./name" runs it.
func TestLockRefusesACommandFoundThroughDotInPath(t *testing.T) {
	b := newBoard(t)
	dir := t.TempDir()
	marker := filepath.Join(b.dir, "ran")
	script := "#!/bin/sh\ntouch " + marker + "\n"
	if err := os.WriteFile(filepath.Join(dir, "planted"), []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	run := func(name string) (string, int) {
		cmd := exec.CommandContext(b.ctx, bin, "lock", "/lock", "--", name)
		cmd.Dir = dir
		cmd.Env = append(os.Environ(), b.env("PATH=.:/usr/bin:/bin")...)
		var errOut bytes.Buffer
		cmd.Stderr = &errOut
		err := cmd.Run()
		if _, ok := err.(*exec.ExitError); err != nil && !ok {
			t.Fatal(err)
		}
		return errOut.String(), cmd.ProcessState.ExitCode()
	}
	errOut, status := run("planted")
	if status != exitCannotRun || !strings.Contains(errOut, "./planted") {
		t.Fatalf("planted through PATH=.: status %d, stderr %q; want %d and a hint to run ./planted", status, errOut, exitCannotRun)
	}
	if _, err := os.Stat(marker); err == nil {
		t.Fatal("the planted command ran")
	}
	if _, err := os.Stat(filepath.Join(dir, "planted")); err != nil {
		t.Fatal(err)
	}
	if errOut, status := run("./planted"); status != 0 {
		t.Fatalf("./planted: status %d, stderr %q", status, errOut)
	}
	if _, err := os.Stat(marker); err != nil {
		t.Fatalf("./planted did not run: %v", err)
	}
}
