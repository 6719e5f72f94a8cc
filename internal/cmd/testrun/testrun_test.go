package main

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"
)

// clock is a fake clock the tests move by hand.
type clock struct{ t time.Time }

func (c *clock) now() time.Time          { return c.t }
func (c *clock) advance(d time.Duration) { c.t = c.t.Add(d) }

const mod = "example.com/m"

// Each package's result comes as it finishes, in go test's words, with how
// far the run is; a failed test's output comes when it fails; a quiet
// stretch gets a line saying what runs (or that it still compiles); the
// summary counts the tests and says the run failed.
func TestProgressSaysWhatHappens(t *testing.T) {
	c := &clock{t: time.Date(2026, 11, 26, 10, 0, 0, 0, time.UTC)}
	var out bytes.Buffer
	p := newProgress(&out, 3, mod, c.now)

	c.advance(40 * time.Second)
	p.tick(30 * time.Second)
	p.handle(event{Action: "start", Package: mod + "/a", Time: c.t})
	p.handle(event{Action: "start", Package: mod + "/b", Time: c.t})
	for _, e := range []event{
		{Action: "run", Package: mod + "/a", Test: "TestA"},
		{Action: "output", Package: mod + "/a", Test: "TestA", Output: "=== RUN   TestA\n"},
		{Action: "pass", Package: mod + "/a", Test: "TestA"},
		{Action: "output", Package: mod + "/a", Output: "PASS\n"},
		{Action: "output", Package: mod + "/a", Output: "ok  \texample.com/m/a\t1.500s\n"},
		{Action: "pass", Package: mod + "/a", Elapsed: 1.5},
		{Action: "run", Package: mod + "/b", Test: "TestB"},
		{Action: "output", Package: mod + "/b", Test: "TestB", Output: "=== RUN   TestB\n"},
		{Action: "output", Package: mod + "/b", Test: "TestB", Output: "    b_test.go:9: the lock was held twice\n"},
		{Action: "output", Package: mod + "/b", Test: "TestB", Output: "--- FAIL: TestB (0.20s)\n"},
		{Action: "fail", Package: mod + "/b", Test: "TestB"},
		{Action: "run", Package: mod + "/b", Test: "TestC"},
		{Action: "skip", Package: mod + "/b", Test: "TestC"},
	} {
		p.handle(e)
	}
	c.advance(31 * time.Second)
	p.tick(30 * time.Second)
	p.handle(event{Action: "output", Package: mod + "/b", Output: "FAIL\n"})
	p.handle(event{Action: "output", Package: mod + "/b", Output: "FAIL\texample.com/m/b\t31.000s\n"})
	p.handle(event{Action: "fail", Package: mod + "/b", Elapsed: 31})
	p.handle(event{Action: "start", Package: mod + "/c"})
	p.handle(event{Action: "output", Package: mod + "/c", Output: "?   \texample.com/m/c\t[no test files]\n"})
	p.handle(event{Action: "skip", Package: mod + "/c"})
	p.summary(1)

	want := strings.Join([]string{
		"... 40s in: compiling the test binaries; no test has started yet",
		"ok  \texample.com/m/a\t1.500s\t(1 of 3, 40s in)",
		"--- FAIL: TestB (example.com/m/b)",
		"    === RUN   TestB",
		"        b_test.go:9: the lock was held twice",
		"    --- FAIL: TestB (0.20s)",
		"... 1m11s in: running b (31s); 1 not started (compiling or queued)",
		"FAIL\texample.com/m/b\t31.000s\t(2 of 3, 1m11s in)",
		"?   \texample.com/m/c\t[no test files]\t(3 of 3, 1m11s in)",
		"",
		"Failed tests:",
		"  example.com/m/b TestB",
		"Failed packages:",
		"  example.com/m/b",
		"",
		"tests: 1 passed, 1 failed, 1 skipped",
		"FAIL (go test exited 1): 3 packages in 1m11s",
		"",
	}, "\n")
	if got := out.String(); got != want {
		t.Fatalf("printed:\n%s\nwant:\n%s", got, want)
	}
}

// A failed test's long output is cut in the middle, saying where all of it
// is.
func TestLongOutputIsCut(t *testing.T) {
	c := &clock{t: time.Now()}
	var out bytes.Buffer
	p := newProgress(&out, 1, mod, c.now)
	p.logPath = "/tmp/go-test.json"
	for i := range 400 {
		p.handle(event{Action: "output", Package: mod + "/a", Test: "TestA", Output: fmt.Sprintf("line %d\n", i)})
	}
	p.handle(event{Action: "fail", Package: mod + "/a", Test: "TestA"})
	got := out.String()
	for _, want := range []string{"    line 49\n    ... 100 lines cut; all of it is in /tmp/go-test.json ...\n    line 150\n", "    line 399\n"} {
		if !strings.Contains(got, want) {
			t.Errorf("printed %q; want %q in it", got, want)
		}
	}
	if strings.Contains(got, "line 50\n") || strings.Count(got, "\n") != 1+300+1 {
		t.Errorf("printed %d lines, want the header, 300 lines and the cut line:\n%s", strings.Count(got, "\n"), got)
	}
}

// fakeGo writes a go command that answers list with two packages and test
// with the events given, then exits with status.
func fakeGo(t *testing.T, events string, status int) string {
	t.Helper()
	if runtime.GOOS == "windows" {
		t.Skip("the fake go command is a shell script")
	}
	path := filepath.Join(t.TempDir(), "go")
	script := "#!/bin/sh\ncase \"$1\" in\nlist) [ \"$2\" = -m ] && echo example.com/m || printf 'example.com/m/a\\nexample.com/m/b\\n' ;;\n" +
		"test) cat <<'EOF'\n" + events + "EOF\nexit " + string(rune('0'+status)) + " ;;\nesac\n"
	if err := os.WriteFile(path, []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	return path
}

// The exit status is go test's; a pass that an event contradicts is a
// failure, and so is a run whose events say all passed but go test failed
// (a build error in a package with no event, say).
func TestExitStatusIsHonest(t *testing.T) {
	pass := `{"Action":"start","Package":"example.com/m/a"}
{"Action":"pass","Package":"example.com/m/a","Test":"TestA"}
{"Action":"pass","Package":"example.com/m/a","Elapsed":0.1}
`
	fail := `{"Action":"start","Package":"example.com/m/a"}
{"Action":"fail","Package":"example.com/m/a","Test":"TestA"}
{"Action":"fail","Package":"example.com/m/a","Elapsed":0.1}
`
	for _, tc := range []struct {
		name   string
		events string
		exit   int
		want   int
	}{
		{"all pass", pass, 0, 0},
		{"go test failed with passing events", pass, 1, 1},
		{"a failed test with status 0", fail, 0, 1},
		{"a failed test", fail, 1, 1},
		{"go test could not run", "go: no Go files\n", 2, 2},
	} {
		var out, errOut bytes.Buffer
		got := run([]string{"-go", fakeGo(t, tc.events, tc.exit)}, &out, &errOut)
		if got != tc.want {
			t.Errorf("%s: exit %d, want %d\n%s%s", tc.name, got, tc.want, out.String(), errOut.String())
		}
		if !strings.Contains(out.String(), "tests: ") {
			t.Errorf("%s: no summary in\n%s", tc.name, out.String())
		}
	}
}
