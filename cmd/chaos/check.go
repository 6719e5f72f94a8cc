package main

import (
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"strings"
	"time"
)

// Client-side violations: each is a defect of the library (or of the
// harness), and fails the run.
const (
	vStaleWrite       = "stale_fenced_write"         // (a) an entry's token is lower than an earlier entry's
	vUnfencedWrite    = "unfenced_write"             // (a) an entry committed while its hold's node did not exist
	vTokenMismatch    = "token_mismatch"             // (a) Hold.Token differs from the czxid of the hold's node
	vWriteAfterLoss   = "write_after_loss"           // (b) the library deleted an entry after its hold's node was gone
	vAckUndone        = "acknowledged_write_undone"  // (b) an entry whose Txn returned nil was deleted
	vLostUnreported   = "lost_unreported"            // (c) a hold lost to its session was released with nil, never reported lost
	vNoOutcome        = "hold_without_outcome"       // (c) a live worker never released a hold
	vRawError         = "raw_error"                  // (d) an error matching no sentinel
	vRefusedCommitted = "refused_but_committed"      // (e) a Txn reported a refusal (*TxnError) but committed
	vAckMissing       = "acknowledged_write_missing" // (e) a Txn returned nil but nothing committed
	vDuplicate        = "duplicate_protected_write"  // (e) a protected write committed twice
	vLeftBehind       = "node_left_behind"           // (f) a lock node or an ephemeral outlived every worker
	vNoProgress       = "no_progress"                // (g) a worker did not acquire after the last fault
	vNotFirst         = "acquired_while_not_first"   // a hold whose node was never first in the queue
	vUnknownNode      = "acquired_unknown_node"      // a hold whose node the history never created
	vWorkerHung       = "worker_hung"
	vWorkerFailed     = "worker_failed"
)

// Server-side findings: the ensemble disagreeing with itself. They are
// reported apart and do not fail the run.
const (
	sLogConflict   = "txn_log_conflict" // one zxid logged differently by two members
	sTreeDiverged  = "tree_divergence"  // members' trees differ at the end
	sDigest        = "digest_mismatch"  // mntr's zk_digest_mismatches_count > 0
	sNPE           = "server_npe"       // NullPointerExceptions in a member's log
	sUnreadable    = "server_unreadable"
	sPartialLeft   = "node_left_on_some_members"
	sNotCommitted  = "uncommitted_proposals" // informational: proposals a killed leader never committed
	maxExamples    = 5
	noteUndone     = "undone_writes"          // entries the library deleted while their hold was current (caller got an error)
	noteAmbiguous  = "ambiguous_committed"    // writes that returned an error other than a refusal but committed
	noteDuplicates = "unprotected_duplicates" // plain writes a retry committed twice (documented for unprotected creates)
	noteLostError  = "lost_release_error"     // a hold lost to its session whose Release returned an error other than ErrLockLost
)

// finding is one violation or server finding, with an example.
type finding struct {
	kind, what string
}

// checkInput is everything the checker reads.
type checkInput struct {
	workload             string // lock or queue
	queuePath, queueMode string // the queue workload's
	lockPath, logPath    string
	membersPath          string // parent of the workers' member nodes; "" for none
	servicesPath         string // base path of their service registrations
	counterPath          string // the atomic long; "" if the workers did not increment one
	workers              int
	logs                 []logSet
	events               []event
	views                []serverView
	lastFaultEnd         time.Time
	killed               map[[2]int]time.Time // worker incarnations killed by a fault
	extra                []finding            // found while running
}

// holdKey names one hold: worker, incarnation, hold number.
type holdKey struct{ w, inc, hold int }

// holdRec is what a worker reported about one hold.
type holdRec struct {
	key      holdKey
	acquired *event
	token    *event
	writes   []*event
	lost     *event
	check    *event
	release  *event
}

// told reports whether the worker was told the hold was lost: Lost fired,
// Err was non-nil, or Release said ErrLockLost.
func (h *holdRec) told() bool {
	return h.lost != nil || h.check != nil || (h.release != nil && h.release.Lost)
}

// tally counts findings by kind and keeps a few examples of each.
type tally struct {
	counts   map[string]int
	examples map[string][]string
}

func newTally() *tally {
	return &tally{counts: make(map[string]int), examples: make(map[string][]string)}
}

func (t *tally) add(kind, format string, args ...any) {
	t.counts[kind]++
	if len(t.examples[kind]) < maxExamples {
		t.examples[kind] = append(t.examples[kind], fmt.Sprintf(format, args...))
	}
}

