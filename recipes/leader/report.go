package leader

import (
	"errors"
	"time"

	"github.com/gocurator/curator/framework"
	"github.com/gocurator/curator/observe"
	"github.com/gocurator/curator/recipes/locks"
)

// report tells the client's hooks (observe.LeaderHook) of a participant's
// terms. Its methods are the run goroutine's: they keep when the
// participant last saw a term end.
type report struct {
	hooks  *observe.Hooks
	recipe string // "latch" or "selector"
	label  string // WithLabel's
	path   string // the election's, as the user named it
	id     string
	ended  time.Time // when the participant last saw a term end: its own, or the one before it (Hold.Woken)
}

func newReport(client *framework.Client, recipe, label, path, id string) report {
	return report{hooks: client.Hooks(), recipe: recipe, label: label, path: path, id: id}
}

// start reports the start of hold's term, now, and returns it. Its gap is
// counted from the later of the participant's own last term's end and the
// moment its acquire woke as the node ahead of it went.
func (r *report) start(hold *locks.Hold) time.Time {
	now := time.Now()
	if r.hooks == nil {
		return now
	}
	seen := r.ended
	if w := hold.Woken(); w.After(seen) {
		seen = w
	}
	var gap time.Duration
	if !seen.IsZero() {
		gap = now.Sub(seen)
	}
	r.hooks.TermStart(observe.TermStart{Time: now, Recipe: r.recipe, Label: r.label, Path: r.path, ID: r.id, Gap: gap})
	return now
}

// end reports the end, now, of the term that began at began, for cause
// (a term's Err; ErrClosed, a clean Close, is reported as nil).
func (r *report) end(began time.Time, cause error) {
	if r.hooks == nil {
		return
	}
	now := time.Now()
	r.ended = now
	if errors.Is(cause, ErrClosed) && !errors.Is(cause, ErrLost) {
		cause = nil
	}
	r.hooks.TermEnd(observe.TermEnd{Time: now, Recipe: r.recipe, Label: r.label, Path: r.path, ID: r.id, Length: now.Sub(began), Cause: cause})
}
