// Package benchstat holds the statistics the benchmarks share: the median
// of per-round ratios and its distribution-free confidence interval, the
// project's way to give a verdict on a ratio measured over rounds
// (docs/performance.md).
package benchstat

import (
	"math"
	"slices"
)

// MedianCI returns the order statistics that bound the median of xs with at
// least 95 % confidence, whatever the distribution (each value falls on
// either side of the true median with probability ½): for 15 rounds, the
// 4th lowest and the 4th highest. Below 6 values no such pair exists, and it
// returns the range (at 5 values, 94 % confidence). xs is sorted in place.
func MedianCI(xs []float64) (lo, hi float64) {
	n := len(xs)
	if n == 0 {
		return 0, 0
	}
	slices.Sort(xs)
	k := 1 // the bounds are the k-th lowest and k-th highest
	for j := 2; 2*j <= n && 1-2*binomialCDF(n, j-1) >= 0.95; j++ {
		k = j
	}
	return xs[k-1], xs[n-k]
}

// binomialCDF returns P(X ≤ m) for X ~ Binomial(n, ½).
func binomialCDF(n, m int) float64 {
	p, c := 0.0, 1.0 // c is n choose i
	for i := 0; i <= m; i++ {
		if i > 0 {
			c = c * float64(n-i+1) / float64(i)
		}
		p += c
	}
	return p / math.Pow(2, float64(n))
}

// Median returns the median of xs (the mean of the middle two for an even
// count); xs is sorted in place.
func Median(xs []float64) float64 {
	slices.Sort(xs)
	n := len(xs)
	if n%2 == 1 {
		return xs[n/2]
	}
	return (xs[n/2-1] + xs[n/2]) / 2
}
