// Package scripts_test tests the repository's scripts.
package scripts_test

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// vulncheck runs scripts/vulncheck on packages with the database db and
// returns its output and exit status. It skips the test where govulncheck
// cannot be built (no module proxy, no module cache).
func vulncheck(t *testing.T, db string, packages ...string) (string, int) {
	t.Helper()
	cmd := exec.Command("./vulncheck", packages...)
	cmd.Env = append(os.Environ(), "GOVULNDB="+db, "VULNCHECK=")
	out, err := cmd.CombinedOutput()
	if _, ok := err.(*exec.ExitError); err != nil && !ok {
		t.Fatal(err)
	}
	if strings.Contains(string(out), "could not be built") {
		t.Skipf("govulncheck cannot be built here: %s", out)
	}
	return string(out), cmd.ProcessState.ExitCode()
}

// The check fails on a vulnerability the module's code reaches, and passes
// over one fixed in the versions the module requires: against a made-up
// database (testdata/vulndb) with GO-2099-0002, on go-zookeeper's
// Conn.Create, never fixed, and GO-2099-0001, on golang.org/x/sync's
// errgroup before v0.25.0, which the module used at v0.11.0. It checks the
// framework, whose Client reaches the Create through internal/zkconn; from a
// recipe, govulncheck's call graph loses the connection behind the dial
// function the Client keeps, and reports nothing.
func TestVulncheckReportsWhatTheCodeReaches(t *testing.T) {
	db, err := filepath.Abs("testdata/vulndb")
	if err != nil {
		t.Fatal(err)
	}
	out, status := vulncheck(t, "file://"+db, "./framework")
	if status != 1 || !strings.Contains(out, "GO-2099-0002") || !strings.Contains(out, "vulncheck: FAILED") {
		t.Errorf("a reached vulnerability: status %d, output:\n%s\nwant 1 and GO-2099-0002 reported", status, out)
	}
	if strings.Contains(out, "GO-2099-0001") {
		t.Errorf("golang.org/x/sync is older than v0.25.0, which fixes GO-2099-0001:\n%s", out)
	}
}

// Where the database cannot be reached, the check says plainly that it did
// not run, and does not fail the build.
func TestVulncheckSaysWhenItCannotRun(t *testing.T) {
	out, status := vulncheck(t, "https://vuln.invalid", "./retry")
	if status != 0 || !strings.Contains(out, "vulncheck: NOT RUN: the vulnerability database https://vuln.invalid cannot be reached") {
		t.Errorf("an unreachable database: status %d, output %q; want 0 and NOT RUN", status, out)
	}
}
