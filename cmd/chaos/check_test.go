package main

import (
	"encoding/binary"
	"errors"
	"fmt"
	"maps"
	"slices"
	"testing"
	"time"

	"github.com/gocurator/curator/framework"
	"github.com/gocurator/curator/recipes/locks"
)

// The checker is tested on made-up evidence: a history of transactions as
// two members logged them, and what the workers reported. Each defect the
// suite exists to catch gets a history that shows it, beside a clean one.

const (
	lockDir    = "/chaos/lock"
	logDir     = "/chaos/log"
	counterDir = "/chaos/counter"
)

// scenario builds a run's evidence.
type scenario struct {
	zxid   int64
	txns   []txn
	events []event
	seq    int
	views  []serverView
	killed map[[2]int]time.Time
}

func (s *scenario) txn(session int64, ops ...txnOp) int64 {
	s.zxid++
	s.txns = append(s.txns, txn{Session: session, Zxid: s.zxid, Type: txnMulti, ops: ops, raw: []byte(fmt.Sprint(s.zxid, ops))})
	return s.zxid
}

// lock creates a lock node ephemeral to session and returns its path and
// czxid.
func (s *scenario) lock(session int64) (string, int64) {
	s.seq++
	p := fmt.Sprintf("%s/_c_x-lock-%010d", lockDir, s.seq)
	return p, s.txn(session, txnOp{Type: txnCreate, Path: p, Ephemeral: true})
}

// write commits a fenced log entry for a hold and returns its data and path.
func (s *scenario) write(session int64, w, hold, n int, node string, token int64) (string, string) {
	s.seq++
	d := entryData{Worker: w, Inc: 1, Hold: hold, N: n, Token: token, Node: node}.String()
	p := fmt.Sprintf("%s/e-%010d", logDir, s.seq)
	s.txn(session, txnOp{Type: txnCheck, Path: node}, txnOp{Type: txnCreate, Path: p, Data: []byte(d)})
	return d, p
}

func (s *scenario) del(session int64, path string) int64 {
	return s.txn(session, txnOp{Type: txnDelete, Path: path})
}

func (s *scenario) closeSession(session int64) int64 {
	s.zxid++
	s.txns = append(s.txns, txn{Session: session, Zxid: s.zxid, Type: txnCloseSession, ops: []txnOp{{Type: txnCloseSession}}, raw: []byte(fmt.Sprint(s.zxid))})
	return s.zxid
}

func (s *scenario) ev(ev event) {
	if ev.Inc == 0 {
		ev.Inc = 1
	}
	if ev.T == 0 {
		ev.T = time.Unix(100, 0).UnixNano() // after lastFaultEnd
	}
	s.events = append(s.events, ev)
}

// hold reports a whole clean hold by worker w: acquire, token, writes, release.
func (s *scenario) hold(w, hold int, session int64) {
	node, tok := s.lock(session)
	s.ev(event{Ev: evAcquired, Worker: w, Hold: hold, Path: node, Session: session})
	s.ev(event{Ev: evToken, Worker: w, Hold: hold, Path: node, Token: tok})
	for n := 1; n <= 2; n++ {
		d, p := s.write(session, w, hold, n, node, tok)
		s.ev(event{Ev: evWrite, Worker: w, Hold: hold, N: n, Data: d, Outcome: outOK, Entry: p})
	}
	s.del(session, node)
	s.ev(event{Ev: evRelease, Worker: w, Hold: hold, Path: node})
}

// check runs the checker on the scenario, the history logged alike by two
// members, and returns the violations.
func (s *scenario) check(t *testing.T) *report {
	t.Helper()
	in := checkInput{
		lockPath: lockDir, logPath: logDir, workers: 2,
		logs:        []logSet{{member: 0, label: "m1", txns: s.txns}, {member: 1, label: "m2", txns: s.txns}},
		counterPath: counterDir,
		events:      s.events, views: s.views, lastFaultEnd: time.Unix(50, 0),
		killed: s.killed,
	}
	return check(in)
}

// clean returns a scenario where two workers take turns without trouble.
func clean() *scenario {
	s := &scenario{}
	s.hold(1, 1, 11)
	s.hold(2, 1, 22)
	s.hold(1, 2, 11)
	return s
}

