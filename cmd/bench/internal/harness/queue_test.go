package harness

import (
	"context"
	"testing"
	"time"
)

// TestQueue runs the queue workload briefly for every Go row on a real
// server, twice on the same queue: every item put is consumed exactly once
// (no violation), the floor makes exactly its protocol's requests per item
// (a create, two multis, a getData), gocurator at least those, and a row
// whose consumers deliver every item twice is caught.
func TestQueue(t *testing.T) {
	// Long enough that a loaded machine still moves items within it (a row
	// must consume some for its counts to mean anything).
	e := serverEnv(t, 2*time.Second)
	ims := queueImpls([]impl{curatorGo{}, floor{}, floorSerial{}, zkLock{}})
	if len(ims) != 2 {
		t.Fatalf("%d Go rows, want gocurator and floor", len(ims))
	}
	for _, im := range ims {
		t.Run(im.name(), func(t *testing.T) {
			for turn := range 2 { // the second turn on the queue the first drained
				r := runQueue(e, im)
				switch {
				case r.Error != "":
					t.Fatalf("turn %d: %s", turn, r.Error)
				case r.Cycles <= 0 || r.Clients != queueConsumers+1:
					t.Fatalf("turn %d: %d items with %d clients", turn, r.Cycles, r.Clients)
				case r.Violations != 0 || r.Notes != "":
					t.Fatalf("turn %d: %d violations: %s", turn, r.Violations, r.Notes)
				}
				if im.name() == "floor" && (!near(r.CreatesPerCycle, 1) || !near(r.MultisPerCycle, 2) || !near(r.GetsPerCycle, 1) || r.DeletesPerCycle != 0) {
					t.Fatalf("turn %d: floor: per item %.4f creates, %.4f multis, %.4f getData, %.4f deletes; want 1, 2, 1, 0",
						turn, r.CreatesPerCycle, r.MultisPerCycle, r.GetsPerCycle, r.DeletesPerCycle)
				}
				if r.CreatesPerCycle < 1-1e-9 || r.MultisPerCycle < 2-1e-9 || r.GetsPerCycle < 1-1e-9 {
					t.Fatalf("turn %d: per item %.4f creates, %.4f multis, %.4f getData: fewer than the protocol needs", turn, r.CreatesPerCycle, r.MultisPerCycle, r.GetsPerCycle)
				}
				t.Logf("turn %d: %d items, %.2f requests per item (%.2f multis, %.2f listings)", turn, r.Cycles, r.ClientReqs, r.MultisPerCycle, r.ListsPerCycle)
			}
		})
	}
	t.Run("double-delivery", func(t *testing.T) {
		row, _ := queueRowOf(floor{})
		consume := row.consume
		row.consume = func(ctx context.Context, s session, i int, path, lock string, consumed func(string)) (func(), error) {
			return consume(ctx, s, i, path, lock, func(item string) { consumed(item); consumed(item) })
		}
		r := runQueueRow(e, row, "/bench/double-delivery/queue")
		if r.Error != "" || r.Cycles <= 0 {
			t.Fatalf("%d items, error %q", r.Cycles, r.Error)
		}
		if r.Violations < r.Cycles { // one per item put, and more were put than consumed in time
			t.Fatalf("%d violations with each of %d items delivered twice", r.Violations, r.Cycles)
		}
	})
}
