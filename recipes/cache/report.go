package cache

import (
	"time"

	"github.com/gocurator/curator/framework"
	"github.com/gocurator/curator/observe"
)

// report is how a cache or a watcher tells the client's hooks what it
// does, under the label its user gave it (WithLabel). A client without
// hooks reports nothing.
type report struct {
	hooks *observe.Hooks
	label string
}

func newReport(client *framework.Client, label string) report {
	return report{hooks: client.Hooks(), label: label}
}

// change reports a change told to the listeners; nodes is how many nodes
// are held after it.
func (r report) change(t EventType, path string, nodes int) {
	if r.hooks == nil {
		return
	}
	var typ string
	switch t {
	case Created:
		typ = "created"
	case Changed:
		typ = "changed"
	case Deleted:
		typ = "deleted"
	default:
		return
	}
	r.hooks.CacheChange(observe.CacheChange{Time: time.Now(), Label: r.label, Type: typ, Path: path, Nodes: nodes})
}

// resync reports a full read begun at start: the first load (initial), or
// a resync that found changes.
func (r report) resync(initial bool, nodes, changes int, start time.Time) {
	if r.hooks == nil {
		return
	}
	now := time.Now()
	r.hooks.CacheResync(observe.CacheResync{Time: now, Label: r.label, Initial: initial, Nodes: nodes, Changes: changes, Duration: now.Sub(start)})
}

// stale reports a span, begun at since, during which the copy could not
// be trusted.
func (r report) stale(since time.Time) {
	if r.hooks == nil {
		return
	}
	now := time.Now()
	r.hooks.CacheStale(observe.CacheStale{Time: now, Label: r.label, Duration: now.Sub(since)})
}

// overflow reports dropped events that never reached a listener.
func (r report) overflow(dropped int) {
	if r.hooks == nil || dropped == 0 {
		return
	}
	r.hooks.CacheOverflow(observe.CacheOverflow{Time: time.Now(), Label: r.label, Dropped: dropped})
}
