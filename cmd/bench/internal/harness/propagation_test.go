package harness

import (
	"testing"
)

// TestPropagation runs a few updates of the config node for every Go row,
// with two subscribers, on a real server: every subscriber sees every
// update, in order, each delivery's notification is seen on its
// subscriber's wire, and each row makes the protocol's requests exactly:
// one notification and one read per subscriber per update.
func TestPropagation(t *testing.T) {
	e := serverEnv(t, 0)
	const updates, subscribers = 5, 2
	rows, stop, errs := propRows(e, options{only: []string{"gocurator", "floor"}})
	defer stop()
	if len(rows) != 4 || len(errs) != 0 {
		t.Fatalf("%d rows, %v: want gocurator, gocurator-tree, gocurator-watch and floor", len(rows), errs)
	}
	for _, row := range rows {
		t.Run(row.name, func(t *testing.T) {
			for turn := range 2 { // a second turn goes on from the first's values
				r := runPropagation(e, row, subscribers, updates, 0)
				switch {
				case r.Error != "":
					t.Fatal(r.Error)
				case r.Cycles != updates || r.Deliveries != updates*subscribers || len(r.propagations) != updates*subscribers:
					t.Fatalf("turn %d: %d updates and %d deliveries measured, want %d and %d", turn, r.Cycles, r.Deliveries, updates, updates*subscribers)
				case r.Violations != 0 || r.repeats != 0:
					t.Fatalf("turn %d: a listener saw an older value %d times, the same value again %d times", turn, r.Violations, r.repeats)
				case len(r.fromNotified) != updates*subscribers:
					t.Fatalf("turn %d: %d of %d deliveries with their notification seen on the wire", turn, len(r.fromNotified), updates*subscribers)
				case r.PropP50us <= 0 || r.PropP99us < r.PropP50us:
					t.Fatalf("turn %d: propagation p50 %v µs, p99 %v µs", turn, r.PropP50us, r.PropP99us)
				case r.ClientReqs != 1 || r.NotifPerRel != 1:
					t.Fatalf("turn %d: %.2f requests and %.2f notifications per update per subscriber, want 1 and 1", turn, r.ClientReqs, r.NotifPerRel)
				}
			}
		})
	}
}