// check runs every check on a run's evidence.
func check(in checkInput) *report {
	m := mergeLogs(in.logs)
	h := replayHistory(m.txns, in.lockPath, in.logPath)
	v, s, notes := newTally(), newTally(), newTally()
	for _, f := range in.extra {
		v.add(f.kind, "%s", f.what)
	}
	if in.workload == "queue" {
		return checkQueueRun(in, m, h, v, s, notes)
	}

	holds, order := groupHolds(in.events)
	byPath := make(map[string]*holdRec)
	for _, k := range order {
		if hr := holds[k]; hr.acquired != nil {
			byPath[hr.acquired.Path] = hr
		}
	}
	writes := make(map[string]*event)
	for _, ev := range in.events {
		if ev.Ev == evWrite {
			writes[ev.Data] = &ev
		}
	}

	checkFencing(h, v)
	checkDeletes(h, writes, v, notes)
	checkLosses(h, byPath, in.killed, v, notes)
	checkErrors(in.events, v)
	checkWrites(h, in.events, v, notes)
	checkLeftBehind(in, v, s)
	checkProgress(in, v)
	checkQueue(h, holds, order, v)
	killed := make(map[[2]int]bool)
	for k := range in.killed {
		killed[k] = true
	}
	inc := checkIncrements(replayCounter(m.txns, in.counterPath), in.events, killed, v, notes)
	mc := checkMembers(m.txns, in.membersPath, in.servicesPath, v)

	for _, c := range m.conflicts {
		s.add(sLogConflict, "%s", c)
	}
	for _, d := range m.dropped {
		notes.add(sNotCommitted, "%s", d)
	}
	checkServers(in.views, s)

	r := &report{
		Violations: v.counts, Examples: v.examples,
		Server: s.counts, ServerExamples: s.examples,
		Notes: notes.counts, NoteExamples: notes.examples,
	}
	r.count(in, h, holds)
	r.Members = map[string]int{"member_nodes": mc.nodes, "member_creates": mc.creates, "instance_creates": mc.instanceCreates}
	for _, ev := range in.events {
		if ev.Ev == evMember && ev.Outcome == "lost" {
			r.Members["told_lost"]++
		}
	}
	if in.counterPath != "" {
		r.Increments, r.IncrementsCommitted, r.CounterFinal = inc.outcomes, inc.committed, inc.final
	}
	return r
}

// groupHolds gathers each hold's events.
func groupHolds(events []event) (map[holdKey]*holdRec, []holdKey) {
	holds := make(map[holdKey]*holdRec)
	var order []holdKey
	for i := range events {
		ev := &events[i]
		if ev.Hold == 0 || ev.Ev == evAcquireErr {
			continue
		}
		k := holdKey{ev.Worker, ev.Inc, ev.Hold}
		hr := holds[k]
		if hr == nil {
			hr = &holdRec{key: k}
			holds[k] = hr
			order = append(order, k)
		}
		switch ev.Ev {
		case evAcquired:
			hr.acquired = ev
		case evToken:
			hr.token = ev
		case evWrite:
			hr.writes = append(hr.writes, ev)
		case evLost:
			hr.lost = ev
		case evCheck:
			hr.check = ev
		case evRelease:
			hr.release = ev
		}
	}
	return holds, order
}

// checkFencing: (a) every entry committed while its hold's node existed,
// under the token of that node, and tokens never go back.
func checkFencing(h *replay, v *tally) {
	var maxTok int64
	var maxBy string
	for _, e := range h.entries {
		var d entryData
		if err := json.Unmarshal([]byte(e.Data), &d); err != nil {
			v.add(vUnfencedWrite, "entry %s has data no worker writes: %q", e.Path, e.Data)
			continue
		}
		n := h.byPath[d.Node]
		switch {
		case n == nil:
			v.add(vUnfencedWrite, "entry %s (zxid %#x) names hold node %s, which no committed transaction created", e.Path, e.Zxid, d.Node)
		case n.Czxid != d.Token:
			v.add(vTokenMismatch, "entry %s: token %#x, but node %s has czxid %#x", e.Path, d.Token, d.Node, n.Czxid)
		case !n.alive(e.Zxid):
			v.add(vUnfencedWrite, "entry %s committed at zxid %#x, outside the life of its hold's node %s (%#x to %#x, %s)", e.Path, e.Zxid, d.Node, n.Czxid, n.End, n.EndKind)
		}
		if d.Token < maxTok {
			v.add(vStaleWrite, "entry %s (zxid %#x) has token %#x after %s had token %#x", e.Path, e.Zxid, d.Token, maxBy, maxTok)
		}
		if d.Token > maxTok {
			maxTok, maxBy = d.Token, e.Path
		}
	}
}

