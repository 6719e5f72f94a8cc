package harness

import "testing"

// A ratio to the floor pairs rounds: one disturbed round does not move it,
// where the ratio of the totals would.
func TestPairWithFloor(t *testing.T) {
	rs := []result{
		roundsOf("gocurator", 95, 190, 200),
		roundsOf("floor", 100, 200, 400),
		roundsOf("short", 50, 100), // a round missing: no ratio
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

// gocurator is paired with every implementation that ran every round.
func TestPairedOver(t *testing.T) {
	rs := []result{
		roundsOf("gocurator", 90, 180, 270),
		roundsOf("floor", 100, 200, 300),
		roundsOf("zk.Lock", 45, 90, 150),
		roundsOf("curator", 10, 10),
	}
	pairWithFloor(rs)
	g := rs[0]
	if p := g.Over["zk.Lock"]; p.Median != 2 || p.Low != 1.8 || p.High != 2 {
		t.Errorf("over zk.Lock: %+v, want median 2 in [1.8, 2]", p)
	}
	if p := g.Over["floor"]; p.Median != 0.9 {
		t.Errorf("over floor: %+v, want 0.9", p)
	}
	if _, ok := g.Over["curator"]; ok {
		t.Error("paired with an implementation that missed a round")
	}
	if ci := rs[2].FloorRatioCI; len(ci) != 2 || ci[0] != 0.45 || ci[1] != 0.5 {
		t.Errorf("zk.Lock's interval %v, want [0.45, 0.5]", ci)
	}
}

// roundsOf merges one-second rounds at these rates.
func roundsOf(impl string, rates ...float64) result {
	var r result
	for _, rate := range rates {
		r = merge(r, result{Impl: impl, Cycles: int64(rate), Seconds: 1, CyclesPerSec: rate})
	}
	return r
}
