package observe

import (
	"time"

	"github.com/gocurator/curator/listener"
)

// Request is one request a client sent to ZooKeeper, answered or not.
type Request struct {
	Time     time.Time     // when it was handed to the connection
	Op       string        // ZooKeeper's name for it: "create", "getData", "multi", ...
	Path     string        // the server path (a multi's first op's)
	Latency  time.Duration // until the answer (or the error)
	Err      error         // nil, the server's refusal, or a connection error
	BytesOut int           // the request's frame on the wire, its length prefix included
	BytesIn  int           // the reply's frame (0 without one)
}

// Operation is one operation of a client (Create, Get, Txn, ...) from its
// call to its return, with the attempts its retry loop made.
type Operation struct {
	Time     time.Time
	Op       string // the client's name: "create", "get", "txn", ...
	Path     string // as the caller gave it
	Latency  time.Duration
	Attempts int // 1 without a retry
	Err      error
}

// Retry is one decision of an operation's retry loop after a failed
// attempt: try again after Sleep, or give up.
type Retry struct {
	Time    time.Time
	Op      string
	Path    string
	Attempt int   // the attempt that failed, from 1
	Err     error // why it failed
	Sleep   time.Duration
	GaveUp  bool // the policy refused another attempt (or the error is final)
}

// State is a change of a client's connection state.
type State struct {
	Time       time.Time
	State      listener.ConnectionState
	Previous   listener.ConnectionState // 0 before the first
	InPrevious time.Duration            // how long the previous state lasted
	SessionID  int64                    // the ZooKeeper session, 0 if none
	// Cause, for Lost: "expired" (the server said so), "timeout" (suspended
	// for the session timeout, Curator's rule) or "replaced" (a new session
	// came without a word of the old one's end).
	Cause string
}

// Outcome is how an acquire ended.
type Outcome int

// The outcomes of an acquire.
const (
	Acquired Outcome = iota + 1
	Busy             // TryAcquire found it held
	TimedOut         // the context's deadline passed
	Canceled         // the context was cancelled
	Refused          // refused before waiting: bad input, a self-deadlock, a lost owner
	Failed           // the connection or the server failed it
)

// String names the outcome as a metric label does.
func (o Outcome) String() string {
	switch o {
	case Acquired:
		return "acquired"
	case Busy:
		return "busy"
	case TimedOut:
		return "timed_out"
	case Canceled:
		return "canceled"
	case Refused:
		return "refused"
	case Failed:
		return "failed"
	}
	return "unknown"
}

// Acquire is the end of one acquire of a lock or a semaphore's lease.
type Acquire struct {
	Time    time.Time
	Recipe  string // "mutex", "read", "write", "semaphore", "semaphore_mutex", "multi", ...
	Label   string // the user's label for the lock, "" if none
	Path    string
	Wait    time.Duration // from the call to its end
	Outcome Outcome
	Err     error
}

// Release is the release of a hold.
type Release struct {
	Time   time.Time
	Recipe string
	Label  string
	Path   string
	Held   time.Duration // from the acquire's return to the release
	Err    error         // nil for a clean release
}

// Loss is a hold lost before it was released.
type Loss struct {
	Time   time.Time
	Recipe string
	Label  string
	Path   string
	Held   time.Duration // from the acquire's return to the loss
	Cause  error         // why (errors.Is tells a session expiry from a connection loss, a deleted node, a close)
}

// TermStart is the start of a leadership term.
type TermStart struct {
	Time   time.Time
	Recipe string // "latch" or "selector"
	Label  string
	Path   string
	ID     string // the participant's id
	// Gap is how long this participant saw the election without a leader
	// before this term: from the end of the term it last saw end (its own or
	// another's) to this start; 0 if it saw none end.
	Gap time.Duration
}

// TermEnd is the end of a leadership term.
type TermEnd struct {
	Time   time.Time
	Recipe string
	Label  string
	Path   string
	ID     string
	Length time.Duration
	Cause  error // why it ended (nil for a clean Close)
}

// CacheChange is one change a cache applied and told its listeners of.
type CacheChange struct {
	Time  time.Time
	Label string
	Type  string // "created", "changed", "deleted"
	Path  string
	Nodes int // the nodes the cache holds after it
}

// CacheResync is a cache's full read: its first load, or its resync after a
// reconnect or a new session.
type CacheResync struct {
	Time     time.Time
	Label    string
	Initial  bool // the first load
	Nodes    int  // the nodes it holds after it
	Changes  int  // the changes it found (0 for a first load)
	Duration time.Duration
}

// CacheStale is a span during which a cache could not be sure of its copy:
// the connection was down.
type CacheStale struct {
	Time     time.Time // when it ended
	Label    string
	Duration time.Duration
}

// CacheOverflow is a listener that fell behind: Dropped events never
// reached it.
type CacheOverflow struct {
	Time    time.Time
	Label   string
	Dropped int
}

// TrySet is a shared value's compare-and-set.
type TrySet struct {
	Time     time.Time
	Recipe   string // "value", "count", "atomic", ...
	Label    string
	Path     string
	Conflict bool // refused: someone else's write came first
}
