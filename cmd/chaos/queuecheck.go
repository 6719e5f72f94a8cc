package main

import (
	"encoding/binary"
	"fmt"
	"maps"
	"slices"
	"strings"
	"time"
)

// The queue workload's client-side violations.
const (
	vItemLost       = "item_lost"                  // lock-safe: an item node was removed, and its item never reported consumed
	vDuplicate2     = "duplicate_delivery"         // an item consumed more often than nodes carried it, with no lost lock to excuse it
	vItemsLeft      = "items_left"                 // items still in the queue after the drain
	vPutAckMissing  = "acknowledged_put_missing"   // a Put returned nil, and no node carries its item
	vUnknownItem    = "consumed_unknown_item"      // a consumer reported an item no node carried
	noteRedelivered = "redelivered_after_loss"     // lock-safe: an item consumed again after a consumer lost its lock on it (at least once)
	notePlainLost   = "plain_lost"                 // plain: an item node removed, its item never consumed (at most once allows it)
	notePutDup      = "put_duplicates"             // an item in two nodes: a Put sent again after a lost reply (as Curator's)
	notePutAmbig    = "put_error_but_committed"    // a Put returned an error, and its item is in the queue
	noteAbandoned   = "abandoned_on_context_end"   // a lock-safe consumer gave an item up as its context ended
	noteCorrupt     = "item_nodes_not_in_format"   // item nodes whose data is not one item in Curator's format
	noteLockOther   = "lock_node_deleted_by_other" // a lock node deleted by a session other than its own
	notePutUndone   = "put_undone"                 // a Put that returned an error, whose node its own session deleted (the client's undo of a create its caller gave up on)
)

// queueItem is one item node's life in the committed history.
type queueItem struct {
	Path      string
	Name      string
	Zxid      int64
	Session   int64  // the creator's
	Item      string // the one item it holds, in Curator's format
	Deleted   int64
	DeletedBy int64
}

// replayQueue follows the queue's item nodes through the committed
// transactions.
func replayQueue(txns []txn, queuePath string) (items []*queueItem, corrupt int) {
	byPath := make(map[string]*queueItem)
	for _, t := range txns {
		for _, op := range t.ops {
			switch {
			case op.Type == txnCreate && strings.HasPrefix(op.Path, queuePath+"/"):
				item, ok := oneItem(op.Data)
				if !ok {
					corrupt++
				}
				it := &queueItem{Path: op.Path, Name: op.Path[len(queuePath)+1:], Zxid: t.Zxid, Session: t.Session, Item: item}
				items = append(items, it)
				byPath[op.Path] = it
			case op.Type == txnDelete:
				if it := byPath[op.Path]; it != nil && it.Deleted == 0 {
					it.Deleted, it.DeletedBy = t.Zxid, t.Session
				}
			}
		}
	}
	return items, corrupt
}

// oneItem decodes a node holding one item in Curator's format.
func oneItem(b []byte) (string, bool) {
	if len(b) < 10 || binary.BigEndian.Uint32(b) != 0x00010001 || b[4] != 1 {
		return "", false
	}
	n := int(binary.BigEndian.Uint32(b[5:]))
	if n < 0 || 9+n+1 != len(b) || b[9+n] != 2 {
		return "", false
	}
	return string(b[9 : 9+n]), true
}

