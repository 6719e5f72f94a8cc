package zkconn

import (
	"time"

	"github.com/go-zookeeper/zk"

	"github.com/gocurator/curator/internal/zkwire"
)

// Stat is a node's metadata: the wire's layout (zkwire.Stat), which is
// go-zookeeper's and framework.Stat's too, so that each converts to the
// next without a copy.
type Stat = zkwire.Stat

func statOf(s *zk.Stat) *Stat { return (*Stat)(s) }

// ACL is one entry of an access control list, in go-zookeeper's layout.
type ACL struct {
	Perms  int32
	Scheme string
	ID     string
}

func zkACLs(acl []ACL) []zk.ACL {
	if acl == nil {
		return nil
	}
	out := make([]zk.ACL, len(acl))
	for i, a := range acl {
		out[i] = zk.ACL(a)
	}
	return out
}

func aclsOf(acl []zk.ACL) []ACL {
	if acl == nil {
		return nil
	}
	out := make([]ACL, len(acl))
	for i, a := range acl {
		out[i] = ACL(a)
	}
	return out
}

// EventType says what a watch saw: ZooKeeper's codes, and NotWatching for a
// watch that ended unfired.
type EventType int32

// The event types.
const (
	NodeCreated         EventType = 1
	NodeDeleted         EventType = 2
	NodeDataChanged     EventType = 3
	NodeChildrenChanged EventType = 4
	NotWatching         EventType = -2 // the session expired or the connection closed
)

// Event is a watch notification: what happened to which node (a server
// path). With NotWatching, Err says why the watch ended.
type Event struct {
	Type EventType
	Path string
	Err  error
}

func eventOf(ev zk.Event) Event {
	return Event{Type: EventType(ev.Type), Path: ev.Path, Err: errOf(ev.Err)}
}

// State is a change of the session's state.
type State int

// The session states the Conn reports.
const (
	// HasSession: a session was established, or re-established on a new
	// connection. SessionEvent.ID and Timeout say which and for how long.
	HasSession State = iota + 1
	// ReadOnly: connected to a server in read-only mode.
	ReadOnly
	// Disconnected: the connection was lost; the session may live on.
	Disconnected
	// Expired: a server said the session had expired.
	Expired
)

// SessionEvent is one change of the session's state.
type SessionEvent struct {
	State   State
	ID      int64         // with HasSession: the session's id
	Timeout time.Duration // with HasSession: the session timeout the server granted
}

// CreateRequest is one create.
type CreateRequest struct {
	Path string
	Data []byte
	Mode int32 // ZooKeeper's create mode: 4 is a container, 5 and 6 have a TTL
	ACL  []ACL
	TTL  time.Duration
	// Written, if set, is closed once the request has been written to the
	// connection (see WriteNotice).
	Written *WriteNotice
	// Late, if set, is called with the answer of a call whose caller's
	// context ended first (on a goroutine of the Conn's; Close waits for it).
	Late func(path string, err error)
}

// OpKind is the kind of an operation of a transaction.
type OpKind int

// The operations a transaction may hold.
const (
	OpCreate OpKind = iota + 1
	OpDelete
	OpSetData
	OpCheck
)

// Op is one operation of a transaction.
type Op struct {
	Kind    OpKind
	Path    string
	Data    []byte // create, set
	Mode    int32  // create
	ACL     []ACL  // create
	Version int32  // delete, set, check
}

// OpResult is the outcome of one operation of a transaction: the path a
// create made, the stat a set left, or the operation's error.
type OpResult struct {
	Path string
	Stat *Stat
	Err  error // zkerr.RuntimeInconsistency for an operation rolled back because another failed
}

// MultiRequest is one transaction.
type MultiRequest struct {
	Ops     []Op
	Written *WriteNotice                    // closed once written, keyed by Ops[0].Path (see WriteNotice)
	Late    func(res []OpResult, err error) // as CreateRequest's
}

// RequestInfo is one request as Config.OnRequest hears it.
type RequestInfo struct {
	Start    time.Time
	Op       string // ZooKeeper's name: "create", "getData", ...
	Path     string // the server path (a multi's first op's)
	Latency  time.Duration
	Err      error
	BytesOut int // the request's frame, its length prefix included
	BytesIn  int // the reply's frame; 0 if none came
}
