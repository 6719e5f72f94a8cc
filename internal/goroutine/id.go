// Package goroutine tells goroutines apart, for the few checks that must
// know whether a call comes from a goroutine the library is waiting on.
package goroutine

import (
	"bytes"
	"runtime"
	"strconv"
)

// ID returns the calling goroutine's id, read from the header of its stack
// trace ("goroutine 18 [running]:"), as golang.org/x/net/http2's debug
// checks do; 0 if the header cannot be read. Ids are never reused.
//
// It is for refusing or avoiding a wait on oneself (a lock's Acquire that
// would wait on a hold its own goroutine took, a queue's Close called from
// its Consumer), never for granting anything: work handed to another
// goroutine would make a grant by goroutine unsafe.
func ID() uint64 {
	var buf [64]byte
	b := buf[:runtime.Stack(buf[:], false)]
	b, ok := bytes.CutPrefix(b, []byte("goroutine "))
	if !ok {
		return 0
	}
	if i := bytes.IndexByte(b, ' '); i > 0 {
		b = b[:i]
	}
	id, err := strconv.ParseUint(string(b), 10, 64)
	if err != nil {
		return 0
	}
	return id
}
