// Package driver defines LockDriver, the small interface a lock recipe
// delegates its two policy decisions to: how a participant's node is created,
// and, given the sorted participants, whether it holds the lock or which node
// it must wait on. The lock engine (recipes/locks.LockInternals) owns the
// loop, the watches, retries, cancellation and clean-up, as database/sql owns
// them for a database/sql/driver.
//
// Standard is Curator's StandardLockInternalsDriver, node for node: Go and
// Java processes using it on one path exclude each other.
package driver
