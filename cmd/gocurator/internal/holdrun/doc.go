// Package holdrun runs a command for as long as a hold on ZooKeeper lasts
// (a lock, a semaphore's lease, a term of leadership): the command gets the
// hold's path, node, session and fencing token in its environment, runs in
// a process group of its own (package supervise), and when the hold is
// lost the whole group gets SIGTERM, then SIGKILL after a grace period
// short enough that it is dead before the server can let another holder
// in (see Grace).
package holdrun
