//go:build unix && !linux

package supervise

import "syscall"

// becomeSubreaper does nothing off Linux: orphans go to init, and the group
// is watched by polling.
func becomeSubreaper() {}

// procAttr puts the command in a new process group.
func procAttr() *syscall.SysProcAttr {
	return &syscall.SysProcAttr{Setpgid: true}
}
