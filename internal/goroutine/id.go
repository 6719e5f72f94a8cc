// Package goroutine tells goroutines apart, for the few checks that must
// know whether a call comes from a goroutine the library is waiting on.
package goroutine

import (
	"bytes"
	"runtime"
	"strconv"
	"sync"
	"unsafe"
)

// ID returns the calling goroutine's id, the number its stack trace's
// header gives ("goroutine 18 [running]:"); 0 if it cannot be learned. Ids
// are never reused.
//
// It is for refusing or avoiding a wait on oneself (a lock's Acquire that
// would wait on a hold its own goroutine took, a queue's Close called from
// its Consumer), never for granting anything: work handed to another
// goroutine would make a grant by goroutine unsafe.
//
// Where the runtime's goroutine record can be reached (see calibrate), ID
// reads the id from it, a few nanoseconds; elsewhere, and if the record's
// layout is not recognised, it formats the caller's stack trace, whose cost
// grows with the stack's depth (microseconds).
func ID() uint64 {
	if off := idOffset(); off >= 0 {
		return *(*uint64)(unsafe.Add(getg(), off))
	}
	return traceID()
}

// idOffset is the offset of the id in the runtime's goroutine record, or -1
// if ID must read stack traces. It is learned once per process.
var idOffset = sync.OnceValue(calibrate)

// traceID returns the calling goroutine's id, read from the header of its
// stack trace, as golang.org/x/net/http2's debug checks do; 0 if the header
// cannot be read.
func traceID() uint64 {
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
