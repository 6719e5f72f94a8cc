//go:build !unix

package supervise

import (
	"syscall"
	"time"
)

// Group is a command running in a process group of its own. This system
// has none: Start returns ErrUnsupported.
type Group struct{}

// Start returns ErrUnsupported: this system has no process groups.
func Start(Command) (*Group, error) { return nil, ErrUnsupported }

// Pid returns 0.
func (g *Group) Pid() int { return 0 }

// Exited returns nil.
func (g *Group) Exited() <-chan struct{} { return nil }

// Empty returns nil.
func (g *Group) Empty() <-chan struct{} { return nil }

// Status returns the zero Status.
func (g *Group) Status() Status { return Status{} }

// Signal returns ErrUnsupported.
func (g *Group) Signal(syscall.Signal) error { return ErrUnsupported }

// Stop does nothing.
func (g *Group) Stop(time.Duration) bool { return false }
