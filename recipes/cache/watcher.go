package cache

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"time"

	"github.com/gocurator/curator/framework"
)

// Watcher is a running WatchData or WatchChildren: Kazoo's DataWatch and
// ChildrenWatch. It stops when the context it was made with ends, or at
// Close.
//
// A watcher reports to the client's hooks (framework.WithHooks) as a cache
// does, under the label WithLabel gives it: its first read as the initial
// load, each later call of its function as a change, the changes a call
// missed as an overflow, and, after its session expired or a read failed
// on the connection, the span until its next read as stale, and that read
// as a resync.
type Watcher struct {
	stop    context.CancelFunc
	stopped chan struct{}
}

// Close stops the watcher and waits for its function to return. It is
// idempotent, and returns nil. It must not be called from the function.
func (w *Watcher) Close() error {
	w.stop()
	<-w.stopped
	return nil
}

// WatchData calls fn with the node at path (exists false if there is
// none) before it returns, and again each time the node is created,
// changed or deleted, until Close: Kazoo's DataWatch. It survives
// reconnects and session loss; fn runs on the watcher's own goroutine, one
// call at a time. ctx is the watcher's lifetime (docs/lifecycle.md): it
// bounds the first read, and the watcher stops when it ends, as at Close,
// so pass the context the application runs under, not a timeout.
//
// Each call shows the node as one read found it, and several changes can
// fall between two reads: while fn runs, or when changes come faster than
// a round trip. missed says so: it counts the changes since the previous
// call that no call showed (0 when the watcher kept up). It is exact while
// the node lives on (its versions), and a lower bound across a delete (a
// node deleted and made again between two reads is one call, with missed
// at least 1).
//
// The one option it takes is WithLabel; any other is ErrInvalidArg.
func WatchData(ctx context.Context, client *framework.Client, path string, fn func(n Node, exists bool, missed int), opts ...Option) (*Watcher, error) {
	r, err := checkWatch(client, path, fn == nil, opts)
	if err != nil {
		return nil, err
	}
	var (
		last    Node // as shown; zero Stat when shown absent
		pending int  // changes seen since the last call and not shown
		first   = true
	)
	read := func(ctx context.Context, trigger framework.EventType) (framework.Watch, seen, error) {
		for {
			data, stat, w, err := client.GetW(ctx, path)
			if errors.Is(err, framework.ErrNoNode) {
				ok, _, w, err := client.ExistsW(ctx, path)
				if err == nil && ok {
					continue // created in between
				}
				if err != nil {
					return w, seen{}, err
				}
				shown := last.Stat.Czxid != 0
				switch {
				case shown && trigger == framework.EventNodeDataChanged:
					pending++ // it changed, then went
				case !shown && trigger == framework.EventNodeCreated:
					pending++ // it came and went
				}
				called := shown || first
				if called {
					if !first {
						r.change(Deleted, path, 0)
					}
					first = false
					last = Node{Path: path}
					missed := pending
					pending = 0
					r.overflow(missed)
					fn(last, false, missed)
				}
				return w, seen{nodes: 0, changed: called}, nil
			}
			if err != nil {
				return w, seen{}, err
			}
			switch {
			case first:
			case last.Stat.Czxid == stat.Czxid:
				pending += max(int(stat.Version-last.Stat.Version)-1, 0)
			case last.Stat.Czxid != 0: // deleted and made again
				pending += 1 + int(stat.Version)
				if trigger == framework.EventNodeDataChanged {
					pending++
				}
			default: // made since it was shown absent
				pending += int(stat.Version)
			}
			called := first || stat.Czxid != last.Stat.Czxid || stat.Mzxid != last.Stat.Mzxid
			if called {
				switch {
				case first:
				case last.Stat.Czxid == 0:
					r.change(Created, path, 1)
				default:
					r.change(Changed, path, 1)
				}
				first = false
				last = Node{Path: path, Data: data, Stat: *stat}
				missed := pending
				pending = 0
				r.overflow(missed)
				fn(last, true, missed)
			}
			return w, seen{nodes: 1, changed: called}, nil
		}
	}
	return runWatcher(ctx, client, r, read)
}

