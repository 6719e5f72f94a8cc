//go:build !linux

package zkharness

import "syscall"

// jvmProcAttr is nil where the kernel cannot kill a child with its parent:
// a test binary killed outright leaves its JVMs running (its cleanups and
// Close stop them otherwise).
func jvmProcAttr() *syscall.SysProcAttr { return nil }

// exited is false: without /proc a JVM that died but was not yet waited
// for cannot be told from a live one, so a JVM that dies at start is found
// when the start times out.
func (p *process) exited() bool { return false }