// checkDeletes: (b) workers never delete log entries, so every deletion is
// the library's: it must not come after the writer's hold ended, nor undo
// a write that was reported done.
func checkDeletes(h *replay, writes map[string]*event, v, notes *tally) {
	for _, e := range h.entries {
		if e.Deleted == 0 {
			continue
		}
		var d entryData
		_ = json.Unmarshal([]byte(e.Data), &d)
		n := h.byPath[d.Node]
		w := writes[e.Data]
		afterLoss := n != nil && n.End != 0 && e.Deleted > n.End
		acked := w != nil && w.Outcome == outOK
		if afterLoss {
			v.add(vWriteAfterLoss, "entry %s (by %s) was deleted at zxid %#x by session %#x, after its hold's node %s ended at %#x (%s)", e.Path, holderName(d.Worker, d.Inc), e.Deleted, e.DeletedBy, d.Node, n.End, n.EndKind)
		}
		if acked {
			v.add(vAckUndone, "entry %s was deleted at zxid %#x though its Txn returned nil", e.Path, e.Deleted)
		}
		if !afterLoss && !acked {
			notes.add(noteUndone, "entry %s deleted at zxid %#x while its hold was current (the write returned %s)", e.Path, e.Deleted, outcomeOf(w))
		}
	}
}

func outcomeOf(w *event) string {
	if w == nil {
		return "no record"
	}
	if w.Err != "" {
		return w.Outcome + ": " + w.Err
	}
	return w.Outcome
}

// checkLosses: (c) a hold whose node went with its session (or was deleted
// by another) must have been reported lost to its holder.
func checkLosses(h *replay, byPath map[string]*holdRec, killed map[[2]int]time.Time, v, notes *tally) {
	for _, n := range h.locks {
		hr := byPath[n.Path]
		if hr == nil {
			continue // a waiter's node, or an acquire that failed
		}
		if _, ok := killed[[2]int{hr.key.w, hr.key.inc}]; ok {
			continue // its process was killed: nobody left to tell
		}
		if hr.release == nil {
			v.add(vNoOutcome, "%s hold %d (%s) was never released", holderName(hr.key.w, hr.key.inc), hr.key.hold, n.Path)
			continue
		}
		if n.EndKind != endSession && n.EndKind != endDeletedOther {
			continue
		}
		switch {
		case hr.told():
		case hr.release.Err == "":
			v.add(vLostUnreported, "%s hold %d: node %s ended at zxid %#x (%s), but Release returned nil and the hold was never reported lost (watched=%t)", holderName(hr.key.w, hr.key.inc), hr.key.hold, n.Path, n.End, n.EndKind, hr.acquired.Watched)
		default:
			notes.add(noteLostError, "%s hold %d: node %s ended (%s); Release returned %q without ErrLockLost", holderName(hr.key.w, hr.key.inc), hr.key.hold, n.Path, n.EndKind, hr.release.Err)
		}
	}
}

// checkErrors: (d) every error a worker saw matches a sentinel.
func checkErrors(events []event, v *tally) {
	for _, ev := range events {
		if ev.Err != "" && ev.Kind == "" {
			v.add(vRawError, "%s %s (hold %d): %s", holderName(ev.Worker, ev.Inc), ev.Ev, ev.Hold, ev.Err)
		}
	}
}

// checkWrites: (e) a write reported refused did not commit; one reported
// done did, once.
func checkWrites(h *replay, events []event, v, notes *tally) {
	for _, ev := range events {
		if ev.Ev != evWrite {
			continue
		}
		found := h.byData[ev.Data]
		who := fmt.Sprintf("%s hold %d write %d", holderName(ev.Worker, ev.Inc), ev.Hold, ev.N)
		switch {
		case ev.Outcome == outRefused && len(found) > 0:
			v.add(vRefusedCommitted, "%s: Txn returned %q, but entry %s committed at zxid %#x", who, ev.Err, found[0].Path, found[0].Zxid)
		case ev.Outcome == outOK && len(found) == 0:
			v.add(vAckMissing, "%s: Txn returned nil (entry %s), but no such entry committed", who, ev.Entry)
		case ev.Outcome == outError && len(found) > 0:
			notes.add(noteAmbiguous, "%s: Txn returned %q; entry %s committed", who, ev.Err, found[0].Path)
		}
		if len(found) > 1 {
			if ev.Protected {
				v.add(vDuplicate, "%s (protected): committed %d times (%s, %s)", who, len(found), found[0].Path, found[1].Path)
			} else {
				notes.add(noteDuplicates, "%s: committed %d times (%s, %s)", who, len(found), found[0].Path, found[1].Path)
			}
		}
	}
}

