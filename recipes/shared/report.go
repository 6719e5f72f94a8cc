package shared

import (
	"time"

	"github.com/gocurator/curator/observe"
)

// report is how a Value tells the client's hooks how its compare-and-sets
// end. Its zero value, or a client without hooks, reports nothing.
type report struct {
	hooks  *observe.Hooks
	recipe string // "value" or "count"
	label  string
	path   string
}

// trySet reports a TrySet whose outcome is known: applied, or refused
// because another participant's write came first (conflict).
func (r report) trySet(conflict bool) {
	if r.hooks == nil {
		return
	}
	r.hooks.TrySet(observe.TrySet{Time: time.Now(), Recipe: r.recipe, Label: r.label, Path: r.path, Conflict: conflict})
}
