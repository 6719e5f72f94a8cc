package harness

import (
	"encoding/binary"
	"testing"
	"time"
)

// TestAtomic runs the atomic workload briefly for every Go row on a real
// server, twice on the same node: the eight clients increment it, the node
// ends at its start plus the increments counted (no violation), and the
// optimistic rows make exactly the protocol's requests, a getData and a
// setData per try (gocurator's Int64 adds none); the promoted row a
// setData per try, with the lock's requests on top, and counts the
// increments it promoted and the tries under the lock.
func TestAtomic(t *testing.T) {
	e := serverEnv(t, 300*time.Millisecond)
	ims := atomicImpls([]impl{curatorGo{}, floor{}, floorSerial{}, zkLock{}})
	if len(ims) != 3 {
		t.Fatalf("%d Go rows, want gocurator, gocurator-promoted and floor", len(ims))
	}
	for _, im := range ims {
		t.Run(im.name(), func(t *testing.T) {
			for turn := range 2 { // the second turn goes on from the first's count
				r := runAtomic(e, im)
				switch {
				case r.Error != "":
					t.Fatalf("turn %d: %s", turn, r.Error)
				case r.Cycles <= 0 || r.Clients != counterClients || r.Workload != "atomic":
					t.Fatalf("turn %d: %d increments by %d clients (%s)", turn, r.Cycles, r.Clients, r.Workload)
				case r.Violations != 0:
					t.Fatalf("turn %d: %d violations: %s", turn, r.Violations, r.Notes)
				}
				tries := 1 + r.Conflicts
				if _, ok := im.(promotedGo); ok {
					// The lock's requests come on top; each try, under it or
					// not, is still one setData.
					if !near(r.SetsPerCycle, tries) || r.GetsPerCycle < tries-0.01 || r.Promoted < 0 || r.Promoted > 1 || r.LockTries < r.Promoted {
						t.Fatalf("turn %d: %.4f setData and %.4f getData per increment with %.4f conflicts, want a setData per try, and %.4f promoted with %.4f tries under the lock",
							turn, r.SetsPerCycle, r.GetsPerCycle, r.Conflicts, r.Promoted, r.LockTries)
					}
					continue
				}
				if !near(r.ClientReqs, 2*tries) || !near(r.SetsPerCycle, tries) || !near(r.GetsPerCycle, tries) || r.NotifPerRel != 0 {
					t.Fatalf("turn %d: %.4f requests (%.4f setData, %.4f getData) and %.4f notifications per increment with %.4f conflicts, want a getData and a setData per try",
						turn, r.ClientReqs, r.SetsPerCycle, r.GetsPerCycle, r.NotifPerRel, r.Conflicts)
				}
			}
		})
	}
}

func TestDecodeLong(t *testing.T) {
	if n, err := decodeLong(binary.BigEndian.AppendUint64(nil, 0xFFFFFFFFFFFFFFFE)); err != nil || n != -2 {
		t.Fatalf("decodeLong: %d, %v; want -2", n, err)
	}
	if _, err := decodeLong([]byte{0, 0, 0, 1}); err == nil {
		t.Fatal("decodeLong of 4 bytes: no error")
	}
}
