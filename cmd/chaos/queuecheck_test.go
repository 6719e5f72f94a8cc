package main

import (
	"encoding/binary"
	"fmt"
	"testing"
	"time"
)

// The queue checker on made-up evidence: each defect the queue workload
// exists to catch gets a history that shows it, beside clean ones.

const (
	queueDir  = "/chaos/queue"
	qlocksDir = "/chaos/qlocks"
)

// put commits an item node holding item (in Curator's format) and
// reports the put; it returns the node's name.
func (s *scenario) put(session int64, w int, item string, report bool) string {
	s.seq++
	name := fmt.Sprintf("queue-%010d", s.seq)
	b := binary.BigEndian.AppendUint32(nil, 0x00010001)
	b = append(b, 1)
	b = binary.BigEndian.AppendUint32(b, uint32(len(item)))
	b = append(append(b, item...), 2)
	s.txn(session, txnOp{Type: txnCreate, Path: queueDir + "/" + name, Data: b})
	if report {
		s.ev(event{Ev: evPut, Worker: w, Data: item, Outcome: outOK})
	}
	return name
}

// take is a lock-safe consumer's take of node name by worker w: the lock
// (with the check), the report, and the removal of item and lock together.
func (s *scenario) take(session int64, w int, name, item string) {
	s.txn(session, txnOp{Type: txnCheck, Path: queueDir + "/" + name}, txnOp{Type: txnCreate, Path: qlocksDir + "/" + name, Ephemeral: true})
	s.ev(event{Ev: evConsumed, Worker: w, Data: item, Session: session})
	s.txn(session, txnOp{Type: txnDelete, Path: queueDir + "/" + name}, txnOp{Type: txnDelete, Path: qlocksDir + "/" + name})
}

// progress reports a put and a consumption by both workers after the last
// fault.
func (s *scenario) progress() {
	for w, session := range map[int]int64{1: 11, 2: 22} {
		item := fmt.Sprintf("w%d.1-late", w)
		s.take(session, w, s.put(session, w, item, true), item)
	}
}

func (s *scenario) checkQueue(t *testing.T, mode string) *report {
	t.Helper()
	in := checkInput{
		workload: "queue", queuePath: queueDir, queueMode: mode,
		lockPath: qlocksDir, logPath: logDir, workers: 2,
		logs:   []logSet{{member: 0, label: "m1", txns: s.txns}, {member: 1, label: "m2", txns: s.txns}},
		events: s.events, views: s.views, lastFaultEnd: time.Unix(50, 0),
		killed: map[[2]int]time.Time{},
	}
	return check(in)
}

func TestQueueCheckClean(t *testing.T) {
	s := &scenario{}
	a := s.put(11, 1, "w1.1-1", true)
	b := s.put(22, 2, "w2.1-1", true)
	s.take(22, 2, a, "w1.1-1")
	s.take(11, 1, b, "w2.1-1")
	s.progress()
	wantOnly(t, s.checkQueue(t, "lock-safe"))
	wantOnly(t, s.checkQueue(t, "plain"))
}

// An item node removed whose item nobody reported consuming: lost, which a
// lock-safe queue must never do (a plain one may).
func TestQueueCheckLostItem(t *testing.T) {
	s := &scenario{}
	a := s.put(11, 1, "w1.1-1", true)
	s.txn(22, txnOp{Type: txnDelete, Path: queueDir + "/" + a})
	s.progress()
	r := s.checkQueue(t, "lock-safe")
	wantOnly(t, r, vItemLost)
	r = s.checkQueue(t, "plain")
	wantOnly(t, r)
	if r.Notes[notePlainLost] != 1 {
		t.Errorf("plain: notes %v, want one %s", r.Notes, notePlainLost)
	}
}

