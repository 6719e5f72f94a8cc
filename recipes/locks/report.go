package locks

import (
	"context"
	"errors"
	"time"

	"github.com/gocurator/curator/framework"
	"github.com/gocurator/curator/observe"
)

// report is how a lock tells the client's hooks what it does: which recipe
// it is, and the label its user gave it (WithLabel). Its zero value, or a
// client without hooks, reports nothing.
type report struct {
	hooks  *observe.Hooks
	recipe string
	label  string
	path   string // the lock's, as the user named it
}

func newReport(client *framework.Client, recipe, label, path string) report {
	return report{hooks: client.Hooks(), recipe: recipe, label: label, path: path}
}

// acquire reports the end of an acquire that began at start.
func (r report) acquire(start time.Time, err error) {
	if r.hooks == nil {
		return
	}
	r.hooks.Acquire(observe.Acquire{Time: start, Recipe: r.recipe, Label: r.label, Path: r.path,
		Wait: time.Since(start), Outcome: outcomeOf(err), Err: err})
}

// release reports the last release of a hold taken at took.
func (r report) release(took time.Time, err error) {
	if r.hooks == nil {
		return
	}
	r.hooks.Release(observe.Release{Time: time.Now(), Recipe: r.recipe, Label: r.label, Path: r.path, Held: time.Since(took), Err: err})
}

// loss reports a hold taken at took lost for cause.
func (r report) loss(took time.Time, cause error) {
	if r.hooks == nil {
		return
	}
	r.hooks.Loss(observe.Loss{Time: time.Now(), Recipe: r.recipe, Label: r.label, Path: r.path, Held: time.Since(took), Cause: cause})
}

// outcomeOf classifies how an acquire ended.
func outcomeOf(err error) observe.Outcome {
	switch {
	case err == nil:
		return observe.Acquired
	case errors.Is(err, ErrBusy):
		return observe.Busy
	case errors.Is(err, context.DeadlineExceeded):
		return observe.TimedOut
	case errors.Is(err, context.Canceled):
		return observe.Canceled
	case errors.Is(err, ErrSelfDeadlock), errors.Is(err, ErrUpgrade), errors.Is(err, ErrInvalidArg), errors.Is(err, ErrLockLost):
		return observe.Refused
	}
	return observe.Failed
}
