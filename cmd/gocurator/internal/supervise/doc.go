// Package supervise runs a command in a process group of its own, passes
// signals on to the whole group, and stops the whole group (SIGTERM, then
// SIGKILL after a grace period) on demand: what a command run under a lock
// needs so that none of its processes outlives the lock, including the
// ones a shell started for it.
//
// On Linux the supervising process becomes a child subreaper
// (PR_SET_CHILD_SUBREAPER), so that members of the group whose parent died
// are reparented to it and reaped by it, and the command gets SIGKILL if
// the supervisor itself dies (PR_SET_PDEATHSIG; only the command, not its
// descendants). On other Unix systems orphans go to init, and the group is
// watched by polling. Other systems are not supported: Start returns
// ErrUnsupported.
//
// A group is known by its id, which is the command's process id. Once the
// command has been reaped, that number stays reserved for as long as any
// member of the group is left, so the group's signals cannot reach an
// unrelated process; once the group is empty it is never signalled again.
package supervise
