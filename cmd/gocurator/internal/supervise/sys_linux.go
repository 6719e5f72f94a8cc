package supervise

import "syscall"

// prSetChildSubreaper is PR_SET_CHILD_SUBREAPER from <linux/prctl.h>.
const prSetChildSubreaper = 36

// becomeSubreaper makes this process the parent of every orphaned
// descendant, so that the members of a group are reparented to it, and
// reaped by it, when their parent dies. Setting it again is harmless.
func becomeSubreaper() {
	syscall.RawSyscall(syscall.SYS_PRCTL, prSetChildSubreaper, 1, 0)
}

// procAttr puts the command in a new process group and has the kernel
// kill it if this process dies (its descendants are not covered). The
// kernel ties that signal to the thread that forked; Go ends a thread only
// when a goroutine locked to it (runtime.LockOSThread) exits, which nothing
// that starts a command here does.
func procAttr() *syscall.SysProcAttr {
	return &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
}
