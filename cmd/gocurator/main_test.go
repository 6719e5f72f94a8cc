package main

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/gocurator/curator/recipestest"
	"github.com/gocurator/curator/zkharness"
)

var (
	// server is the tests' shared ZooKeeper; each test works in a
	// namespace of its own.
	server *zkharness.Server
	// bin is the gocurator binary the end-to-end tests run, built once.
	bin string
	// self is this test binary, which the tests' commands run as helpers
	// (see helper_test.go).
	self string
)

// TestMain runs a helper when the environment asks for one; otherwise it
// builds gocurator, starts a ZooKeeper server and runs the tests.
func TestMain(m *testing.M) {
	if mode := os.Getenv(helperEnv); mode != "" {
		os.Exit(runHelper(mode))
	}
	dir, err := os.MkdirTemp("", "gocurator-test-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	bin = filepath.Join(dir, "gocurator")
	if out, err := exec.Command("go", "build", "-o", bin, ".").CombinedOutput(); err != nil {
		fmt.Fprintf(os.Stderr, "building gocurator: %v\n%s", err, out)
		os.RemoveAll(dir)
		os.Exit(1)
	}
	if self, err = os.Executable(); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.RemoveAll(dir)
		os.Exit(1)
	}
	if server, err = zkharness.NewServer(); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.RemoveAll(dir)
		os.Exit(1)
	}
	recipestest.VerifyTestMain(m, func() {
		server.Close()
		os.RemoveAll(dir)
	})
}
