package harness

import (
	"syscall"
	"unsafe"
)

// clockMonotonic is Linux's CLOCK_MONOTONIC.
const clockMonotonic = 1

// sharedClock is true where mono reads the clock the peers stamp with.
const sharedClock = true

// mono returns CLOCK_MONOTONIC in nanoseconds: the clock Java's
// System.nanoTime and Python's time.monotonic_ns read on Linux, one clock
// for the whole machine, so that a stamp taken in a peer's process and one
// taken here can be subtracted.
func mono() int64 {
	var ts syscall.Timespec
	if _, _, errno := syscall.Syscall(syscall.SYS_CLOCK_GETTIME, clockMonotonic, uintptr(unsafe.Pointer(&ts)), 0); errno != 0 {
		return 0
	}
	return ts.Nano()
}
