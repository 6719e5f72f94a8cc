package main

import (
	"os"
	"os/exec"
	"os/user"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
)

// The digest is not readable by the command through gocurator's
// /proc/PID/environ, as it is by default to every process of the same
// user: gocurator makes itself not dumpable, which leaves its memory,
// environment and open files to root (and keeps it from dumping core).
// Linux. Root reads any process's: run as root, the test runs gocurator
// and the command as nobody.
func TestCommandCannotReadTheDigestFromGocurator(t *testing.T) {
	if _, err := os.Stat("/proc/self/environ"); err != nil {
		t.Skip("no /proc: the protection is Linux's")
	}
	b := newBoard(t)
	program := bin
	var cred *syscall.Credential
	if os.Geteuid() == 0 {
		u, err := user.Lookup("nobody")
		if err != nil {
			t.Skipf("running as root, and no user nobody to run gocurator as: %v", err)
		}
		uid, _ := strconv.Atoi(u.Uid)
		gid, _ := strconv.Atoi(u.Gid)
		cred = &syscall.Credential{Uid: uint32(uid), Gid: uint32(gid)}
		dir, err := os.MkdirTemp("", "gocurator-nobody-")
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { os.RemoveAll(dir) })
		program = filepath.Join(dir, "gocurator")
		data, err := os.ReadFile(bin)
		if err == nil {
			err = os.WriteFile(program, data, 0o755)
		}
		if err == nil {
			err = os.Chmod(dir, 0o755)
		}
		if err != nil {
			t.Fatal(err)
		}
	}
	peek := `if tr '\0' '\n' < /proc/$PPID/environ | grep -q '^GOCURATOR_DIGEST=ops:'; then echo "PEEK read the digest"; else echo "PEEK refused"; fi`
	cmd := exec.CommandContext(b.ctx, program, "lock", "/lock", "--", "sh", "-c", peek)
	cmd.Env = append(os.Environ(), b.env("GOCURATOR_DIGEST=ops:s3cret")...)
	cmd.Dir = "/"
	cmd.SysProcAttr = &syscall.SysProcAttr{Credential: cred}
	var errOut strings.Builder
	cmd.Stderr = &errOut
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("%v, stdout %q, stderr %q", err, out, errOut.String())
	}
	if string(out) != "PEEK refused\n" {
		t.Fatalf("the command, run as gocurator's user, read gocurator's environment: %q (stderr %q)", out, errOut.String())
	}
}

// --digest-file (or $GOCURATOR_DIGEST_FILE) reads user:password from a
// file, or with "-" from the first line of standard input, whose rest is
// left to the command; a digest given two ways, or a file that cannot be
// read or holds no user, is bad usage.
func TestDigestFromAFileOrStandardInput(t *testing.T) {
	b, _ := aclBoard(t)
	good := filepath.Join(b.dir, "digest")
	if err := os.WriteFile(good, []byte(aclUser+":"+aclPassword+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	wrong := filepath.Join(b.dir, "wrong")
	if err := os.WriteFile(wrong, []byte(aclUser+":guess"), 0o600); err != nil {
		t.Fatal(err)
	}
	noUser := filepath.Join(b.dir, "nouser")
	if err := os.WriteFile(noUser, []byte("s3cret\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	run := func(env []string, args ...string) (string, string, int) {
		return b.run(b.env(append(b.helper("run", "R"), env...)...), append([]string{"lock", "--connect-timeout", "5s"}, append(args, "/secure/lock", "--", self)...)...)
	}
	for _, tc := range []struct {
		name   string
		env    []string
		args   []string
		status int
		stderr string
	}{
		{"flag", nil, []string{"--digest-file", good}, 0, ""},
		{"variable", []string{"GOCURATOR_DIGEST_FILE=" + good}, nil, 0, ""},
		{"wrong password", nil, []string{"--digest-file", wrong}, exitFailed, ""},
		{"no user", nil, []string{"--digest-file", noUser}, exitUsage, "user:password"},
		{"missing file", nil, []string{"--digest-file", filepath.Join(b.dir, "none")}, exitUsage, "no such file"},
		{"two ways", []string{"GOCURATOR_DIGEST=" + aclUser + ":" + aclPassword}, []string{"--digest-file", good}, exitUsage, "one way"},
	} {
		out, errOut, status := run(tc.env, tc.args...)
		if status != tc.status || !strings.Contains(errOut, tc.stderr) || (status == 0) != strings.Contains(out, "RUN R") {
			t.Errorf("%s: status %d, stdout %q, stderr %q; want %d and %q", tc.name, status, out, errOut, tc.status, tc.stderr)
		}
	}

	cmd := exec.CommandContext(b.ctx, bin, "lock", "--digest-file", "-", "/secure/lock", "--", self)
	cmd.Env = append(os.Environ(), b.env(b.helper("stdin", "I")...)...)
	cmd.Stdin = strings.NewReader(aclUser + ":" + aclPassword + "\nfor the command\n")
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("--digest-file -: %v, stdout %q", err, out)
	}
	if want := "STDIN \"for the command\\n\"\n"; string(out) != want {
		t.Fatalf("--digest-file -: the command's standard input held %q, want %q", out, want)
	}
}
