package main

import "testing"

// A ratio to the floor pairs rounds: one disturbed round does not move it,
// where the ratio of the totals would.
func TestPairWithFloor(t *testing.T) {
	rounds := func(impl string, rates ...float64) result {
		var r result
		for _, rate := range rates {
			r = merge(r, result{Impl: impl, Cycles: int64(rate), Seconds: 1, CyclesPerSec: rate})
		}
		return r
	}
	rs := []result{
		rounds("gocurator", 95, 190, 200),
		rounds("floor", 100, 200, 400),
		rounds("short", 50, 100), // a round missing: no ratio
	}
	pairWithFloor(rs)
	if got := rs[0].FloorRatio; got != 0.95 {
		t.Errorf("gocurator: median ratio %v, want 0.95", got)
	}
	if got := rs[1].FloorRatio; got != 1 {
		t.Errorf("floor: median ratio %v, want 1", got)
	}
	if got := rs[2].FloorRatio; got != 0 {
		t.Errorf("a result with fewer rounds got ratio %v, want none", got)
	}
	if got := rs[0].CyclesPerSec / rs[1].CyclesPerSec; got > 0.7 {
		t.Errorf("ratio of totals %v: the disturbed round should show in it", got)
	}
}

func TestMedian(t *testing.T) {
	for _, tc := range []struct {
		xs   []float64
		want float64
	}{
		{[]float64{3}, 3},
		{[]float64{3, 1, 2}, 2},
		{[]float64{4, 1, 3, 2}, 2.5},
	} {
		if got := median(tc.xs); got != tc.want {
			t.Errorf("median(%v) = %v, want %v", tc.xs, got, tc.want)
		}
	}
}

// Every runner runs once a round, and none always follows the same one.
func TestInTurnsVariesTheOrder(t *testing.T) {
	const n, rounds = 4, 6
	var order []int
	runners := make([]runner, n)
	for i := range runners {
		runners[i] = func(env) result { order = append(order, i); return result{} }
	}
	inTurns(env{}, rounds, runners)
	before := make([]map[int]bool, n) // who ran right before each runner, within a round
	for i := range before {
		before[i] = map[int]bool{}
	}
	for r := range rounds {
		turn := order[r*n : (r+1)*n]
		seen := map[int]bool{}
		for k, i := range turn {
			seen[i] = true
			if k > 0 {
				before[i][turn[k-1]] = true
			}
		}
		if len(seen) != n {
			t.Fatalf("round %d ran %v, want each of %d once", r, turn, n)
		}
	}
	for i, b := range before {
		if len(b) < 2 {
			t.Errorf("runner %d always followed %v", i, b)
		}
	}
}