// checkQueueRun checks a queue run: no item lost (lock-safe), none consumed
// twice unless a lost lock explains it (lock-safe) or at all (plain), every
// acknowledged put in the queue, the queue drained, no lock node left.
func checkQueueRun(in checkInput, m merged, h *replay, v, s, notes *tally) *report {
	items, corrupt := replayQueue(m.txns, in.queuePath)
	if corrupt > 0 {
		notes.add(noteCorrupt, "%d item nodes", corrupt)
	}
	nodes := make(map[string][]*queueItem)
	for _, it := range items {
		nodes[it.Item] = append(nodes[it.Item], it)
	}
	consumed := make(map[string][]*event)
	var puts []*event
	putFailed := make(map[string]bool)
	for i := range in.events {
		ev := &in.events[i]
		switch ev.Ev {
		case evConsumed:
			consumed[ev.Data] = append(consumed[ev.Data], ev)
		case evPut:
			puts = append(puts, ev)
			putFailed[ev.Data] = ev.Outcome != outOK
		case evAbandoned:
			notes.add(noteAbandoned, "%s gave %s up: %s", holderName(ev.Worker, ev.Inc), ev.Data, ev.Err)
		}
	}
	// Lock nodes by item node name, each with its session and how it ended.
	locks := make(map[string][]*lockNode)
	for _, n := range h.locks {
		name := strings.TrimPrefix(n.Path, in.lockPath+"/")
		locks[name] = append(locks[name], n)
		if n.EndKind == endDeletedOther {
			notes.add(noteLockOther, "%s (owner %#x) deleted by session %#x at zxid %#x", n.Path, n.Owner, n.EndSession, n.End)
		}
	}
	lockSafe := in.queueMode == "lock-safe"
	for _, item := range slices.Sorted(maps.Keys(nodes)) {
		ns, evs := nodes[item], consumed[item]
		removed := 0
		for _, it := range ns {
			switch {
			case it.Deleted != 0 && it.DeletedBy == it.Session && putFailed[item] && len(evs) == 0:
				// The Put gave up (its context ended) and the client deleted
				// the node it had made after all: never in the queue for
				// the caller, who was told the put failed.
				notes.add(notePutUndone, "item %s: node %s created at zxid %#x and deleted by its own session at %#x; the Put returned an error", item, it.Name, it.Zxid, it.Deleted)
			case it.Deleted != 0:
				removed++
			default:
				v.add(vItemsLeft, "%s (item %s, zxid %#x) is still in the queue after the drain", it.Path, item, it.Zxid)
			}
		}
		if len(ns) > 1 {
			notes.add(notePutDup, "item %s in %d nodes (%s, %s)", item, len(ns), ns[0].Name, ns[1].Name)
		}
		if removed > len(evs) {
			if lockSafe {
				v.add(vItemLost, "item %s: %d of its nodes removed (%s at zxid %#x by session %#x), consumed %d times", item, removed, ns[0].Name, ns[0].Deleted, ns[0].DeletedBy, len(evs))
			} else {
				notes.add(notePlainLost, "item %s: %d of its nodes removed, consumed %d times", item, removed, len(evs))
			}
		}
		extra := len(evs) - len(ns)
		if extra <= 0 {
			continue
		}
		// Lock-safe: a delivery whose lock was lost (its node went with
		// its session, or was deleted by another) or whose process was
		// killed may be followed by one more.
		excused := 0
		if lockSafe {
			for _, ev := range evs {
				if lostLock(ev, ns, locks, in.killed) {
					excused++
				}
			}
		}
		who := deliveries(evs)
		if extra > excused {
			v.add(vDuplicate2, "item %s (%d nodes) consumed %d times (%s), %d of them explained by a lost lock", item, len(ns), len(evs), who, excused)
		} else {
			notes.add(noteRedelivered, "item %s consumed %d times (%s) after a lost lock", item, len(evs), who)
		}
	}
	for item, evs := range consumed {
		if len(nodes[item]) == 0 {
			v.add(vUnknownItem, "%s reported consuming %q, which no committed node carried", holderName(evs[0].Worker, evs[0].Inc), item)
		}
	}
	putOutcomes := make(map[string]int)
	for _, ev := range puts {
		putOutcomes[ev.Outcome]++
		switch found := len(nodes[ev.Data]) > 0; {
		case ev.Outcome == outOK && !found:
			v.add(vPutAckMissing, "%s: Put(%s) returned nil, but no node carries it", holderName(ev.Worker, ev.Inc), ev.Data)
		case ev.Outcome == outError && found:
			notes.add(notePutAmbig, "%s: Put(%s) returned %q; the item is in the queue", holderName(ev.Worker, ev.Inc), ev.Data, ev.Err)
		}
	}
	checkErrors(in.events, v)
	checkLeftBehind(in, v, s)
	checkQueueProgress(in, v)
	for _, c := range m.conflicts {
		s.add(sLogConflict, "%s", c)
	}
	for _, d := range m.dropped {
		notes.add(sNotCommitted, "%s", d)
	}
	checkServers(in.views, s)

	r := &report{
		Workload:   "queue " + in.queueMode,
		Violations: v.counts, Examples: v.examples,
		Server: s.counts, ServerExamples: s.examples,
		Notes: notes.counts, NoteExamples: notes.examples,
		Workers: in.workers, Puts: putOutcomes, Items: len(items), Txns: h.count,
		Progress: make(map[string]int), NodesEnded: make(map[string]int),
	}
	for _, evs := range consumed {
		r.Deliveries += len(evs)
	}
	for _, it := range items {
		if it.Deleted != 0 {
			r.ItemsRemoved++
		}
	}
	for _, n := range h.locks {
		kind := n.EndKind
		if n.End == 0 {
			kind = "present"
		}
		r.NodesEnded[kind]++
	}
	for _, ev := range in.events {
		if ev.Ev == evConsumed && ev.T > in.lastFaultEnd.UnixNano() {
			r.Progress[fmt.Sprintf("w%d", ev.Worker)]++
		}
	}
	r.OK = len(r.Violations) == 0
	return r
}

// lostLock reports whether a delivery's hold on its item may have ended
// early: its process was killed, or its session's lock node on one of the
// item's nodes ended without its own delete (its session closed, or
// another deleted it).
func lostLock(ev *event, ns []*queueItem, locks map[string][]*lockNode, killed map[[2]int]time.Time) bool {
	if _, ok := killed[[2]int{ev.Worker, ev.Inc}]; ok {
		return true
	}
	for _, it := range ns {
		for _, l := range locks[it.Name] {
			if l.Owner == ev.Session && (l.EndKind == endSession || l.EndKind == endDeletedOther) {
				return true
			}
		}
	}
	return false
}

// deliveries names who consumed an item.
func deliveries(evs []*event) string {
	var who []string
	for _, ev := range evs {
		who = append(who, fmt.Sprintf("%s session %#x", holderName(ev.Worker, ev.Inc), ev.Session))
	}
	return strings.Join(who, ", ")
}

// checkQueueProgress: (g) every worker consumed an item after the last
// fault, and its last incarnation put one.
func checkQueueProgress(in checkInput, v *tally) {
	for id := 1; id <= in.workers; id++ {
		last := 0
		for _, ev := range in.events {
			if ev.Worker == id {
				last = max(last, ev.Inc)
			}
		}
		var evs []event
		for _, ev := range in.events {
			if ev.Worker == id {
				evs = append(evs, ev)
			}
		}
		if !madeProgress(evs, "queue", last, in.lastFaultEnd) {
			v.add(vNoProgress, "%s did not both put and consume an item after the last fault ended", holderName(id, last))
		}
	}
}
