package main

import (
	"fmt"
	"io"
	"slices"
	"strings"
	"time"
)

// event is a line of go test -json (cmd/test2json's TestEvent, and the
// build events go test adds since Go 1.24).
type event struct {
	Time       time.Time
	Action     string
	Package    string
	ImportPath string // build-output and build-fail
	Test       string
	Elapsed    float64
	Output     string
}

// progress turns go test -json events into lines for a person: each
// package's result as it finishes, with how far the run is; the output of
// each failed test; a line now and then while nothing finishes; a summary.
type progress struct {
	w      io.Writer
	now    func() time.Time
	start  time.Time
	total  int    // packages expected; 0 if unknown
	module string // the module's path, left out of package names in the ticks

	done                 int
	running              map[string]time.Time // package -> when its test binary started
	output               map[string][]string  // "pkg\x00test" -> its output so far, until it passes
	passed, failed, skip int                  // tests
	failedTests          []string             // "pkg TestName"
	failedPkgs           []string
	lastPrint            time.Time
	started              bool   // a test binary has started
	logPath              string // where the whole go test -json stream is, if kept
}

// A failed test's output longer than maxOutput lines is cut to its first
// headLines and its last maxOutput-headLines (the log has all of it).
const (
	maxOutput = 300
	headLines = 50
)

func newProgress(w io.Writer, total int, module string, now func() time.Time) *progress {
	p := &progress{w: w, now: now, total: total, module: module, running: map[string]time.Time{}, output: map[string][]string{}}
	p.start = now()
	p.lastPrint = p.start
	return p
}

func (p *progress) printf(format string, args ...any) {
	fmt.Fprintf(p.w, format, args...)
	p.lastPrint = p.now()
}

// handle takes one event.
func (p *progress) handle(e event) {
	key := e.Package + "\x00" + e.Test
	switch e.Action {
	case "build-output":
		p.printf("%s", e.Output) // the compiler's messages, as go test prints them
	case "build-fail":
		p.printf("FAIL\t%s [build failed]\n", e.ImportPath)
	case "start":
		p.started = true
		p.running[e.Package] = e.Time
	case "output":
		p.output[key] = append(p.output[key], e.Output)
	case "pass", "fail", "skip":
		if e.Test == "" {
			p.packageDone(e)
			return
		}
		switch e.Action {
		case "pass":
			p.passed++
		case "skip":
			p.skip++
		case "fail":
			p.failed++
			p.failedTests = append(p.failedTests, e.Package+" "+e.Test)
			p.printf("--- FAIL: %s (%s)\n", e.Test, e.Package)
			p.printOutput(p.output[key])
		}
		delete(p.output, key)
	}
}

// printOutput prints a failed test's (or package's) output, indented, cut
// in the middle if it is long.
func (p *progress) printOutput(lines []string) {
	if len(lines) > maxOutput {
		cut := len(lines) - maxOutput
		where := ""
		if p.logPath != "" {
			where = "; all of it is in " + p.logPath
		}
		head := append(lines[:headLines:headLines], fmt.Sprintf("... %d lines cut%s ...\n", cut, where))
		lines = append(head, lines[headLines+cut:]...)
	}
	for _, l := range lines {
		p.printf("    %s", indentOutput(l))
	}
}

// indentOutput keeps a test's output line ending in a newline.
func indentOutput(l string) string {
	if !strings.HasSuffix(l, "\n") {
		return l + "\n"
	}
	return l
}

// packageDone prints a package's result line, as go test does, with how
// far the run is; a failed package's own output (a panic, a TestMain that
// failed) comes before it.
func (p *progress) packageDone(e event) {
	key := e.Package + "\x00"
	delete(p.running, e.Package)
	p.done++
	var result string
	var rest []string
	for _, l := range p.output[key] {
		if strings.HasPrefix(l, "ok  \t") || strings.HasPrefix(l, "FAIL\t") || strings.HasPrefix(l, "?   \t") {
			result = strings.TrimRight(l, "\n")
		} else {
			rest = append(rest, l)
		}
	}
	delete(p.output, key)
	if e.Action == "fail" {
		p.failedPkgs = append(p.failedPkgs, e.Package)
		var own []string
		for _, l := range rest {
			if l != "FAIL\n" && l != "PASS\n" && !strings.HasPrefix(l, "=== ") && !strings.HasPrefix(l, "--- ") {
				own = append(own, l)
			}
		}
		p.printOutput(own)
	}
	if result == "" {
		word := map[string]string{"pass": "ok  ", "fail": "FAIL", "skip": "?   "}[e.Action]
		result = fmt.Sprintf("%s\t%s\t%.3fs", word, e.Package, e.Elapsed)
	}
	of := ""
	if p.total > 0 {
		of = fmt.Sprintf(" of %d", p.total)
	}
	p.printf("%s\t(%d%s, %s in)\n", result, p.done, of, round(p.now().Sub(p.start)))
}

// tick prints a line if nothing was printed for quiet: what runs, for how
// long, and how many packages have not started (compiling, or queued).
func (p *progress) tick(quiet time.Duration) {
	now := p.now()
	if now.Sub(p.lastPrint) < quiet {
		return
	}
	elapsed := round(now.Sub(p.start))
	if !p.started {
		p.printf("... %s in: compiling the test binaries; no test has started yet\n", elapsed)
		return
	}
	var names []string
	for pkg, since := range p.running {
		names = append(names, fmt.Sprintf("%s (%s)", strings.TrimPrefix(pkg, p.module+"/"), round(now.Sub(since))))
	}
	slices.Sort(names)
	line := fmt.Sprintf("... %s in: running %s", elapsed, strings.Join(names, ", "))
	if len(names) == 0 {
		line = fmt.Sprintf("... %s in: none running", elapsed)
	}
	if p.total > 0 {
		if waiting := p.total - p.done - len(p.running); waiting > 0 {
			line += fmt.Sprintf("; %d not started (compiling or queued)", waiting)
		}
	}
	p.printf("%s\n", line)
}

// summary prints the end: the failed tests and packages, a closing line
// of counts, and the time the run took.
func (p *progress) summary(status int) {
	if len(p.failedTests) > 0 {
		p.printf("\nFailed tests:\n")
		for _, t := range p.failedTests {
			p.printf("  %s\n", t)
		}
	}
	if len(p.failedPkgs) > 0 {
		p.printf("Failed packages:\n")
		for _, pkg := range p.failedPkgs {
			p.printf("  %s\n", pkg)
		}
	}
	p.printf("\ntests: %d passed, %d failed, %d skipped\n", p.passed, p.failed, p.skip)
	verdict := "PASS"
	if status != 0 {
		verdict = fmt.Sprintf("FAIL (go test exited %d)", status)
	}
	p.printf("%s: %d packages in %s\n", verdict, p.done, round(p.now().Sub(p.start)))
	if status != 0 && p.logPath != "" {
		p.printf("go test's whole output (JSON): %s\n", p.logPath)
	}
}

// round formats a duration for reading: 42s, 3m05s.
func round(d time.Duration) string {
	s := int(d.Round(time.Second).Seconds())
	if s < 60 {
		return fmt.Sprintf("%ds", s)
	}
	return fmt.Sprintf("%dm%02ds", s/60, s%60)
}