// checkLeftBehind: (f) no lock node and no ephemeral node outlives the
// workers. A node on every member is the client's; on some only, the
// servers disagree.
func checkLeftBehind(in checkInput, v, s *tally) {
	on := make(map[string][]int)
	readable := 0
	for _, view := range in.views {
		if view.err != nil {
			continue
		}
		readable++
		for p, n := range view.nodes {
			if strings.HasPrefix(p, in.lockPath+"/") || n.Ephemeral != 0 {
				on[p] = append(on[p], view.member+1)
			}
		}
	}
	for _, p := range slices.Sorted(maps.Keys(on)) {
		if len(on[p]) == readable {
			v.add(vLeftBehind, "%s is still there on every member", p)
		} else {
			s.add(sPartialLeft, "%s is still there on members %v only", p, on[p])
		}
	}
}

// checkProgress: (g) every worker acquired the lock after the last fault.
func checkProgress(in checkInput, v *tally) {
	for id := 1; id <= in.workers; id++ {
		last := 0
		ok := false
		for _, ev := range in.events {
			if ev.Worker != id {
				continue
			}
			last = max(last, ev.Inc)
			if ev.Ev == evAcquired && ev.T > in.lastFaultEnd.UnixNano() {
				ok = true
			}
		}
		if !ok {
			v.add(vNoProgress, "%s never acquired after the last fault ended", holderName(id, last))
		}
	}
}

// checkQueue: a hold's node was first in the lock's queue at some moment of
// its life (every node created before it and alive then had gone).
func checkQueue(h *replay, holds map[holdKey]*holdRec, order []holdKey, v *tally) {
	for _, k := range order {
		hr := holds[k]
		if hr.acquired == nil {
			continue
		}
		n := h.byPath[hr.acquired.Path]
		if n == nil {
			v.add(vUnknownNode, "%s hold %d: node %s is in no committed transaction", holderName(k.w, k.inc), k.hold, hr.acquired.Path)
			continue
		}
		// The node ahead of it that went last (or never).
		var blocker *lockNode
		for _, o := range h.locks {
			if o.Czxid >= n.Czxid {
				break
			}
			if o.alive(n.Czxid) && (blocker == nil || o.End == 0 || (blocker.End != 0 && o.End > blocker.End)) {
				blocker = o
			}
		}
		if blocker != nil && (blocker.End == 0 || (n.End != 0 && blocker.End > n.End)) {
			v.add(vNotFirst, "%s hold %d: node %s (%#x to %#x) was never first: %s was there until %#x", holderName(k.w, k.inc), k.hold, n.Path, n.Czxid, n.End, blocker.Path, blocker.End)
		}
	}
}

// checkServers: the members' trees agree, and their digests never
// mismatched.
func checkServers(views []serverView, s *tally) {
	var ref *serverView
	for i := range views {
		view := &views[i]
		if view.err != nil {
			s.add(sUnreadable, "member %d: %v", view.member+1, view.err)
			continue
		}
		if view.digestMism > 0 {
			s.add(sDigest, "member %d: zk_digest_mismatches_count %d", view.member+1, view.digestMism)
		}
		if view.syncNPEs > 0 {
			s.add(sNPE, "member %d: %d NullPointerExceptions in its log (ZOOKEEPER-4394?)", view.member+1, view.syncNPEs)
		}
		if ref == nil {
			ref = view
			continue
		}
		paths := make(map[string]bool)
		for p := range ref.nodes {
			paths[p] = true
		}
		for p := range view.nodes {
			paths[p] = true
		}
		for _, p := range slices.Sorted(maps.Keys(paths)) {
			a, aok := ref.nodes[p]
			b, bok := view.nodes[p]
			if aok != bok || a != b {
				s.add(sTreeDiverged, "%s: member %d has %s, member %d has %s", p, ref.member+1, nodeText(a, aok), view.member+1, nodeText(b, bok))
			}
		}
	}
}

func nodeText(n nodeView, ok bool) string {
	if !ok {
		return "nothing"
	}
	return fmt.Sprintf("czxid %#x owner %#x", n.Czxid, n.Ephemeral)
}
