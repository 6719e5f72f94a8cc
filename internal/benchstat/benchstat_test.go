package benchstat

import "testing"

func TestMedian(t *testing.T) {
	for _, tc := range []struct {
		xs   []float64
		want float64
	}{
		{[]float64{3}, 3},
		{[]float64{3, 1, 2}, 2},
		{[]float64{4, 1, 3, 2}, 2.5},
	} {
		if got := Median(tc.xs); got != tc.want {
			t.Errorf("Median(%v) = %v, want %v", tc.xs, got, tc.want)
		}
	}
}

// The interval is the pair of order statistics a binomial table gives: the
// 4th from either end at 15 rounds, the range below 6.
func TestMedianCI(t *testing.T) {
	seq := func(n int) []float64 {
		xs := make([]float64, n)
		for i := range xs {
			xs[i] = float64(n - i) // unsorted: MedianCI sorts
		}
		return xs
	}
	for _, tc := range []struct {
		n      int
		lo, hi float64
	}{
		{1, 1, 1}, {5, 1, 5}, {6, 1, 6}, {8, 1, 8}, {9, 2, 8}, {15, 4, 12}, {30, 10, 21},
	} {
		if lo, hi := MedianCI(seq(tc.n)); lo != tc.lo || hi != tc.hi {
			t.Errorf("n=%d: [%v, %v], want [%v, %v]", tc.n, lo, hi, tc.lo, tc.hi)
		}
	}
	if got := binomialCDF(15, 3); got < 0.0175 || got > 0.0176 {
		t.Errorf("P(B(15, ½) ≤ 3) = %v, want 576/32768", got)
	}
}
