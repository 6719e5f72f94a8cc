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
func WatchData(ctx context.Context, client *framework.Client, path string, fn func(n Node, exists bool, missed int)) (*Watcher, error) {
	if err := checkWatch(client, path, fn == nil); err != nil {
		return nil, err
	}
	var (
		last    Node // as shown; zero Stat when shown absent
		pending int  // changes seen since the last call and not shown
		first   = true
	)
	read := func(ctx context.Context, trigger framework.EventType) (framework.Watch, error) {
		for {
			data, stat, w, err := client.GetW(ctx, path)
			if errors.Is(err, framework.ErrNoNode) {
				ok, _, w, err := client.ExistsW(ctx, path)
				if err == nil && ok {
					continue // created in between
				}
				if err != nil {
					return w, err
				}
				shown := last.Stat.Czxid != 0
				switch {
				case shown && trigger == framework.EventNodeDataChanged:
					pending++ // it changed, then went
				case !shown && trigger == framework.EventNodeCreated:
					pending++ // it came and went
				}
				if shown || first {
					first = false
					last = Node{Path: path}
					missed := pending
					pending = 0
					fn(last, false, missed)
				}
				return w, nil
			}
			if err != nil {
				return w, err
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
			if first || stat.Czxid != last.Stat.Czxid || stat.Mzxid != last.Stat.Mzxid {
				first = false
				last = Node{Path: path, Data: data, Stat: *stat}
				missed := pending
				pending = 0
				fn(last, true, missed)
			}
			return w, nil
		}
	}
	w, err := read(ctx, 0)
	if err != nil {
		return nil, err
	}
	return startWatcher(ctx, client, w, read), nil
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
// a lower bound across its delete.
func WatchChildren(ctx context.Context, client *framework.Client, path string, fn func(children []string, exists bool, missed int)) (*Watcher, error) {
	if err := checkWatch(client, path, fn == nil); err != nil {
		return nil, err
	}
	var (
		last       []string
		lastExists bool
		lastStat   framework.Stat // the node's stat as last read
		pending    int
		started    bool
	)
	read := func(ctx context.Context, trigger framework.EventType) (framework.Watch, error) {
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
				return w, err
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
			if !started || exists != lastExists || !slices.Equal(names, last) {
				started, last, lastExists = true, names, exists
				missed := pending
				pending = 0
				fn(names, exists, missed)
			}
			return w, nil
		}
	}
	w, err := read(ctx, 0)
	if err != nil {
		return nil, err
	}
	return startWatcher(ctx, client, w, read), nil
}

func checkWatch(client *framework.Client, path string, nilFn bool) error {
	switch {
	case client == nil:
		return fmt.Errorf("%w: nil client", ErrInvalidArg)
	case nilFn:
		return fmt.Errorf("%w: nil function", ErrInvalidArg)
	}
	if err := framework.ValidatePath(path, false); err != nil {
		return fmt.Errorf("%w: watch path %q: %w", ErrInvalidArg, path, err)
	}
	return nil
}

// startWatcher runs read each time the watch w fires, with what it saw,
// until ctx ends or Close. A read that fails is tried again once the
// connection is back.
func startWatcher(ctx context.Context, client *framework.Client, w framework.Watch, read func(context.Context, framework.EventType) (framework.Watch, error)) *Watcher {
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
			for trigger := ev.Type; ; trigger = 0 {
				var err error
				w, err = read(ctx, trigger)
				if err == nil {
					break
				}
				if ctx.Err() != nil || errors.Is(err, framework.ErrClosed) {
					return
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
