//go:build !unix

package main

import (
	"os"
	"syscall"
)

// forwarded returns the signals gocurator reacts to. This system has no
// process groups: lock and elect cannot run a command (supervise's
// ErrUnsupported), and leader and holders stop at these.
func forwarded() []os.Signal {
	return []os.Signal{os.Interrupt, syscall.SIGTERM}
}

// ignored returns no signal: this system has no job control.
func ignored() []os.Signal { return nil }
