package supervise

import (
	"fmt"
	"syscall"
)

// Status is how a command ended: with an exit code, or killed by a signal.
type Status struct {
	// Code is the exit code of a command that exited.
	Code int
	// Signal is the signal that killed the command, or 0 if it exited.
	Signal syscall.Signal
}

// ExitCode returns the status as a shell reports it: the exit code, or 128
// plus the number of the signal that killed the command.
func (s Status) ExitCode() int {
	if s.Signal != 0 {
		return 128 + int(s.Signal)
	}
	return s.Code
}

// String describes the status ("exit status 3", "killed by terminated").
func (s Status) String() string {
	if s.Signal != 0 {
		return fmt.Sprintf("killed by signal %d (%v)", int(s.Signal), s.Signal)
	}
	return fmt.Sprintf("exit status %d", s.Code)
}
