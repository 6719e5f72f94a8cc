package harness

import (
	"testing"
)

// TestFailover runs a few changes of leader for every Go elector on a real
// server: each change is measured, nobody leads beside another, the close
// and the next leader's notification are seen on the wire, and the floor makes exactly the protocol's requests
// (the leader's closeSession and the next one's listing; one notification).
func TestFailover(t *testing.T) {
	e := serverEnv(t, 0)
	const n = 4
	els := electors([]string{"gocurator", "floor"})
	if len(els) != 3 {
		t.Fatalf("%d electors, want gocurator, gocurator-latch and floor", len(els))
	}
	for _, el := range els {
		t.Run(el.name, func(t *testing.T) {
			r := runFailover(e, el, n, 0)
			switch {
			case r.Error != "":
				t.Fatal(r.Error)
			case r.Cycles != n || len(r.failovers) != n:
				t.Fatalf("%d changes measured, want %d", r.Cycles, n)
			case r.Violations != 0:
				t.Fatalf("%d violations: a participant led beside another", r.Violations)
			case len(r.fromWire) != n || len(r.fromNotified) != n:
				t.Fatalf("%s: closeSession and the next leader's notification not seen on the wire in every change", r.Notes)
			case r.FailoverP50us <= 0 || r.FailoverP99us < r.FailoverP50us:
				t.Fatalf("failover p50 %v µs, p99 %v µs", r.FailoverP50us, r.FailoverP99us)
			}
			if el.name == "floor" && (r.ClientReqs != 2 || r.NotifPerRel != 1) {
				t.Fatalf("floor: %.2f requests and %.2f notifications per change, want 2 and 1", r.ClientReqs, r.NotifPerRel)
			}
			// gocurator's leaders make the floor's requests; their one more
			// notification is the closing leader's own-node watch (issue 32).
			if el.name != "floor" && (r.ClientReqs != 2 || r.NotifPerRel != 2) {
				t.Fatalf("%s: %.2f requests and %.2f notifications per change, want 2 and 2", el.name, r.ClientReqs, r.NotifPerRel)
			}
		})
	}
}
