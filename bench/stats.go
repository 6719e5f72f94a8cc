package main

import (
	"slices"
	"strings"
	"time"
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
	a.DrainSeconds = (a.DrainSeconds*float64(a.Rounds) + b.DrainSeconds) / float64(a.Rounds+1) // the mean
	if a.handoffs != nil || b.handoffs != nil {
		a.handoffs = append(a.handoffs, b.handoffs...)
		a.HandoffP50us, a.HandoffP99us = percentile(a.handoffs, 50), percentile(a.handoffs, 99)
	} else { // a peer reports percentiles only: weigh each round's by its cycles
		a.HandoffP50us, a.HandoffP99us = perCycle(a.HandoffP50us, b.HandoffP50us), perCycle(a.HandoffP99us, b.HandoffP99us)
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

// pairWithFloor sets each result's FloorRatio: the median over rounds of its
// rate divided by the floor's rate in the same round. A round's turns follow
// each other, so a drift of the machine that spans rounds cancels out.
func pairWithFloor(rs []result) {
	i := slices.IndexFunc(rs, func(r result) bool { return r.Impl == "floor" })
	if i < 0 {
		return
	}
	floor := rs[i].RoundRates
	for k := range rs {
		r := &rs[k]
		if r.Error != "" || len(r.RoundRates) != len(floor) {
			continue
		}
		var ratios []float64
		for j, rate := range r.RoundRates {
			if floor[j] > 0 {
				ratios = append(ratios, rate/floor[j])
			}
		}
		if len(ratios) == len(floor) {
			r.FloorRatio = median(ratios)
		}
	}
}

// median returns the median of xs (the mean of the middle two for an even
// count); xs is sorted in place.
func median(xs []float64) float64 {
	slices.Sort(xs)
	n := len(xs)
	if n%2 == 1 {
		return xs[n/2]
	}
	return (xs[n/2-1] + xs[n/2]) / 2
}
