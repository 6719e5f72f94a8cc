//go:build !linux

package harness

import "time"

// sharedClock is false where mono is not the clock the peers stamp with:
// the propagation workload then runs the Go rows only.
const sharedClock = false

// mono returns the wall clock in nanoseconds: stamps taken in this process
// can be subtracted, but not a peer's.
func mono() int64 { return time.Now().UnixNano() }
