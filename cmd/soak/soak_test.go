package main

import (
	"bytes"
	"context"
	"encoding/json"
	"encoding/xml"
	"errors"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/gocurator/curator/recipestest"
)

func TestMain(m *testing.M) { recipestest.VerifyTestMain(m, nil) }

// TestSoakShort is the soak in brief, as CI runs it: two clients, every
// recipe, a fault every 3.5 s (a follower killed, every connection cut, a
// session expired), sampled every 250 ms. Every invariant holds, no series
// grows, every part did its work, every recipe closed leaving no ephemeral
// node and the clients closed leaving no goroutine, and the samples, the
// report and the plot are written.
func TestSoakShort(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a 3-member ensemble and runs for 14 s")
	}
	dir := t.TempDir()
	cfg := config{
		duration: 14 * time.Second, faultEvery: 3500 * time.Millisecond, sampleEvery: 250 * time.Millisecond,
		clients: 2, tick: 200 * time.Millisecond, session: 4 * time.Second, down: 500 * time.Millisecond,
		settle: 30 * time.Second, grace: 5 * time.Second,
		faults: []string{faultFollowerKill, faultDisconnect, faultSessionExpire}, dir: dir, seed: 1,
	}
	var logs bytes.Buffer
	r, err := run(context.Background(), cfg, slog.New(slog.NewTextHandler(&logs, nil)))
	if err != nil {
		t.Fatal(err)
	}
	var out strings.Builder
	printReport(&out, r, dir)
	t.Log("\n" + out.String())
	if !r.OK {
		t.Fatalf("the soak failed:\n%s\nlog:\n%s", out.String(), logs.String())
	}
	kinds := map[string]bool{}
	for _, f := range r.Faults {
		kinds[f.Kind] = true
	}
	if len(kinds) != 3 {
		t.Errorf("faults injected: %v, want each of %v", r.Faults, cfg.faults)
	}
	work := map[string]string{"mutex": "holds", "semaphore": "holds", "latch": "terms", "selector": "terms", "cache": "converged checks",
		"shared count": "increments", "atomic long": "increments", "queue": "consumed", "barrier": "passes"}
	for _, p := range r.Parts {
		if p.Stats[work[p.Name]] == 0 {
			t.Errorf("part %s did no work: %v", p.Name, p.Stats)
		}
		delete(work, p.Name)
	}
	if len(work) != 0 {
		t.Errorf("parts missing: %v", work)
	}
	for _, g := range r.Growth {
		if g.Note != "" {
			t.Errorf("series %s not judged: %s", g.Series, g.Note)
		}
	}
	var samples int
	b, err := os.ReadFile(filepath.Join(dir, "samples.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	for _, line := range bytes.Split(bytes.TrimSpace(b), []byte("\n")) {
		var s sample
		if err := json.Unmarshal(line, &s); err != nil {
			t.Fatal(err)
		}
		if s.Goroutines <= 0 || s.HeapBytes == 0 {
			t.Fatalf("sample %s", line)
		}
		samples++
	}
	if samples != r.Samples || samples < 30 {
		t.Errorf("%d samples in the file, %d in the report", samples, r.Samples)
	}
	checkSVG(t, filepath.Join(dir, "soak.svg"), 5)
}

// checkSVG checks that the plot is well-formed XML with a line for each of
// panels series.
func checkSVG(t *testing.T, path string, panels int) {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	d := xml.NewDecoder(bytes.NewReader(b))
	lines := 0
	for {
		tok, err := d.Token()
		if errors.Is(err, os.ErrClosed) || err != nil {
			if err.Error() != "EOF" {
				t.Fatalf("%s: %v", path, err)
			}
			break
		}
		if se, ok := tok.(xml.StartElement); ok && se.Name.Local == "polyline" {
			lines++
		}
	}
	if lines != panels {
		t.Errorf("%s has %d lines, want %d", path, lines, panels)
	}
}

func TestParseFlags(t *testing.T) {
	cfg, err := parseFlags([]string{"--duration", "2m", "--faults", "disconnect, leader-kill"}, &bytes.Buffer{})
	if err != nil || cfg.duration != 2*time.Minute || len(cfg.faults) != 2 || cfg.faults[1] != faultLeaderKill || cfg.faultEvery != time.Minute || cfg.clients != 4 {
		t.Fatalf("%+v, %v", cfg, err)
	}
	for _, args := range [][]string{{"--faults", "meteor"}, {"--faults", ""}, {"--clients", "0"}, {"--duration", "0s"}, {"extra"}} {
		if _, err := parseFlags(args, &bytes.Buffer{}); err == nil {
			t.Errorf("%v: no error", args)
		}
	}
}
