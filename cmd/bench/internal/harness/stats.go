package harness

import (
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/gocurator/curator/internal/benchstat"
)

// percentile returns the p-th percentile of ds in microseconds.
func percentile(ds []time.Duration, p float64) float64 {
	if len(ds) == 0 {
		return 0
	}
	s := slices.Clone(ds)
	slices.Sort(s)
	i := int(float64(len(s)-1) * p / 100)
	return float64(s[i].Microseconds())
}

// merge adds round b of a workload to the rounds in a: counts add up,
// per-cycle figures are weighted by cycles, a herd's drain time is the mean.
func merge(a, b result) result {
	if a.Rounds == 0 {
		b.Rounds = 1
		b.RoundRates = []float64{b.CyclesPerSec}
		return b
	}
	if a.Error != "" {
		return a
	}
	if b.Error != "" {
		a.Error = b.Error
		return a
	}
	cycles := a.Cycles + b.Cycles
	perCycle := func(x, y float64) float64 {
		if cycles == 0 {
			return 0
		}
		return (x*float64(a.Cycles) + y*float64(b.Cycles)) / float64(cycles)
	}
	a.ClientReqs, a.ServerReqs = perCycle(a.ClientReqs, b.ClientReqs), perCycle(a.ServerReqs, b.ServerReqs)
	a.NotifPerRel = perCycle(a.NotifPerRel, b.NotifPerRel)
	a.BytesInPerAcq = perCycle(a.BytesInPerAcq, b.BytesInPerAcq)
	a.CPUPerCycleUs = perCycle(a.CPUPerCycleUs, b.CPUPerCycleUs)
	a.Conflicts = perCycle(a.Conflicts, b.Conflicts)
	if promoted := a.Promoted*float64(a.Cycles) + b.Promoted*float64(b.Cycles); promoted > 0 { // weighed by promotions
		a.PromotedMs = (a.PromotedMs*a.Promoted*float64(a.Cycles) + b.PromotedMs*b.Promoted*float64(b.Cycles)) / promoted
	}
	a.Promoted, a.LockTries = perCycle(a.Promoted, b.Promoted), perCycle(a.LockTries, b.LockTries)
	a.SetsPerCycle, a.GetsPerCycle = perCycle(a.SetsPerCycle, b.SetsPerCycle), perCycle(a.GetsPerCycle, b.GetsPerCycle)
	a.CreatesPerCycle, a.MultisPerCycle = perCycle(a.CreatesPerCycle, b.CreatesPerCycle), perCycle(a.MultisPerCycle, b.MultisPerCycle)
	a.ListsPerCycle, a.DeletesPerCycle = perCycle(a.ListsPerCycle, b.ListsPerCycle), perCycle(a.DeletesPerCycle, b.DeletesPerCycle)
	mean := func(x, y float64) float64 { return (x*float64(a.Rounds) + y) / float64(a.Rounds+1) }
	a.DrainSeconds = mean(a.DrainSeconds, b.DrainSeconds)
	a.HeapPerWaiter, a.GorosPerWaiter = mean(a.HeapPerWaiter, b.HeapPerWaiter), mean(a.GorosPerWaiter, b.GorosPerWaiter) // many-locks: per held lock
	if a.handoffs != nil || b.handoffs != nil {
		a.handoffs = append(a.handoffs, b.handoffs...)
		a.HandoffP50us, a.HandoffP99us = percentile(a.handoffs, 50), percentile(a.handoffs, 99)
	} else if a.failovers == nil && b.failovers == nil { // a peer reports percentiles only: weigh each round's by its cycles
		a.HandoffP50us, a.HandoffP99us = perCycle(a.HandoffP50us, b.HandoffP50us), perCycle(a.HandoffP99us, b.HandoffP99us)
	}
	if a.failovers != nil || b.failovers != nil {
		a.failovers, a.closes = append(a.failovers, b.failovers...), append(a.closes, b.closes...)
		a.FailoverP50us, a.FailoverP99us = percentile(a.failovers, 50), percentile(a.failovers, 99)
		a.CloseP50us = percentile(a.closes, 50)
		a.fromWire = append(a.fromWire, b.fromWire...)
		a.WireP50us, a.WireP99us = percentile(a.fromWire, 50), percentile(a.fromWire, 99)
		a.fromNotified = append(a.fromNotified, b.fromNotified...)
		a.NotifiedP50us, a.NotifiedP99us = percentile(a.fromNotified, 50), percentile(a.fromNotified, 99)
	}
	if a.propagations != nil || b.propagations != nil {
		a.propagations = append(a.propagations, b.propagations...)
		a.PropP50us, a.PropP99us = percentile(a.propagations, 50), percentile(a.propagations, 99)
		a.Deliveries += b.Deliveries
		a.fromNotified = append(a.fromNotified, b.fromNotified...)
		a.SeenP50us, a.SeenP99us = percentile(a.fromNotified, 50), percentile(a.fromNotified, 99)
		a.early, a.repeats, a.missedStamps = a.early+b.early, a.repeats+b.repeats, a.missedStamps+b.missedStamps
		a.Notes, b.Notes = propagationNotes(a.early, a.repeats, a.missedStamps), ""
	}
	for _, n := range strings.Split(b.Notes, "; ") {
		if n != "" && !strings.Contains(a.Notes, n) {
			a.Notes = strings.TrimPrefix(a.Notes+"; "+n, "; ")
		}
	}
	a.RoundRates = append(a.RoundRates, b.CyclesPerSec)
	a.Cycles, a.Seconds = cycles, a.Seconds+b.Seconds
	a.CyclesPerSec = float64(a.Cycles) / a.Seconds
	a.Violations += b.Violations
	a.Rounds++
	return a
}