// An item consumed twice: a violation, unless the first consumer's lock
// went with its session (then at least once allows it); in a plain queue,
// always.
func TestQueueCheckDuplicates(t *testing.T) {
	s := &scenario{}
	a := s.put(11, 1, "w1.1-1", true)
	s.take(11, 1, a, "w1.1-1")
	s.ev(event{Ev: evConsumed, Worker: 2, Data: "w1.1-1", Session: 22}) // without a lock: a second delivery
	s.progress()
	wantOnly(t, s.checkQueue(t, "lock-safe"), vDuplicate2)
	wantOnly(t, s.checkQueue(t, "plain"), vDuplicate2)

	s = &scenario{}
	a = s.put(11, 1, "w1.1-1", true)
	s.txn(33, txnOp{Type: txnCheck, Path: queueDir + "/" + a}, txnOp{Type: txnCreate, Path: qlocksDir + "/" + a, Ephemeral: true})
	s.ev(event{Ev: evConsumed, Worker: 1, Data: "w1.1-1", Session: 33})
	s.closeSession(33) // its lock went with its session: another may take the item
	s.take(22, 2, a, "w1.1-1")
	s.progress()
	r := s.checkQueue(t, "lock-safe")
	wantOnly(t, r)
	if r.Notes[noteRedelivered] != 1 {
		t.Errorf("notes %v, want one %s", r.Notes, noteRedelivered)
	}
	// A put sent twice (two nodes) may be consumed twice.
	s = &scenario{}
	a = s.put(11, 1, "w1.1-1", true)
	b := s.put(11, 1, "w1.1-1", false)
	s.take(11, 1, a, "w1.1-1")
	s.take(22, 2, b, "w1.1-1")
	s.progress()
	r = s.checkQueue(t, "plain")
	wantOnly(t, r)
	if r.Notes[notePutDup] != 1 {
		t.Errorf("notes %v, want one %s", r.Notes, notePutDup)
	}
}

// A put that returned nil with no node, an item left after the drain, an
// item consumed that was never put, a raw error and a worker that made no
// progress: each a violation.
func TestQueueCheckOthers(t *testing.T) {
	s := &scenario{}
	s.ev(event{Ev: evPut, Worker: 1, Data: "w1.1-9", Outcome: outOK})
	s.put(11, 1, "w1.1-10", true)
	s.ev(event{Ev: evConsumed, Worker: 2, Data: "bogus", Session: 22})
	s.ev(event{Ev: evPut, Worker: 2, Data: "w2.1-3", Outcome: outError, Err: "write: broken pipe"})
	a := s.put(11, 1, "w1.1-late", true)
	s.take(22, 2, a, "w1.1-late") // worker 1 consumed nothing after the faults
	wantOnly(t, s.checkQueue(t, "lock-safe"), vPutAckMissing, vItemsLeft, vUnknownItem, vRawError, vNoProgress)
}

// A Put that gave up while its create was in flight: the client deletes
// the node it made after all, from the same session. The item was never
// in the queue for its caller, who was told the put failed: not a loss.
func TestQueueCheckUndonePut(t *testing.T) {
	s := &scenario{}
	a := s.put(11, 1, "w1.1-1", false)
	s.ev(event{Ev: evPut, Worker: 1, Data: "w1.1-1", Outcome: outError, Err: "create: context deadline exceeded", Kind: "context.DeadlineExceeded"})
	s.del(11, queueDir+"/"+a)
	s.progress()
	r := s.checkQueue(t, "lock-safe")
	wantOnly(t, r)
	if r.Notes[notePutUndone] != 1 {
		t.Errorf("notes %v, want one %s", r.Notes, notePutUndone)
	}
	// Deleted by another session with no consumer's report: lost.
	s = &scenario{}
	a = s.put(11, 1, "w1.1-1", false)
	s.ev(event{Ev: evPut, Worker: 1, Data: "w1.1-1", Outcome: outError, Err: "create: context deadline exceeded", Kind: "context.DeadlineExceeded"})
	s.del(22, queueDir+"/"+a)
	s.progress()
	wantOnly(t, s.checkQueue(t, "lock-safe"), vItemLost)
}
