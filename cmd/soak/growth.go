package main

import (
	"fmt"
	"slices"
)

// A series is one sampled quantity of the run, in the order sampled.
type series struct {
	Name   string    `json:"name"`
	Unit   string    `json:"unit"`
	Times  []float64 `json:"-"` // seconds from the start of the run
	Values []float64 `json:"-"`
	// The growth check's tolerance: the last third's median may exceed
	// the first third's by Rel of it plus Abs.
	Rel float64 `json:"rel_tolerance"`
	Abs float64 `json:"abs_tolerance"`
}

// warmupShare is the least share of a run's samples the growth check leaves
// out at its start, as a warm-up: caches loading, pools and buffers
// reaching their working size, the first faults' reconnections. The
// warm-up lasts until the first fault at least (see checkGrowth).
const warmupShare = 0.1

// minGrowthSamples is the fewest samples after the warm-up a growth check
// needs: three thirds of at least three samples each.
const minGrowthSamples = 9

// growth is a series' growth check: whether the series grows without
// bound, judged by the medians of the first and last thirds of its samples
// after the warm-up. A series that leaks (a goroutine, a node, a watch per
// fault or per operation) rises steadily, and its last third's median sits
// above its first third's by the leak's rate times two thirds of the run.
// A flat series differs between the two only by noise: medians of many
// samples each are not moved by the spikes a fault makes (a reconnection's
// goroutines, a restarted member's missing watches), which is why the
// check compares medians and not maxima.
type growth struct {
	Series      string  `json:"series"`
	Samples     int     `json:"samples"`      // after the warm-up
	FirstMedian float64 `json:"first_median"` // of the first third
	LastMedian  float64 `json:"last_median"`  // of the last third
	Limit       float64 `json:"limit"`        // the most LastMedian may be
	SlopePerMin float64 `json:"slope_per_min"`
	Grows       bool    `json:"grows"`
	Note        string  `json:"note,omitempty"`
}

// checkGrowth runs the growth check on s, leaving out as its warm-up the
// samples taken before warmupUntil (seconds: the first fault, until which
// the recipes start up on a sound ensemble) or the first warmupShare of
// them, whichever is more. A series with too few samples is not judged
// (Grows is false, and Note says why).
func checkGrowth(s series, warmupUntil float64) growth {
	g := growth{Series: s.Name}
	skip := warmup(s, warmupUntil)
	vs, times := s.Values[skip:], s.Times[skip:]
	g.Samples = len(vs)
	if len(vs) < minGrowthSamples {
		g.Note = fmt.Sprintf("%d samples after the warm-up: too few to judge", len(vs))
		return g
	}
	third := len(vs) / 3
	g.FirstMedian = medianOf(vs[:third])
	g.LastMedian = medianOf(vs[len(vs)-third:])
	g.Limit = g.FirstMedian*(1+s.Rel) + s.Abs
	g.Grows = g.LastMedian > g.Limit
	if len(times) == len(vs) {
		g.SlopePerMin = slope(times, vs) * 60
	}
	return g
}

// warmup returns how many of s's first samples are its warm-up.
func warmup(s series, until float64) int {
	skip := int(float64(len(s.Values)) * warmupShare)
	for skip < len(s.Times) && s.Times[skip] < until {
		skip++
	}
	return skip
}

// medianOf returns the median of xs, leaving xs as it was.
func medianOf(xs []float64) float64 {
	s := slices.Clone(xs)
	slices.Sort(s)
	n := len(s)
	if n == 0 {
		return 0
	}
	if n%2 == 1 {
		return s[n/2]
	}
	return (s[n/2-1] + s[n/2]) / 2
}

// slope is the least-squares slope of ys over xs (per unit of x), for the
// report: the check itself does not use it.
func slope(xs, ys []float64) float64 {
	n := float64(len(xs))
	if n < 2 {
		return 0
	}
	var sx, sy, sxx, sxy float64
	for i := range xs {
		sx += xs[i]
		sy += ys[i]
		sxx += xs[i] * xs[i]
		sxy += xs[i] * ys[i]
	}
	d := n*sxx - sx*sx
	if d == 0 {
		return 0
	}
	return (n*sxy - sx*sy) / d
}
