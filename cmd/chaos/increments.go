package main

import (
	"encoding/binary"
	"fmt"
	"maps"
	"slices"
)

// Violations of check (i), the atomic long's increments: each one counted
// once, and only the ones made.
const (
	vIncAckMissing = "acknowledged_increment_missing" // an increment reported done whose value its worker's session did not commit
	vIncUntold     = "increment_untold"               // an increment a live worker's session committed, which the worker was told failed or never heard of (applied twice, say)
	vIncDuplicate  = "duplicate_increment_success"    // two increments reported done with the same value
	vIncNotByOne   = "increment_not_by_one"           // a committed write of the counter that did not add one to it

	noteIncUnknown     = "increment_unknown_outcome" // increments reported ErrOutcomeUnknown whose value was committed by their worker
	noteIncUnknownNot  = "increment_unknown_not_applied"
	noteIncUnattribute = "increment_unattributed" // a committed increment by a session no worker recorded
)

// incTally is what the counter's history and the workers' reports add up
// to, for the report.
type incTally struct {
	outcomes  map[string]int // the workers' increments by outcome
	committed int            // committed writes of the counter
	final     int64          // its value after the last
}

// checkIncrements: (i) every committed write of the atomic long added one
// to it; every increment a worker was told succeeded is a write its own
// session committed, with the value it reported, and no two claim one
// value; every write a live worker's session committed was reported to
// that worker as a success or as an unknown outcome (ErrOutcomeUnknown),
// never as a failure or not at all. A worker killed by a fault may have
// had one increment in flight that nobody was told of.
func checkIncrements(h []counterWrite, events []event, killed map[[2]int]bool, v, notes *tally) incTally {
	t := incTally{outcomes: make(map[string]int)}
	// The history: each committed write's value, and who wrote it.
	type write struct {
		counterWrite
		value int64
	}
	byValue := make(map[int64]write)
	var prev int64
	for _, w := range h {
		if len(w.Data) != 8 {
			v.add(vIncNotByOne, "zxid %#x wrote %d bytes to the counter (%x), not 8", w.Zxid, len(w.Data), w.Data)
			continue
		}
		val := int64(binary.BigEndian.Uint64(w.Data))
		if val != prev+1 {
			v.add(vIncNotByOne, "zxid %#x (session %#x) set the counter to %d after %d", w.Zxid, w.Session, val, prev)
		}
		byValue[val] = write{w, val}
		prev = val
	}
	t.committed, t.final = len(h), prev

	// Whose sessions: every session a worker incarnation recorded.
	owner := make(map[int64][2]int)
	for _, ev := range events {
		for _, s := range []int64{ev.Session, ev.SessionStart} {
			if s != 0 {
				owner[s] = [2]int{ev.Worker, ev.Inc}
			}
		}
	}

	// The reports.
	type claim struct {
		ev *event
	}
	claims := make(map[int64][]claim) // value → increments that reported it done or maybe done
	for i := range events {
		ev := &events[i]
		if ev.Ev != evIncrement {
			continue
		}
		t.outcomes[ev.Outcome]++
		if ev.Outcome != outOK && ev.Outcome != outUnknown {
			continue
		}
		claims[ev.Post] = append(claims[ev.Post], claim{ev})
		w, committed := byValue[ev.Post]
		by, known := owner[w.Session]
		mine := committed && known && by == [2]int{ev.Worker, ev.Inc}
		switch {
		case ev.Outcome == outOK && !mine:
			v.add(vIncAckMissing, "%s increment %d: reported %d -> %d, but %s", holderName(ev.Worker, ev.Inc), ev.N, ev.Pre, ev.Post, whoWrote(committed, w.Zxid, w.Session, by, known))
		case ev.Outcome == outUnknown && mine:
			notes.add(noteIncUnknown, "%s increment %d (%d -> %d) was applied: %s", holderName(ev.Worker, ev.Inc), ev.N, ev.Pre, ev.Post, ev.Err)
		case ev.Outcome == outUnknown:
			notes.add(noteIncUnknownNot, "%s increment %d (%d -> %d) was not applied by its session", holderName(ev.Worker, ev.Inc), ev.N, ev.Pre, ev.Post)
		}
	}
	for val, cs := range claims {
		var oks []string
		for _, c := range cs {
			if c.ev.Outcome == outOK {
				oks = append(oks, holderName(c.ev.Worker, c.ev.Inc))
			}
		}
		if len(oks) > 1 {
			v.add(vIncDuplicate, "%d increments reported done with the value %d (by %v)", len(oks), val, oks)
		}
	}

	// Every committed write is its worker's success or unknown outcome.
	for _, val := range slices.Sorted(maps.Keys(byValue)) {
		w := byValue[val]
		by, known := owner[w.Session]
		if !known {
			notes.add(noteIncUnattribute, "the counter's write of %d (zxid %#x) by session %#x, which no worker recorded", val, w.Zxid, w.Session)
			continue
		}
		if slices.ContainsFunc(claims[val], func(c claim) bool { return [2]int{c.ev.Worker, c.ev.Inc} == by }) {
			continue
		}
		if killed[by] {
			continue // killed with an increment in flight: nobody left to tell
		}
		v.add(vIncUntold, "%s's session %#x wrote %d to the counter (zxid %#x), and %s was never told it may have: applied twice, or reported failed", holderName(by[0], by[1]), w.Session, val, w.Zxid, holderName(by[0], by[1]))
	}
	return t
}

// whoWrote says who, if anyone, committed a value.
func whoWrote(committed bool, zxid, session int64, by [2]int, known bool) string {
	switch {
	case !committed:
		return "no committed write set that value"
	case !known:
		return fmt.Sprintf("it was written by session %#x, which no worker recorded, at zxid %#x", session, zxid)
	}
	return fmt.Sprintf("it was written by %s (session %#x, zxid %#x)", holderName(by[0], by[1]), session, zxid)
}
