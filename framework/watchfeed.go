package framework

import (
	"fmt"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/gocurator/curator/internal/zkconn"
)

// watchFeed hands the connection's watch notifications to the functions
// registered with AddWatchListener. Its list is replaced, never changed in
// place, so the receive goroutine reads it without a lock.
type watchFeed struct {
	mu   sync.Mutex // serialises changes to subs
	subs atomic.Pointer[[]*watchSub]
}

type watchSub struct {
	prefix string // a server path
	fn     func(WatchEvent)
}

// covers reports whether the server path p is prefix or below it.
func (s *watchSub) covers(p string) bool {
	return s.prefix == "/" || p == s.prefix || strings.HasPrefix(p, s.prefix) && p[len(s.prefix)] == '/'
}

func (f *watchFeed) add(s *watchSub) (remove func()) {
	f.mu.Lock()
	defer f.mu.Unlock()
	var cur []*watchSub
	if p := f.subs.Load(); p != nil {
		cur = *p
	}
	next := append(cur[:len(cur):len(cur)], s)
	f.subs.Store(&next)
	var once sync.Once
	return func() {
		once.Do(func() {
			f.mu.Lock()
			defer f.mu.Unlock()
			cur := *f.subs.Load()
			next := make([]*watchSub, 0, len(cur))
			for _, o := range cur {
				if o != s {
					next = append(next, o)
				}
			}
			f.subs.Store(&next)
		})
	}
}

// deliver passes a notification to every function registered for its
// path. It runs on go-zookeeper's receive goroutine.
func (f *watchFeed) deliver(ns namespace, ev zkconn.Event) {
	f.each(ev.Path, func() WatchEvent { return watchEventOf(ns, ev) })
}

// deliverEvent passes the client's own event we, for the server path full,
// to every function registered for it.
func (f *watchFeed) deliverEvent(full string, we WatchEvent) {
	f.each(full, func() WatchEvent { return we })
}

// each calls every function registered for the server path p with the
// event made once, by build, if any is.
func (f *watchFeed) each(p string, build func() WatchEvent) {
	subs := f.subs.Load()
	if subs == nil || len(*subs) == 0 {
		return
	}
	var we WatchEvent
	built := false
	for _, s := range *subs {
		if s.covers(p) {
			if !built {
				we, built = build(), true
			}
			s.fn(we)
		}
	}
}

// AddWatchListener registers fn to receive every watch notification that
// this client's connection receives for path or a path below it: the
// notifications of watches set through this client (ExistsW, GetW,
// ChildrenW, and ExistsWatched, GetWatched, ChildrenWatched) by anyone,
// each once, in the order the server sent them and before any reply the
// server sent after them. It is how a recipe that watches many nodes (a
// tree cache) learns of changes without a goroutine per watch: it sets the
// watches with the Watched reads, which keep no Watch value, and reads the
// notifications here.
//
// fn runs on one of go-zookeeper's goroutines (the receive loop for
// notifications): it must return at once, must not block and must not call
// the client (record the path and wake a goroutine of your own). remove
// unregisters it; fn may still be running when remove returns.
// EventNotWatching events come here too when the session expires or the
// client closes, one per watched path and kind of watch whose read was
// answered, from go-zookeeper's connection goroutine; and EventWatchReset
// when a persistent watch on path or below it was set again, from the
// goroutine of the watching read that replaced it, which may run at the
// same time as the others: fn must be safe to call from two goroutines at
// once.
func (c *Client) AddWatchListener(path string, fn func(WatchEvent)) (remove func(), err error) {
	if fn == nil {
		return nil, fmt.Errorf("%w: nil watch listener", ErrInvalidArg)
	}
	if err := ValidatePath(path, false); err != nil {
		return nil, fmt.Errorf("%w: watch listener path: %w", ErrInvalidArg, err)
	}
	return c.watches.add(&watchSub{prefix: c.cfg.namespace.toServer(path), fn: fn}), nil
}
