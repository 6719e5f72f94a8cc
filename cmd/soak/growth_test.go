package main

import (
	"errors"
	"math"
	"math/rand/v2"
	"strings"
	"sync"
	"testing"
	"time"
)

// seriesOf makes a series of n samples a second apart from f(i), with the
// goroutine series' tolerance.
func seriesOf(n int, f func(i int) float64) series {
	s := toSeries(nil, 3)[0]
	for i := range n {
		s.Times = append(s.Times, float64(i))
		s.Values = append(s.Values, f(i))
	}
	return s
}

// TestGrowthCheck shows the check passing flat series, noisy or with
// spikes and a warm-up, and failing leaking ones: a leak of one goroutine
// every 10 samples over 360 samples (a fault a minute for half an hour,
// sampled every 5 s, leaking one goroutine per fault would be one every 12
// samples), and a slow heap-like drift of 20 % over the run.
func TestGrowthCheck(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	noise := func(amp float64) float64 { return (rng.Float64()*2 - 1) * amp }
	tests := []struct {
		name  string
		s     series
		grows bool
	}{
		{"flat", seriesOf(360, func(int) float64 { return 300 }), false},
		{"noisy", seriesOf(360, func(int) float64 { return 300 + noise(30) }), false},
		{"spikes at faults", seriesOf(360, func(i int) float64 {
			if i%12 < 2 {
				return 450 // a reconnection's goroutines, twice the noise
			}
			return 300 + noise(5)
		}), false},
		{"a spike at the very end", seriesOf(360, func(i int) float64 {
			if i > 340 {
				return 900
			}
			return 300
		}), false},
		{"warm-up", seriesOf(360, func(i int) float64 { return 300 * math.Min(1, float64(i+1)/30) }), false},
		{"a goroutine every 10 samples", seriesOf(360, func(i int) float64 { return 300 + float64(i/10) + noise(5) }), true},
		{"20 % drift", seriesOf(360, func(i int) float64 { return 300 * (1 + 0.2*float64(i)/360) }), true},
		{"a step halfway", seriesOf(360, func(i int) float64 {
			if i > 180 {
				return 360
			}
			return 300
		}), true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			g := checkGrowth(tt.s, 0)
			if g.Grows != tt.grows || g.Note != "" {
				t.Errorf("grows %v (first third %.1f, last third %.1f, limit %.1f, %s), want %v", g.Grows, g.FirstMedian, g.LastMedian, g.Limit, g.Note, tt.grows)
			}
		})
	}
	if g := checkGrowth(seriesOf(40, func(i int) float64 { return float64(i) }), 35); g.Grows || g.Note == "" {
		t.Errorf("a series whose first fault came after 35 of its 40 samples judged: %+v", g)
	}
	if g := checkGrowth(seriesOf(8, func(i int) float64 { return float64(i * 100) }), 0); g.Grows || g.Note == "" {
		t.Errorf("8 samples judged: %+v", g)
	}
}

// TestGrowthCheckFailsTheRun shows a leaking series failing a run's report
// and marked in its plot.
func TestGrowthCheckFailsTheRun(t *testing.T) {
	leak := seriesOf(120, func(i int) float64 { return 200 + float64(i) })
	g := checkGrowth(leak, 5)
	if !g.Grows {
		t.Fatalf("a goroutine a sample passed: %+v", g)
	}
	var b strings.Builder
	if err := writeSVG(&b, "leak", []series{leak}, []growth{g}, []faultRecord{{Kind: faultDisconnect, At: 30}}, 5, 120); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(b.String(), "goroutines (count): GROWS") {
		t.Errorf("the plot does not say the series grows:\n%s", b.String())
	}
	var out strings.Builder
	r := &report{Growth: []growth{g}}
	r.OK = !g.Grows
	printReport(&out, r, "dir")
	if !strings.Contains(out.String(), "FAIL") || !strings.Contains(out.String(), "GROWS") {
		t.Errorf("report:\n%s", out.String())
	}
}

// TestExclusion shows the overlap check: a hold that begins beside a
// current one whose loss is never reported is a violation; beside one whose
// loss is reported within the grace, or beside none, it is not.
func TestExclusion(t *testing.T) {
	var wg sync.WaitGroup
	var mu sync.Mutex
	var found []string
	x := newExclusion("mutex", 1, 100*time.Millisecond, &wg, func(_, what string) {
		mu.Lock()
		defer mu.Unlock()
		found = append(found, what)
	})
	current := func() error { return nil }
	x.enter(1, "one", current)
	x.leave(1)
	x.enter(2, "two", current) // alone: fine
	var lostMu sync.Mutex
	var lostErr error
	x.enter(3, "three", func() error { lostMu.Lock(); defer lostMu.Unlock(); return lostErr }) // beside two, still current
	wg.Wait()
	if len(found) != 1 || !strings.Contains(found[0], "three began while 1 others were current") {
		t.Fatalf("found %q, want one violation for three", found)
	}
	x.leave(2)
	x.enter(4, "four", current) // beside three, whose loss comes later
	time.Sleep(20 * time.Millisecond)
	lostMu.Lock()
	lostErr = errors.New("lost")
	lostMu.Unlock()
	wg.Wait()
	if len(found) != 1 {
		t.Fatalf("found %q: four began beside a hold reported lost within the grace", found)
	}
	if entries, overlaps := x.counts(); entries != 4 || overlaps != 2 {
		t.Errorf("%d entries, %d overlaps", entries, overlaps)
	}
}

func TestItemLog(t *testing.T) {
	l := newItemLog(2)
	l.put(0, 0, true)
	l.put(0, 1, true)
	l.put(1, 70, true)
	l.put(1, 71, false) // unknown outcome: not required
	for range 2 {       // the second time a repeat
		if !l.consumed(0, 0) {
			t.Fatal("c0-0 refused")
		}
	}
	if !l.consumed(1, 70) || l.consumed(2, 0) || l.consumed(0, -1) {
		t.Fatal("consumed")
	}
	lost, dups := l.check()
	if len(lost) != 1 || lost[0] != "c0-1" || dups != 1 {
		t.Errorf("lost %v, %d repeats", lost, dups)
	}
}
