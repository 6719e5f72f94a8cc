package holdrun

import (
	"errors"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"testing"
	"time"
)

func TestEnvSetsTheHoldsVariablesOnce(t *testing.T) {
	h := Hold{Path: "/jobs/a", Node: "/jobs/a/_c_x-lock-0000000004", Session: 0x1000a2b3c4d0005, Token: 4294967301, Connect: "h1:2181/app", Namespace: "ns",
		TLS: true, TLSCA: "/etc/zk/ca.pem"}
	env := h.Env([]string{"HOME=/root", "GOCURATOR_NODE=stale", "ZOOKEEPER_CONNECT=elsewhere:2181", "GOCURATOR_NAMESPACE_X=kept", "GOCURATOR_DIGEST=ops:secret", "GOCURATOR_DIGEST_FILE=/etc/zk/digest",
		"GOCURATOR_TLS_CERT=/overridden/by/a/flag.pem"})
	want := []string{
		"HOME=/root", "GOCURATOR_NAMESPACE_X=kept",
		"GOCURATOR_PATH=/jobs/a", "GOCURATOR_NODE=/jobs/a/_c_x-lock-0000000004",
		"GOCURATOR_SESSION_ID=0x1000a2b3c4d0005", "GOCURATOR_FENCING_TOKEN=4294967301",
		"ZOOKEEPER_CONNECT=h1:2181/app", "GOCURATOR_NAMESPACE=ns",
		"GOCURATOR_TLS=true", "GOCURATOR_TLS_CA=/etc/zk/ca.pem", "GOCURATOR_TLS_CERT=", "GOCURATOR_TLS_KEY=",
	}
	if !slices.Equal(env, want) {
		t.Fatalf("env %q,\nwant %q", env, want)
	}
}

func TestGraceIsASixthOfTheSessionTimeout(t *testing.T) {
	if got := Grace(30 * time.Second); got != 5*time.Second {
		t.Fatalf("Grace(30s) = %v, want 5s", got)
	}
}

func TestLookup(t *testing.T) {
	if c, err := Lookup([]string{"sh", "-c", "true"}); err != nil || c.Path == "" || !slices.Equal(c.Args, []string{"sh", "-c", "true"}) {
		t.Fatalf("Lookup(sh) = %+v, %v", c, err)
	}
	for _, argv := range [][]string{nil, {""}, {"no-such-command-anywhere"}, {"/no/such/command"}} {
		if _, err := Lookup(argv); !errors.Is(err, ErrNotFound) {
			t.Errorf("Lookup(%q): %v, want ErrNotFound", argv, err)
		}
	}
	if _, err := Lookup([]string{t.TempDir()}); !errors.Is(err, ErrCannotRun) {
		t.Errorf("Lookup(a directory): %v, want ErrCannotRun", err)
	}
}

// TestRunStartsNothingOnALostHold: a hold already lost when Run is called
// runs no command.
func TestRunStartsNothingOnALostHold(t *testing.T) {
	lost := make(chan struct{})
	close(lost)
	marker := filepath.Join(t.TempDir(), "ran")
	cmd, err := Lookup([]string{"sh", "-c", "touch " + marker})
	if err != nil {
		t.Fatal(err)
	}
	res, err := Run(cmd, Hold{}, lost, func() time.Duration { return time.Second }, nil)
	if err != nil || !res.Lost {
		t.Fatalf("Run = %+v, %v; want Lost", res, err)
	}
	if _, err := os.Stat(marker); !errors.Is(err, fs.ErrNotExist) {
		t.Fatalf("the command ran: %v", err)
	}
}

// A command found only through a relative $PATH entry ("." or an empty
// entry, which means the current directory) is refused, as os/exec refuses
// it: whoever can write to the directory gocurator runs in would choose
// what runs under the lock. A name with a slash, ./cmd, still runs.
func TestLookupRefusesTheCurrentDirectoryThroughPath(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "planted"), []byte("#!/bin/sh\nexit 0\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	t.Chdir(dir)
	for _, path := range []string{".", ":/usr/bin", "/usr/bin::/bin", "/usr/bin:."} {
		t.Setenv("PATH", path)
		c, err := Lookup([]string{"planted"})
		if !errors.Is(err, ErrCannotRun) || !errors.Is(err, exec.ErrDot) {
			t.Errorf("PATH=%q: Lookup(planted) = %+v, %v; want ErrCannotRun wrapping exec.ErrDot", path, c, err)
		}
	}
	t.Setenv("PATH", "") // no entry at all: Go's LookPath searches nothing
	if c, err := Lookup([]string{"planted"}); !errors.Is(err, ErrNotFound) {
		t.Errorf("PATH empty: Lookup(planted) = %+v, %v; want ErrNotFound", c, err)
	}
	t.Setenv("PATH", "/usr/bin:/bin")
	if c, err := Lookup([]string{"./planted"}); err != nil || c.Path != "./planted" {
		t.Errorf("Lookup(./planted) = %+v, %v; want it found", c, err)
	}
}
