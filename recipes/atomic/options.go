package atomic

import (
	"fmt"
	"time"

	"github.com/gocurator/curator/framework"
	"github.com/gocurator/curator/retry"
)

// checkPath refuses a path no node can have, or the root.
func checkPath(what, path string) error {
	if path == "/" {
		return fmt.Errorf("%w: %s path %q: the root cannot be used", ErrInvalidArg, what, path)
	}
	if err := framework.ValidatePath(path, false); err != nil {
		return fmt.Errorf("%w: %s path %q: %w", ErrInvalidArg, what, path, err)
	}
	return nil
}

// Promotion is Curator's PromotedToLock: after the optimistic tries fail,
// an update takes a locks.Mutex at LockPath and tries again under it.
// Participants that update without the lock are not held off by it, so
// even a promoted update can fail.
type Promotion struct {
	// LockPath is the mutex's path; it must not be empty.
	LockPath string
	// Timeout bounds the wait for the lock; an update that does not get it
	// in time fails (Succeeded false, no error). Zero or less waits as long
	// as the update's context allows.
	Timeout time.Duration
	// Retry says how often to try again under the lock. Nil is Curator's
	// default: one try (retry.RetryNTimes(0, 0)).
	Retry retry.Policy
}

// Option configures an Int64, an Int32 or a Value.
type Option func(*options) error

type options struct {
	promo *Promotion
}

// WithPromotion makes updates that the optimistic tries could not apply try
// again under a lock, as Curator's PromotedToLock does.
func WithPromotion(p Promotion) Option {
	return func(o *options) error {
		if err := checkPath("promotion lock", p.LockPath); err != nil {
			return err
		}
		if p.Retry == nil {
			p.Retry = retry.RetryNTimes(0, 0)
		}
		o.promo = &p
		return nil
	}
}
