package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/gocurator/curator/discovery"
	"github.com/gocurator/curator/framework"
	"github.com/gocurator/curator/recipes/locks"
	"github.com/gocurator/curator/recipes/node"
	"github.com/gocurator/curator/recipes/queue"
)

// Worker events, one JSON line each in the worker's output file.
const (
	evStart      = "start"       // the process began
	evAcquired   = "acquired"    // Acquire returned a hold
	evAcquireErr = "acquire_err" // Acquire failed
	evToken      = "token"       // Hold.Token's answer
	evWrite      = "write"       // a fenced write's outcome
	evLost       = "lost"        // the hold's Lost channel closed
	evCheck      = "check"       // Hold.Err before the release, when non-nil
	evRelease    = "release"     // Release's answer
	evIncrement  = "increment"   // an increment of the atomic long's outcome
	evKill       = "session_kill"
	evMember     = "member"     // the member node's Created or Lost (outcome: created, lost)
	evRegistered = "registered" // the service registration's outcome
	evLeave      = "leave"      // the member node and registration closed
	evExit       = "exit"       // the process ends cleanly

	// The queue workload's events.
	evPut       = "put"       // a Put's outcome (Data: the item)
	evConsumed  = "consumed"  // the Consumer took an item and returns nil (Data: the item; Session: its session)
	evAbandoned = "abandoned" // the Consumer gave an item up as its context ended (Data, Err: the cause)
	evStartErr  = "start_err" // the queue's Start failed; a new queue is made
)

// Write outcomes.
const (
	outOK      = "ok"      // the transaction committed
	outRefused = "refused" // a *framework.TxnError: the server refused it
	outError   = "error"   // any other error: it may or may not have committed
	outUnknown = "unknown" // an increment's error wraps framework.ErrOutcomeUnknown: it may have been applied
	outFailed  = "failed"  // an increment that ran out of tries (Succeeded false, no error): not applied
)

// event is one thing a worker saw. Fields not used by an event are empty.
type event struct {
	T      int64  `json:"t"` // Unix nanoseconds
	Ev     string `json:"ev"`
	Worker int    `json:"w"`
	Inc    int    `json:"inc"`            // the worker's incarnation (a killed worker is started again)
	Hold   int    `json:"hold,omitempty"` // the hold's number in this incarnation
	PID    int    `json:"pid,omitempty"`

	Path    string `json:"path,omitempty"` // the hold's lock node
	Session int64  `json:"session,omitempty"`
	Token   int64  `json:"token,omitempty"`
	Watched bool   `json:"watched,omitempty"` // Lost was called on the hold

	N         int    `json:"n,omitempty"`    // the write's number in its hold
	Data      string `json:"data,omitempty"` // the write's unique data
	Protected bool   `json:"protected,omitempty"`
	Outcome   string `json:"outcome,omitempty"`
	Entry     string `json:"entry,omitempty"` // the created log entry
	Start     int64  `json:"start,omitempty"` // when the call began, Unix ns

	Pre          int64 `json:"pre,omitempty"`           // an increment's Result.Pre
	Post         int64 `json:"post,omitempty"`          // an increment's Result.Post: the value it wrote (or may have)
	SessionStart int64 `json:"session_start,omitempty"` // an increment's session when it began (Session: when it ended)

	Err  string `json:"err,omitempty"`
	Kind string `json:"kind,omitempty"` // the sentinels err matches; "" for none (a raw error)
	Lost bool   `json:"lost,omitempty"` // err wraps locks.ErrLockLost
}

// entryData is the data of a log entry: who wrote it under which hold. It
// is unique per write, which lets the checker find a write in the log.
type entryData struct {
	Worker int    `json:"w"`
	Inc    int    `json:"inc"`
	Hold   int    `json:"hold"`
	N      int    `json:"n"`
	Token  int64  `json:"token"`
	Node   string `json:"node"`
}

func (d entryData) String() string {
	b, _ := json.Marshal(d)
	return string(b)
}

// sentinel is an error a caller of the library is meant to test for.
type sentinel struct {
	name string
	err  error
}

// sentinels returns the library's sentinels and the context's errors.
func sentinels() []sentinel {
	return []sentinel{
		{"ErrLockLost", locks.ErrLockLost},
		{"ErrNotOwner", locks.ErrNotOwner},
		{"ErrBusy", locks.ErrBusy},
		{"queue.ErrLockLost", queue.ErrLockLost},
		{"queue.ErrClosed", queue.ErrClosed},
		{"queue.ErrNotStarted", queue.ErrNotStarted},
		{"locks.ErrInvalidArg", locks.ErrInvalidArg},
		{"ErrNoNode", framework.ErrNoNode},
		{"ErrNodeExists", framework.ErrNodeExists},
		{"ErrBadVersion", framework.ErrBadVersion},
		{"ErrNotEmpty", framework.ErrNotEmpty},
		{"ErrNoAuth", framework.ErrNoAuth},
		{"ErrConnectionLoss", framework.ErrConnectionLoss},
		{"ErrOutcomeUnknown", framework.ErrOutcomeUnknown},
		{"ErrSessionExpired", framework.ErrSessionExpired},
		{"ErrClosed", framework.ErrClosed},
		{"ErrNotStarted", framework.ErrNotStarted},
		{"ErrInvalidPath", framework.ErrInvalidPath},
		{"ErrInvalidArg", framework.ErrInvalidArg},
		{"node.ErrClosed", node.ErrClosed},
		{"discovery.ErrClosed", discovery.ErrClosed},
		{"context.DeadlineExceeded", context.DeadlineExceeded},
		{"context.Canceled", context.Canceled},
	}
}

// errKind names the sentinels err matches, "+"-joined, with "TxnError" first
// if it wraps a *framework.TxnError; "" if it matches none.
func errKind(err error) string {
	var kinds []string
	var te *framework.TxnError
	if errors.As(err, &te) {
		kinds = append(kinds, "TxnError")
	}
	for _, s := range sentinels() {
		if errors.Is(err, s.err) {
			kinds = append(kinds, s.name)
		}
	}
	return strings.Join(kinds, "+")
}

// withErr fills in the error fields of ev.
func (ev event) withErr(err error) event {
	if err != nil {
		ev.Err, ev.Kind, ev.Lost = err.Error(), errKind(err), errors.Is(err, locks.ErrLockLost)
	}
	return ev
}

// readEvents reads a worker's output file, shared by its incarnations. A
// line that does not parse (cut short by a kill) is skipped.
func readEvents(path string) ([]event, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	return parseEvents(bytes.NewReader(b))
}

func parseEvents(r io.Reader) ([]event, error) {
	var out []event
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 0, 64<<10), 1<<20)
	for sc.Scan() {
		var ev event
		if err := json.Unmarshal(sc.Bytes(), &ev); err != nil {
			continue
		}
		out = append(out, ev)
	}
	if err := sc.Err(); err != nil {
		return out, fmt.Errorf("worker output: %w", err)
	}
	return out, nil
}
