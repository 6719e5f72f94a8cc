package main

import (
	"io"
	"slices"
	"strings"
	"testing"
)

// Bad flags are refused with an error that names the flag; good ones give
// the run's settings.
func TestParseFlags(t *testing.T) {
	cfg, _, err := parseFlags([]string{"--faults", "holder-stop=3,leader-kill", "--session", "2s"}, io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	if want := []string{"holder-stop", "holder-stop", "holder-stop", "leader-kill"}; !slices.Equal(cfg.faults, want) {
		t.Errorf("faults %v, want %v", cfg.faults, want)
	}
	if cfg.pause != 2*cfg.session {
		t.Errorf("pause %v, want twice the session (%v)", cfg.pause, cfg.session)
	}
	for _, tt := range []struct {
		args []string
		says string
	}{
		{[]string{"--faults", "meteor-strike"}, "unknown fault"},
		{[]string{"--faults", "holder-stop=x"}, "kind=N"},
		{[]string{"--faults", ","}, "no fault"},
		{[]string{"--workers", "0"}, "--workers"},
		{[]string{"--policy", "lenient"}, "--policy"},
		{[]string{"--workload", "barrier"}, "--workload"},
		{[]string{"--queue-mode", "exactly-once"}, "--queue-mode"},
		{[]string{"--session", "-1s"}, "positive"},
		{[]string{"extra"}, "unexpected argument"},
	} {
		if _, _, err := parseFlags(tt.args, io.Discard); err == nil || !strings.Contains(err.Error(), tt.says) {
			t.Errorf("parseFlags(%q) = %v, want an error saying %q", tt.args, err, tt.says)
		}
	}
}

func TestParseWorkerFlags(t *testing.T) {
	c := workerConfig{connect: "127.0.0.1:1", id: 2, inc: 3, out: "/tmp/x", lockPath: "/l", logPath: "/g", session: 5e9,
		policy: "session", writes: 2, txnTimeout: 1e9, acquireTimeout: 2e9, releaseTimeout: 3e9, gap: 4e6, idle: 5e6,
		workload: "queue", queuePath: "/q", queueMode: "plain"}
	got, err := parseWorkerFlags(c.args(), io.Discard)
	if err != nil || got != c {
		t.Errorf("parseWorkerFlags(args()) = %+v, %v; want %+v", got, err, c)
	}
	for _, args := range [][]string{{"--out", "/tmp/x"}, {"--connect", "a:1", "--out", "/tmp/x", "--policy", "x"}, {"--connect", "a:1", "--out", "/tmp/x", "--writes", "-1"},
		{"--connect", "a:1", "--out", "/tmp/x", "--workload", "barrier"}, {"--connect", "a:1", "--out", "/tmp/x", "--workload", "queue", "--queue-mode", "x"}} {
		if _, err := parseWorkerFlags(args, io.Discard); err == nil {
			t.Errorf("parseWorkerFlags(%q) = nil error", args)
		}
	}
}

func TestPaths(t *testing.T) {
	for _, tt := range []struct{ a, b, want string }{
		{"/chaos/lock", "/chaos/log", "/chaos"},
		{"/a/b/lock", "/a/c/log", "/a"},
		{"/lock", "/log", "/"},
	} {
		if got := commonParent(tt.a, tt.b); got != tt.want {
			t.Errorf("commonParent(%q, %q) = %q, want %q", tt.a, tt.b, got, tt.want)
		}
	}
	if got := lockSeq("_c_x-lock-0000000007"); got != "0000000007" {
		t.Errorf("lockSeq = %q", got)
	}
}

// A line cut short by a kill does not hide the next incarnation's events.
func TestParseEventsSkipsTornLine(t *testing.T) {
	in := `{"ev":"start","w":1,"inc":1}` + "\n" + `{"ev":"acq` + `{"ev":"start","w":1,"inc":2}` + "\n" + `{"ev":"acquired","w":1,"inc":2,"hold":1}` + "\n"
	evs, err := parseEvents(strings.NewReader(in))
	if err != nil || len(evs) != 2 || evs[1].Inc != 2 || evs[1].Ev != evAcquired {
		t.Errorf("parseEvents = %+v, %v; want the first start and the second incarnation's acquire", evs, err)
	}
}
