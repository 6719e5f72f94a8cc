package main

import (
	"bytes"
	"fmt"
	"maps"
	"slices"
	"strings"
)

// logSet is the transaction log of one member as read at one moment: when
// it was killed (its restart wipes it) or at the end.
type logSet struct {
	member int
	label  string
	txns   []txn
}

// merged is the ensemble's history rebuilt from every member's logs.
type merged struct {
	txns      []txn    // committed transactions, in zxid order
	dropped   []string // transactions only one member logged: proposals a killed leader never committed
	conflicts []string // one zxid logged differently by two members: a server divergence
}

// mergeLogs rebuilds the committed history. A transaction commits once a
// quorum (two of three) has logged it, and a member's log is read before
// every wipe, so a committed transaction is in the logs of at least two
// members; one that only a single member logged is a proposal that was
// never committed (its leader was killed first). This holds while at most
// one member is down at a time, as the faults keep it.
func mergeLogs(sets []logSet) merged {
	type seen struct {
		t       txn
		members map[int]bool
	}
	byZxid := make(map[int64]*seen)
	var m merged
	conflicted := make(map[int64]bool)
	for _, s := range sets {
		for _, t := range s.txns {
			e := byZxid[t.Zxid]
			if e == nil {
				byZxid[t.Zxid] = &seen{t: t, members: map[int]bool{s.member: true}}
				continue
			}
			e.members[s.member] = true
			if !bytes.Equal(e.t.raw, t.raw) && !conflicted[t.Zxid] {
				conflicted[t.Zxid] = true
				m.conflicts = append(m.conflicts, fmt.Sprintf("zxid %#x logged differently by member %d (%s)", t.Zxid, s.member+1, s.label))
			}
		}
	}
	for _, z := range slices.Sorted(maps.Keys(byZxid)) {
		e := byZxid[z]
		if len(e.members) < 2 {
			m.dropped = append(m.dropped, fmt.Sprintf("zxid %#x (%s) only in member %v's log", z, describe(e.t), slices.Collect(maps.Keys(e.members))))
			continue
		}
		m.txns = append(m.txns, e.t)
	}
	return m
}

// describe says briefly what a transaction did.
func describe(t txn) string {
	var parts []string
	for _, op := range t.ops {
		switch op.Type {
		case txnCreate:
			parts = append(parts, "create "+op.Path)
		case txnDelete:
			parts = append(parts, "delete "+op.Path)
		case txnSetData:
			parts = append(parts, "set "+op.Path)
		case txnCheck:
			parts = append(parts, "check "+op.Path)
		case txnError:
			parts = append(parts, "error")
		case txnCloseSession:
			parts = append(parts, "closeSession")
		case txnCreateSession:
			parts = append(parts, "createSession")
		}
	}
	return fmt.Sprintf("session %#x: %s", t.Session, strings.Join(parts, "; "))
}

// How a lock node ended.
const (
	endReleased     = "released"      // deleted by its own session
	endDeletedOther = "deleted-other" // deleted by another session
	endSession      = "session-closed"
)

// lockNode is one lock node's life in the committed history.
type lockNode struct {
	Path       string
	Czxid      int64
	Owner      int64  // the session it is ephemeral to
	Data       string // the holder's name
	End        int64  // zxid of its deletion; 0 while it exists
	EndKind    string
	EndSession int64
}

// alive reports whether the node existed at zxid z.
func (n *lockNode) alive(z int64) bool { return n.Czxid < z && (n.End == 0 || z < n.End) }

// logEntry is one log entry's life in the committed history.
type logEntry struct {
	Path      string
	Zxid      int64
	Session   int64
	Data      string
	Deleted   int64 // zxid of its deletion; 0 while it exists
	DeletedBy int64 // the deleting session
}

// replay is what the committed history did to the lock and the log.
type replay struct {
	locks   []*lockNode // in creation order
	byPath  map[string]*lockNode
	entries []*logEntry // in creation order
	byData  map[string][]*logEntry
	count   int // committed transactions
}

// replayHistory follows the lock's nodes and the log's entries through the
// committed transactions. A session's ephemeral nodes go with its
// closeSession (a close by the client, an expiry, or a kill).
func replayHistory(txns []txn, lockPath, logPath string) *replay {
	r := &replay{byPath: make(map[string]*lockNode), byData: make(map[string][]*logEntry)}
	entries := make(map[string]*logEntry)
	ephemerals := make(map[int64][]*lockNode)
	for _, t := range txns {
		r.count++
		for _, op := range t.ops {
			switch op.Type {
			case txnCreate:
				switch {
				case strings.HasPrefix(op.Path, lockPath+"/"):
					n := &lockNode{Path: op.Path, Czxid: t.Zxid, Data: string(op.Data)}
					if op.Ephemeral {
						n.Owner = t.Session
						ephemerals[t.Session] = append(ephemerals[t.Session], n)
					}
					r.locks = append(r.locks, n)
					r.byPath[op.Path] = n
				case strings.HasPrefix(op.Path, logPath+"/"):
					e := &logEntry{Path: op.Path, Zxid: t.Zxid, Session: t.Session, Data: string(op.Data)}
					r.entries = append(r.entries, e)
					entries[op.Path] = e
					r.byData[e.Data] = append(r.byData[e.Data], e)
				}
			case txnDelete:
				if n := r.byPath[op.Path]; n != nil && n.End == 0 {
					n.End, n.EndSession = t.Zxid, t.Session
					n.EndKind = endDeletedOther
					if t.Session == n.Owner {
						n.EndKind = endReleased
					}
				}
				if e := entries[op.Path]; e != nil && e.Deleted == 0 {
					e.Deleted, e.DeletedBy = t.Zxid, t.Session
				}
			case txnCloseSession:
				for _, n := range ephemerals[t.Session] {
					if n.End == 0 {
						n.End, n.EndKind, n.EndSession = t.Zxid, endSession, t.Session
					}
				}
				delete(ephemerals, t.Session)
			}
		}
	}
	return r
}

// counterWrite is one committed write of the atomic long: a create or a
// set of its node.
type counterWrite struct {
	Zxid    int64
	Session int64
	Data    []byte
}

// replayCounter returns the committed writes of the node at counterPath,
// in commit order.
func replayCounter(txns []txn, counterPath string) []counterWrite {
	var out []counterWrite
	if counterPath == "" {
		return nil
	}
	for _, t := range txns {
		for _, op := range t.ops {
			if (op.Type == txnCreate || op.Type == txnSetData) && op.Path == counterPath {
				out = append(out, counterWrite{Zxid: t.Zxid, Session: t.Session, Data: op.Data})
			}
		}
	}
	return out
}
