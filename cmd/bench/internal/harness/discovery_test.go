package harness

import (
	"testing"
)

// TestDiscovery runs a few registrations, unregistrations and crashes for
// every Go row on a real server: every cache sees every instance come and
// go, the provider sees every crashed instance go, and the rows make the
// requests their protocols make per instance and cache: the floor a
// listing and a read when it comes and a listing when it goes (3), the
// cache those and a read of the deleted node (4).
func TestDiscovery(t *testing.T) {
	e := serverEnv(t, 0)
	const instances, caches = 5, 2
	rows, stop, errs := discoveryRows(e, options{only: []string{"gocurator", "floor"}})
	defer stop()
	if len(rows) != 2 || len(errs) != 0 {
		t.Fatalf("%d rows, %v: want gocurator and floor", len(rows), errs)
	}
	wantReqs := map[string]float64{"gocurator": 4, "floor": 3}
	seq := int64(1000)
	for _, row := range rows {
		t.Run(row.name, func(t *testing.T) {
			r := runDiscoveryVisibility(e, row, caches, instances, &seq)
			switch {
			case r.Error != "":
				t.Fatal(r.Error)
			case r.Cycles != instances || len(r.propagations) != instances*caches || len(r.removals) != instances*caches:
				t.Fatalf("%d instances, %d arrivals and %d removals measured, want %d, %d and %d", r.Cycles, len(r.propagations), len(r.removals), instances, instances*caches, instances*caches)
			case r.Violations != 0 || r.early != 0:
				t.Fatalf("a cache saw an older instance %d times; %d deliveries before their request", r.Violations, r.early)
			case r.ClientReqs != wantReqs[row.name]:
				t.Fatalf("%.2f requests per instance per cache, want %v", r.ClientReqs, wantReqs[row.name])
			}
			if row.provider == nil {
				return
			}
			c := runDiscoveryCrash(e, row, 3, &seq)
			if c.Error != "" || c.Cycles != 3 || len(c.removals) != 3 || c.Violations != 0 {
				t.Fatalf("crash: %+v", c)
			}
		})
	}
}
