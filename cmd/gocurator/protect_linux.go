package main

import "syscall"

// prSetDumpable is PR_SET_DUMPABLE from <linux/prctl.h>.
const prSetDumpable = 4

// protectProcess makes gocurator not dumpable: it dumps no core, and only
// root may read its memory, environment and open files through /proc or
// attach a debugger to it. Otherwise every process of the same user,
// COMMAND included, could read the digest in /proc/PID/environ or in
// memory. The command itself, after its exec, is dumpable again as usual.
func protectProcess() {
	syscall.RawSyscall(syscall.SYS_PRCTL, prSetDumpable, 0, 0)
}