func wantOnly(t *testing.T, r *report, kinds ...string) {
	t.Helper()
	got := slices.Sorted(maps.Keys(r.Violations))
	slices.Sort(kinds)
	if !slices.Equal(got, kinds) {
		t.Errorf("violations %v (%v), want %v", r.Violations, r.Examples, kinds)
	}
	if r.OK != (len(kinds) == 0) {
		t.Errorf("OK = %t with violations %v", r.OK, r.Violations)
	}
}

func TestCheckCleanRun(t *testing.T) {
	r := clean().check(t)
	wantOnly(t, r)
	if r.Holds != 3 || r.Writes[outOK] != 6 || r.Entries != 6 || len(r.Server) != 0 {
		t.Errorf("holds %d, writes %v, entries %d, server %v: want 3, 6 ok, 6, none", r.Holds, r.Writes, r.Entries, r.Server)
	}
}

// Defect 1: the holder was paused past its session; the server closed the
// session (and the node with it), and on waking the holder's Release
// returned nil and Lost never fired.
func TestCheckLostReportedAsRelease(t *testing.T) {
	for _, told := range []bool{false, true} {
		s := clean()
		node, tok := s.lock(33)
		s.ev(event{Ev: evAcquired, Worker: 2, Hold: 2, Path: node, Session: 33, Watched: true})
		s.ev(event{Ev: evToken, Worker: 2, Hold: 2, Path: node, Token: tok})
		s.closeSession(33)
		rel := event{Ev: evRelease, Worker: 2, Hold: 2, Path: node}
		if told {
			rel = rel.withErr(fmt.Errorf("%w: session expired", locks.ErrLockLost))
		}
		s.ev(rel)
		s.hold(1, 3, 11)
		if told {
			wantOnly(t, s.check(t))
		} else {
			wantOnly(t, s.check(t), vLostUnreported)
		}
	}
}

// Defect 2: a fenced write committed, its caller's deadline passed while
// it was paused, and the library's undo deleted the entry from a new
// session after the hold's node was gone and the lock had moved on.
func TestCheckUndoAfterLoss(t *testing.T) {
	s := clean()
	node, tok := s.lock(33)
	s.ev(event{Ev: evAcquired, Worker: 2, Hold: 2, Path: node, Session: 33})
	s.ev(event{Ev: evToken, Worker: 2, Hold: 2, Path: node, Token: tok})
	d, entry := s.write(33, 2, 2, 1, node, tok)
	s.closeSession(33)
	s.hold(1, 3, 11)
	s.del(44, entry) // the paused worker's new session
	s.ev(event{Ev: evWrite, Worker: 2, Hold: 2, N: 1, Data: d, Outcome: outError}.withErr(framework.ErrConnectionLoss))
	s.ev(event{Ev: evRelease, Worker: 2, Hold: 2, Path: node}.withErr(locks.ErrLockLost))
	wantOnly(t, s.check(t), vWriteAfterLoss)

	// The same undo while the hold was current is the library keeping its
	// word (nothing left behind that the caller cannot know of).
	s = clean()
	node, tok = s.lock(33)
	s.ev(event{Ev: evAcquired, Worker: 2, Hold: 2, Path: node, Session: 33})
	s.ev(event{Ev: evToken, Worker: 2, Hold: 2, Path: node, Token: tok})
	d, entry = s.write(33, 2, 2, 1, node, tok)
	s.del(33, entry)
	s.del(33, node)
	s.ev(event{Ev: evWrite, Worker: 2, Hold: 2, N: 1, Data: d, Outcome: outError}.withErr(framework.ErrConnectionLoss))
	s.ev(event{Ev: evRelease, Worker: 2, Hold: 2, Path: node})
	r := s.check(t)
	wantOnly(t, r)
	if r.Notes[noteUndone] != 1 {
		t.Errorf("notes %v: want one undone write", r.Notes)
	}
}

// Defect 3: a raw network error escaped Release.
func TestCheckRawError(t *testing.T) {
	raw := errors.New("write tcp 127.0.0.1:5000->127.0.0.1:2181: write: broken pipe")
	if k := errKind(raw); k != "" {
		t.Fatalf("errKind(raw) = %q, want none", k)
	}
	if k := errKind(&framework.OpError{Op: "delete", Kind: framework.ErrConnectionLoss, Err: raw}); k != "ErrConnectionLoss" {
		t.Fatalf("errKind(wrapped) = %q, want ErrConnectionLoss", k)
	}
	s := clean()
	node, _ := s.lock(33)
	s.ev(event{Ev: evAcquired, Worker: 2, Hold: 2, Path: node, Session: 33})
	s.del(33, node)
	s.ev(event{Ev: evRelease, Worker: 2, Hold: 2, Path: node}.withErr(raw))
	wantOnly(t, s.check(t), vRawError)
}

