package atomic

import "time"

// Result is the outcome of an update: Curator's AtomicValue.
type Result[T any] struct {
	// Succeeded reports whether the update was applied (exactly once).
	Succeeded bool
	// Pre is the value the last try read: the zero value if the node did
	// not exist.
	Pre T
	// Post is the value written by the update that succeeded, or the one
	// whose write's outcome is unknown (with an error wrapping
	// framework.ErrOutcomeUnknown); the zero value otherwise.
	Post T
	// Stats counts the tries and the time each phase took.
	Stats Stats
}

// Stats says how an update went: Curator's AtomicStats.
type Stats struct {
	OptimisticTries int           // tries without the lock
	PromotedTries   int           // tries under the promotion's lock
	OptimisticTime  time.Duration // spent in the optimistic phase
	PromotedTime    time.Duration // spent in the promoted phase, the lock's wait included
}