// pairWithFloor sets each result's FloorRatio and FloorRatioCI: the median
// over rounds of its rate divided by the floor's rate in the same round, and
// that median's 95 % confidence interval. A round's turns follow each other,
// so a drift of the machine that spans rounds cancels out. gocurator's
// result also gets its paired ratio to every other implementation.
func pairWithFloor(rs []result) {
	find := func(impl string) *result {
		if i := slices.IndexFunc(rs, func(r result) bool { return r.Impl == impl }); i >= 0 {
			return &rs[i]
		}
		return nil
	}
	if floor := find("floor"); floor != nil {
		for k := range rs {
			if p, ok := pairRounds(&rs[k], floor); ok {
				rs[k].FloorRatio, rs[k].FloorRatioCI = p.Median, []float64{p.Low, p.High}
			}
		}
	}
	for _, name := range []string{"gocurator", "gocurator-promoted"} {
		g := find(name)
		if g == nil {
			continue
		}
		for k := range rs {
			if o := &rs[k]; o != g {
				if p, ok := pairRounds(g, o); ok {
					if g.Over == nil {
						g.Over = map[string]paired{}
					}
					g.Over[o.Impl] = p
				}
			}
		}
	}
}

// paired is one implementation's rate over another's, round by round.
type paired struct {
	Median float64 `json:"median"`    // the median of the rounds' ratios
	Low    float64 `json:"ci95_low"`  // the median's 95 % confidence interval (see benchstat.MedianCI)
	High   float64 `json:"ci95_high"` //
}

// pairRounds divides a's rate by b's in each round; ok is false unless both
// ran every round.
func pairRounds(a, b *result) (paired, bool) {
	if a.Error != "" || b.Error != "" || len(a.RoundRates) == 0 || len(a.RoundRates) != len(b.RoundRates) {
		return paired{}, false
	}
	ratios := make([]float64, 0, len(a.RoundRates))
	for j, rate := range a.RoundRates {
		if b.RoundRates[j] <= 0 {
			return paired{}, false
		}
		ratios = append(ratios, rate/b.RoundRates[j])
	}
	lo, hi := benchstat.MedianCI(ratios)
	return paired{benchstat.Median(ratios), lo, hi}, true
}

// ratioText is x over the floor's f, as the tables print it ("" when
// either is missing).
func ratioText(x, f float64) string {
	if x <= 0 || f <= 0 {
		return ""
	}
	return fmt.Sprintf("%.2f×", x/f)
}