// Defect 4: a transaction whose reply was lost was retried; the retry's
// fence failed (the hold was gone by then), so Txn reported a refusal,
// though the first attempt had committed.
func TestCheckRefusedButCommitted(t *testing.T) {
	s := clean()
	node, tok := s.lock(33)
	s.ev(event{Ev: evAcquired, Worker: 2, Hold: 2, Path: node, Session: 33})
	s.ev(event{Ev: evToken, Worker: 2, Hold: 2, Path: node, Token: tok})
	d, _ := s.write(33, 2, 2, 1, node, tok)
	s.closeSession(33)
	refusal := &framework.TxnError{Index: 0, Err: framework.ErrNoNode}
	s.ev(event{Ev: evWrite, Worker: 2, Hold: 2, N: 1, Data: d, Outcome: outRefused}.withErr(refusal))
	s.ev(event{Ev: evRelease, Worker: 2, Hold: 2, Path: node}.withErr(locks.ErrLockLost))
	wantOnly(t, s.check(t), vRefusedCommitted)
}

// A write under a token older than one already in the log, and a write
// after the hold's node was gone, are both caught.
func TestCheckFencing(t *testing.T) {
	s := clean()
	old, oldTok := s.lock(33)
	newer, newTok := s.lock(44)
	s.write(44, 2, 2, 1, newer, newTok)
	s.write(33, 1, 3, 1, old, oldTok) // the older token, after the newer one
	wantOnly(t, s.check(t), vStaleWrite)

	s = clean()
	node, tok := s.lock(33)
	s.del(33, node)
	s.write(33, 1, 3, 1, node, tok) // the fence did not hold
	wantOnly(t, s.check(t), vUnfencedWrite)
}

// A hold whose node had a live node ahead of it the whole time.
func TestCheckNotFirst(t *testing.T) {
	s := clean()
	first, _ := s.lock(33)
	second, _ := s.lock(44)
	s.ev(event{Ev: evAcquired, Worker: 2, Hold: 2, Path: second, Session: 44})
	s.del(44, second)
	s.ev(event{Ev: evRelease, Worker: 2, Hold: 2, Path: second})
	s.del(33, first)
	wantOnly(t, s.check(t), vNotFirst)
}

// A lock node still on every member at the end is the client's; on one
// member only, it is the servers' divergence.
func TestCheckLeftBehind(t *testing.T) {
	node := lockDir + "/_c_x-lock-0000000099"
	left := map[string]nodeView{node: {Czxid: 99, Ephemeral: 33}}
	s := clean()
	s.views = []serverView{{member: 0, nodes: left}, {member: 1, nodes: left}, {member: 2, nodes: left}}
	wantOnly(t, s.check(t), vLeftBehind)

	s = clean()
	s.views = []serverView{{member: 0, nodes: left}, {member: 1, nodes: map[string]nodeView{}}, {member: 2, nodes: map[string]nodeView{}}}
	r := s.check(t)
	wantOnly(t, r)
	if r.Server[sPartialLeft] != 1 || r.Server[sTreeDiverged] == 0 {
		t.Errorf("server findings %v: want the node on one member and a divergence", r.Server)
	}
}

// A worker that never acquires after the last fault made no progress.
func TestCheckProgress(t *testing.T) {
	s := clean()
	for i := range s.events {
		if s.events[i].Worker == 2 {
			s.events[i].T = time.Unix(10, 0).UnixNano() // before the last fault ended
		}
	}
	wantOnly(t, s.check(t), vNoProgress)
}

// A proposal only one member logged (a killed leader's) never committed:
// it is left out of the history. One zxid logged differently by two
// members is a server divergence, not a client violation.
func TestCheckMerge(t *testing.T) {
	s := clean()
	in := checkInput{lockPath: lockDir, logPath: logDir, workers: 2, events: s.events, lastFaultEnd: time.Unix(50, 0)}
	ghost := txn{Session: 33, Zxid: s.zxid + 1, Type: txnMulti, raw: []byte("ghost"),
		ops: []txnOp{{Type: txnDelete, Path: logDir + "/e-0000000003"}}}
	other := slices.Clone(s.txns)
	other[0].raw = []byte("different")
	in.logs = []logSet{{member: 0, txns: append(slices.Clone(s.txns), ghost)}, {member: 1, txns: other}}
	r := check(in)
	wantOnly(t, r)
	if r.Notes[sNotCommitted] != 1 || r.Server[sLogConflict] != 1 || r.EntriesGone != 0 {
		t.Errorf("notes %v, server %v, entries gone %d: want one uncommitted proposal, one conflict, none gone", r.Notes, r.Server, r.EntriesGone)
	}
}

