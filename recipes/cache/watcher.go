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
// changed or deleted, until Close: Kazoo's DataWatch. A node deleted and
// created again between two reads is one call. It survives reconnects and
// session loss; fn runs on the watcher's own goroutine, one call at a time.
// ctx is the watcher's lifetime (docs/lifecycle.md): it bounds the first
// read, and the watcher stops when it ends, as at Close, so pass the
// context the application runs under, not a timeout.
func WatchData(ctx context.Context, client *framework.Client, path string, fn func(n Node, exists bool)) (*Watcher, error) {
	if err := checkWatch(client, path, fn == nil); err != nil {
		return nil, err
	}
	var last Node
	read := func(ctx context.Context) (framework.Watch, bool, error) {
		for {
			data, stat, w, err := client.GetW(ctx, path)
			if errors.Is(err, framework.ErrNoNode) {
				ok, _, w, err := client.ExistsW(ctx, path)
				if err == nil && ok {
					continue // created in between
				}
				if err != nil {
					return w, false, err
				}
				changed := last.Stat.Czxid != 0
				last = Node{Path: path}
				if changed {
					fn(last, false)
				}
				return w, false, nil
			}
			if err != nil {
				return w, false, err
			}
			changed := stat.Czxid != last.Stat.Czxid || stat.Mzxid != last.Stat.Mzxid
			last = Node{Path: path, Data: data, Stat: *stat}
			if changed {
				fn(last, true)
			}
			return w, true, nil
		}
	}
	w, exists, err := read(ctx)
	if err != nil {
		return nil, err
	}
	if !exists {
		fn(Node{Path: path}, false) // the first call, as Kazoo's
	}
	return startWatcher(ctx, client, w, read), nil
}

// WatchChildren calls fn with the sorted names of path's children (exists
// false if the node does not exist) before it returns, and again each time
// they change, until Close: Kazoo's ChildrenWatch, for a node that may not
// exist yet. It survives reconnects and session loss; fn runs on the
// watcher's own goroutine, one call at a time. ctx is the watcher's
// lifetime, as WatchData's.
func WatchChildren(ctx context.Context, client *framework.Client, path string, fn func(children []string, exists bool)) (*Watcher, error) {
	if err := checkWatch(client, path, fn == nil); err != nil {
		return nil, err
	}
	var (
		last    []string
		lastOK  bool
		started bool
	)
	read := func(ctx context.Context) (framework.Watch, bool, error) {
		for {
			names, _, w, err := client.ChildrenW(ctx, path)
			exists := true
			if errors.Is(err, framework.ErrNoNode) {
				var ok bool
				ok, _, w, err = client.ExistsW(ctx, path)
				if err == nil && ok {
					continue // created in between
				}
				names, exists = nil, false
			}
			if err != nil {
				return w, false, err
			}
			slices.Sort(names)
			if !started || exists != lastOK || !slices.Equal(names, last) {
				started, last, lastOK = true, names, exists
				fn(names, exists)
			}
			return w, exists, nil
		}
	}
	w, _, err := read(ctx)
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

// startWatcher runs read each time the watch w fires, until ctx ends or
// Close. A read that fails is tried again once the connection is back.
func startWatcher(ctx context.Context, client *framework.Client, w framework.Watch, read func(context.Context) (framework.Watch, bool, error)) *Watcher {
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
			for {
				var err error
				w, _, err = read(ctx)
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
