package harness

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/gocurator/curator/zkharness"
)

// TestOnAnEnsemble runs Go rows briefly on a 3-member ensemble, each client
// given every member: the contended mutex and the many-locks workload
// through 1 and 2 clients. Every row runs without an error or a violation
// (the floor and zk.Lock refused a connect string of several members
// before); the server's count, summed over the members, accounts for every
// request the clients sent (one member's count alone would not); the
// floor's many-locks cycles make the protocol's 3 requests with its
// goroutines sharing one session (each listing pipelined behind its own
// create); and a gocurator lock held costs no goroutine and less than
// 4 KiB of heap.
func TestOnAnEnsemble(t *testing.T) {
	ens, err := zkharness.StartEnsemble(3)
	if err != nil {
		t.Fatal(err)
	}
	defer ens.Close()
	connect := ens.ConnectString()
	if n := len(strings.Split(connect, ",")); n != 3 {
		t.Fatalf("connect string %q has %d members", connect, n)
	}
	e := env{addr: connect, members: 3, duration: 400 * time.Millisecond, goroutines: 8, received: func() int64 {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		var sum int64
		for _, m := range strings.Split(connect, ",") {
			n, err := zkharness.Received(ctx, m)
			if err != nil {
				t.Error(err)
			}
			sum += n
		}
		return sum
	}}
	check := func(t *testing.T, r result, requests float64) {
		t.Helper()
		switch {
		case r.Error != "":
			t.Fatalf("%s: %s", r.Workload, r.Error)
		case r.Cycles <= 0:
			t.Fatalf("%s: %d cycles", r.Workload, r.Cycles)
		case r.Violations != 0:
			t.Fatalf("%s: %d violations", r.Workload, r.Violations)
		case r.ServerReqs < 0.99*r.ClientReqs:
			t.Fatalf("%s: the members counted %.3f requests per cycle, the clients sent %.3f", r.Workload, r.ServerReqs, r.ClientReqs)
		case r.ClientReqs < requests:
			t.Fatalf("%s: %.3f requests per cycle, fewer than the protocol's %.0f", r.Workload, r.ClientReqs, requests)
		}
	}
	for _, im := range []impl{curatorGo{}, floor{}, floorSerial{}, zkLock{}} {
		t.Run(im.name(), func(t *testing.T) {
			// A contended cycle takes 5 requests, one that finds the lock
			// free 3 (a short turn has many such).
			check(t, runMutexContended(e, im), 3)
			for _, clients := range []int{1, 2} {
				r := runManyLocks(e, im, clients, e.goroutines)
				check(t, r, 3)
				if r.Workload != manyLocksPrefix+map[int]string{1: "1", 2: "2"}[clients] || r.Clients != clients || r.Waiters != e.goroutines {
					t.Fatalf("row %s with %d clients and %d goroutines", r.Workload, r.Clients, r.Waiters)
				}
				if im.name() == "floor" && r.ClientReqs > 3.03 {
					t.Errorf("%s: the floor made %.3f requests per cycle, want 3 (its listings pipelined behind their own creates)", r.Workload, r.ClientReqs)
				}
				if im.name() == "gocurator" && (r.GorosPerWaiter >= 1 || r.HeapPerWaiter > 4096) {
					t.Errorf("%s: a held lock cost %.2f goroutines and %.0f bytes of heap", r.Workload, r.GorosPerWaiter, r.HeapPerWaiter)
				}
			}
		})
	}
}

func TestManyLocksClients(t *testing.T) {
	for w, want := range map[string]int{"many-locks-1": 1, "many-locks-4": 4, "many-locks-0": 0, "many-locks-x": 0, "mutex-contended": 0, "many-locks-": 0} {
		n, ok := manyLocksClients(w)
		if ok != (want > 0) || (ok && n != want) {
			t.Errorf("manyLocksClients(%q) = %d, %v; want %d", w, n, ok, want)
		}
	}
}