// WatchChildren calls fn with the sorted names of path's children (exists
// false if the node does not exist) before it returns, and again each time
// they change, until Close: Kazoo's ChildrenWatch, for a node that may not
// exist yet. It survives reconnects and session loss; fn runs on the
// watcher's own goroutine, one call at a time. ctx is the watcher's
// lifetime, as WatchData's.
//
// missed counts the changes of the children (each create or delete of a
// child) since the previous call that no call showed, as WatchData's: 0
// when the watcher kept up; exact while the node lives on (its Cversion),
// a lower bound across its delete. Its one option is WithLabel, as
// WatchData's.
func WatchChildren(ctx context.Context, client *framework.Client, path string, fn func(children []string, exists bool, missed int), opts ...Option) (*Watcher, error) {
	r, err := checkWatch(client, path, fn == nil, opts)
	if err != nil {
		return nil, err
	}
	var (
		last       []string
		lastExists bool
		lastStat   framework.Stat // the node's stat as last read
		pending    int
		started    bool
	)
	read := func(ctx context.Context, trigger framework.EventType) (framework.Watch, seen, error) {
		for {
			names, stat, w, err := client.ChildrenW(ctx, path)
			exists := true
			if errors.Is(err, framework.ErrNoNode) {
				var ok bool
				ok, _, w, err = client.ExistsW(ctx, path)
				if err == nil && ok {
					continue // created in between
				}
				names, stat, exists = nil, nil, false
			}
			if err != nil {
				return w, seen{}, err
			}
			slices.Sort(names)
			switch {
			case !started:
			case exists && lastExists && stat.Czxid == lastStat.Czxid:
				// The last change leaves what this call shows, or what the
				// previous one showed: the others are unseen.
				pending += max(int(stat.Cversion-lastStat.Cversion)-1, 0)
			case exists && lastExists: // deleted and made again
				pending += 1 + int(stat.Cversion)
				if trigger == framework.EventNodeChildrenChanged {
					pending++
				}
			case exists: // made since it was shown absent
				pending += int(stat.Cversion)
			case lastExists && trigger == framework.EventNodeChildrenChanged:
				pending++ // they changed, then the node went
			case !lastExists && trigger == framework.EventNodeCreated:
				pending++ // it came and went
			}
			if exists {
				lastStat = *stat
			} else {
				lastStat = framework.Stat{}
			}
			called := !started || exists != lastExists || !slices.Equal(names, last)
			if called {
				switch {
				case !started:
				case !exists:
					r.change(Deleted, path, 0)
				case !lastExists:
					r.change(Created, path, len(names))
				default:
					r.change(Changed, path, len(names))
				}
				started, last, lastExists = true, names, exists
				missed := pending
				pending = 0
				r.overflow(missed)
				fn(names, exists, missed)
			}
			return w, seen{nodes: len(names), changed: called}, nil
		}
	}
	return runWatcher(ctx, client, r, read)
}

// seen is what a watcher's read found, for the hooks: how many nodes it
// shows (the node, or the children), and whether it called the function.
type seen struct {
	nodes   int
	changed bool
}

// readFunc is a watcher's read, given what fired its watch.
type readFunc func(context.Context, framework.EventType) (framework.Watch, seen, error)

// checkWatch checks a watcher's arguments before any request, and returns
// its report.
func checkWatch(client *framework.Client, path string, nilFn bool, opts []Option) (report, error) {
	switch {
	case client == nil:
		return report{}, fmt.Errorf("%w: nil client", ErrInvalidArg)
	case nilFn:
		return report{}, fmt.Errorf("%w: nil function", ErrInvalidArg)
	}
	if err := framework.ValidatePath(path, false); err != nil {
		return report{}, fmt.Errorf("%w: watch path %q: %w", ErrInvalidArg, path, err)
	}
	o, err := applyOptions(opts)
	if err != nil {
		return report{}, err
	}
	if o.depthSet || o.childrenOnly || o.withoutData || o.filter != nil || o.buffer != DefaultBuffer {
		return report{}, fmt.Errorf("%w: a watcher takes no option but WithLabel", ErrInvalidArg)
	}
	return newReport(client, o.label), nil
}

// runWatcher makes a watcher's first read, reports it as its load, and
// starts the watcher.
func runWatcher(ctx context.Context, client *framework.Client, r report, read readFunc) (*Watcher, error) {
	start := time.Now()
	w, s, err := read(ctx, 0)
	if err != nil {
		return nil, err
	}
	r.resync(true, s.nodes, 0, start)
	return startWatcher(ctx, client, r, w, read), nil
}

// startWatcher runs read each time the watch w fires, with what it saw,
// until ctx ends or Close. A read that fails is tried again once the
// connection is back.
func startWatcher(ctx context.Context, client *framework.Client, r report, w framework.Watch, read readFunc) *Watcher {
	ctx, cancel := context.WithCancel(ctx)
	wt := &Watcher{stop: cancel, stopped: make(chan struct{})}
	go func() {
		defer close(wt.stopped)
		for {
			select {
			case <-w.Done():
			case <-client.Done():
				return
			case <-ctx.Done():
				return
			}
			ev, _ := w.Event()
			var staleSince time.Time // the session ended, or a read failed: the span until a read succeeds
			if ev.Type == framework.EventNotWatching {
				staleSince = time.Now()
			}
			for trigger := ev.Type; ; trigger = 0 {
				var err error
				var s seen
				w, s, err = read(ctx, trigger)
				if err == nil {
					if !staleSince.IsZero() {
						r.resync(false, s.nodes, btoi(s.changed), staleSince)
						r.stale(staleSince)
					}
					break
				}
				if ctx.Err() != nil || errors.Is(err, framework.ErrClosed) {
					return
				}
				if staleSince.IsZero() {
					staleSince = time.Now()
				}
				client.Logger().Debug("cache: a watcher's read failed; trying again once connected", "err", err)
				if client.BlockUntilConnected(ctx) != nil {
					select { // closed or cancelled: the loop's checks decide
					case <-ctx.Done():
						return
					case <-time.After(100 * time.Millisecond):
					}
				}
			}
		}
	}()
	return wt
}

func btoi(b bool) int {
	if b {
		return 1
	}
	return 0
}