// set commits session's write of the atomic long's node holding v.
func (s *scenario) set(session, v int64) {
	s.zxid++
	s.txns = append(s.txns, txn{Session: session, Zxid: s.zxid, Type: txnSetData,
		ops: []txnOp{{Type: txnSetData, Path: counterDir, Data: binary.BigEndian.AppendUint64(nil, uint64(v))}}, raw: []byte(fmt.Sprint(s.zxid, v))})
}

// inc reports worker w's increment, made in session, with its outcome and
// the value it wrote (or may have).
func (s *scenario) inc(w int, session int64, outcome string, post int64) {
	ev := event{Ev: evIncrement, Worker: w, Session: session, SessionStart: session, Outcome: outcome, Pre: post - 1, Post: post}
	if outcome == outUnknown {
		ev = ev.withErr(fmt.Errorf("%w: %w", framework.ErrOutcomeUnknown, framework.ErrConnectionLoss))
	}
	s.ev(ev)
}

// The atomic long's increments: successes that committed, an unknown
// outcome that was applied and one that was not, a failure that wrote
// nothing, and a killed worker's increment nobody heard of, add up.
func TestCheckIncrementsClean(t *testing.T) {
	s := clean()
	s.set(11, 1)
	s.inc(1, 11, outOK, 1)
	s.set(22, 2)
	s.inc(2, 22, outUnknown, 2) // its reply lost: applied
	s.inc(1, 11, outUnknown, 3) // lost to worker 2's write of the same value
	s.set(22, 3)
	s.inc(2, 22, outOK, 3)
	s.inc(1, 11, outFailed, 0)
	// A session the second incarnation recorded, which writes and is
	// killed before it can say.
	s.ev(event{Ev: evStart, Worker: 1, Inc: 2, Session: 33})
	s.set(33, 4)
	s.killed = map[[2]int]time.Time{{1, 2}: time.Unix(60, 0)}
	r := s.check(t)
	wantOnly(t, r)
	if r.Increments[outOK] != 2 || r.Increments[outUnknown] != 2 || r.Increments[outFailed] != 1 || r.IncrementsCommitted != 4 || r.CounterFinal != 4 {
		t.Errorf("increments %v, committed %d, final %d", r.Increments, r.IncrementsCommitted, r.CounterFinal)
	}
	if r.Notes[noteIncUnknown] != 1 || r.Notes[noteIncUnknownNot] != 1 {
		t.Errorf("notes %v: want one unknown outcome applied, one not", r.Notes)
	}
	s.killed = nil // the same write by a live worker that never said
	wantOnly(t, s.check(t), vIncUntold)
}

// Curator's defect: an increment whose reply was lost is sent again,
// refused for its version, and made a second time: two writes, one
// success.
func TestCheckIncrementAppliedTwice(t *testing.T) {
	s := clean()
	s.set(11, 1)
	s.set(11, 2)
	s.inc(1, 11, outOK, 2)
	wantOnly(t, s.check(t), vIncUntold)
}

// An increment reported failed that committed, and one reported done that
// did not, or whose value another worker wrote, are caught; so are two
// successes claiming one value, and a write that did not add one.
func TestCheckIncrementViolations(t *testing.T) {
	s := clean()
	s.set(11, 1)
	s.inc(1, 11, outFailed, 0)
	wantOnly(t, s.check(t), vIncUntold)

	s = clean()
	s.inc(1, 11, outOK, 1)
	wantOnly(t, s.check(t), vIncAckMissing)

	s = clean()
	s.set(22, 1)
	s.inc(1, 11, outOK, 1)
	wantOnly(t, s.check(t), vIncAckMissing, vIncUntold)

	s = clean()
	s.set(11, 1)
	s.inc(1, 11, outOK, 1)
	s.inc(2, 22, outOK, 1)
	wantOnly(t, s.check(t), vIncAckMissing, vIncDuplicate)

	s = clean()
	s.set(11, 1)
	s.inc(1, 11, outOK, 1)
	s.set(11, 3)
	s.inc(1, 11, outOK, 3)
	wantOnly(t, s.check(t), vIncNotByOne)
}
