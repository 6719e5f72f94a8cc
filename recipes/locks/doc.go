// Package locks holds Curator's lock recipes, wire-compatible with Curator 5:
// the LockInternals engine and the locks built on it.
//
// Every acquire takes a context: its deadline is the timeout, and cancelling
// it abandons the wait and deletes the waiter's node. A hold tells its holder
// when it is lost (Hold.Lost), and gives a fencing token and a transaction
// op that fails once the hold is no longer current.
//
// Where Curator's locks belong to a thread, these belong to an Owner carried
// in the context (WithOwner): acquires with one Owner re-enter, others queue.
// An acquire without an Owner never re-enters. On a Mutex, either side of a
// ReadWriteLock, a SemaphoreMutex, or a MultiLock of them, it is refused
// (ErrSelfDeadlock, ErrUpgrade) where it would wait on a hold of the same
// lock its own goroutine took without one; a Semaphore's waits depend on
// counts others change, and are not refused.
package locks
