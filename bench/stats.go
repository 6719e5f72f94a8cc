package main

import (
	"slices"
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
