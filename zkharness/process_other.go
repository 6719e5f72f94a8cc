//go:build !linux

package zkharness

import (
	"errors"
	"os"
	"syscall"
)

// jvmProcAttr is nil where the kernel cannot kill a child with its parent:
// a test binary killed outright leaves its JVMs running (its cleanups and
// Close stop them otherwise).
func jvmProcAttr() *syscall.SysProcAttr { return nil }

// exited reports whether the JVM is gone. Without /proc it cannot tell a
// zombie from a live process, so a JVM that died at start is found when the
// start times out.
func (p *process) exited() bool {
	return errors.Is(p.cmd.Process.Signal(syscall.Signal(0)), os.ErrProcessDone)
}
