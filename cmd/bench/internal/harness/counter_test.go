package harness

import (
	"context"
	"encoding/binary"
	"testing"
	"time"
)

// TestCounter runs the counter workload briefly for every Go row on a real
// server, twice on the same node: the eight clients increment it, the node
// ends at its start plus the increments counted (no violation), the floor
// makes exactly its protocol's requests (a getData and a setData per try),
// no row sends more than one setData per try, and a row that writes two for
// each increment it counts is caught.
func TestCounter(t *testing.T) {
	e := serverEnv(t, 300*time.Millisecond)
	ims := counterImpls([]impl{curatorGo{}, floor{}, floorSerial{}, zkLock{}})
	if len(ims) != 2 {
		t.Fatalf("%d Go rows, want gocurator and floor", len(ims))
	}
	for _, im := range ims {
		t.Run(im.name(), func(t *testing.T) {
			for turn := range 2 { // the second turn goes on from the first's count
				r := runCounter(e, im)
				switch {
				case r.Error != "":
					t.Fatalf("turn %d: %s", turn, r.Error)
				case r.Cycles <= 0 || r.Clients != counterClients:
					t.Fatalf("turn %d: %d increments by %d clients", turn, r.Cycles, r.Clients)
				case r.Violations != 0:
					t.Fatalf("turn %d: %d violations: %s", turn, r.Violations, r.Notes)
				case r.ClientReqs < 1 || r.ServerReqs < 1:
					t.Fatalf("turn %d: %.2f requests per increment on the client's wire, %.2f at the server: want at least a setData", turn, r.ClientReqs, r.ServerReqs)
				}
				tries := 1 + r.Conflicts
				if im.name() == "floor" && (!near(r.ClientReqs, 2*tries) || !near(r.SetsPerCycle, tries) || !near(r.GetsPerCycle, tries) || r.NotifPerRel != 0) {
					t.Fatalf("turn %d: floor: %.4f requests (%.4f setData, %.4f getData) and %.4f notifications per increment with %.4f conflicts, want a getData and a setData per try",
						turn, r.ClientReqs, r.SetsPerCycle, r.GetsPerCycle, r.NotifPerRel, r.Conflicts)
				}
				if r.SetsPerCycle < 1 || r.SetsPerCycle > tries+1e-9 { // a refusal sends no setData if the Count saw the change first
					t.Fatalf("turn %d: %.4f setData per increment with %.4f conflicts", turn, r.SetsPerCycle, r.Conflicts)
				}
			}
		})
	}
	t.Run("double-write", func(t *testing.T) {
		row, _ := counterRowOf(floor{})
		open := row.open
		row.open = func(ctx context.Context, s session, path string) (incrementer, func(), error) {
			inc, stop, err := open(ctx, s, path)
			if err != nil {
				return nil, nil, err
			}
			return func(ctx context.Context) (int64, error) {
				if _, err := inc(ctx); err != nil {
					return 0, err
				}
				return inc(ctx) // two increments, counted as one
			}, stop, nil
		}
		r := runCounterRow(e, "counter", row, "/bench/double-write/counter")
		if r.Error != "" || r.Cycles <= 0 {
			t.Fatalf("%d increments, error %q", r.Cycles, r.Error)
		}
		if r.Violations != r.Cycles {
			t.Fatalf("%d violations in %d increments that each wrote two, want %d", r.Violations, r.Cycles, r.Cycles)
		}
	})
}

// near reports whether a and b agree to within rounding of the per-cycle
// division.
func near(a, b float64) bool { return a-b < 1e-9 && b-a < 1e-9 }

func TestDecodeCount(t *testing.T) {
	if n, err := decodeCount(binary.BigEndian.AppendUint32(nil, 0xFFFFFFFE)); err != nil || n != -2 {
		t.Fatalf("decodeCount: %d, %v; want -2", n, err)
	}
	if _, err := decodeCount([]byte("12")); err == nil {
		t.Fatal("decodeCount of 2 bytes: no error")
	}
}
