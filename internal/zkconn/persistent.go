package zkconn

// Persistent watches, for the framework's AddWatch: requests of the
// transport's own (own.go), since go-zookeeper v1.0.4 cannot send them.

import (
	"context"
	"errors"
	"fmt"

	"github.com/gocurator/curator/internal/zkerr"
	"github.com/gocurator/curator/internal/zkwire"
)

// ownCode returns the error of an own request's reply frame.
func ownCode(frame []byte) error {
	_, _, code, ok := zkwire.ReplyHeader(frame)
	switch {
	case !ok:
		return fmt.Errorf("%w: a reply too short for its header", zkerr.MarshallingError)
	case code != 0:
		return zkerr.Code(code)
	}
	return nil
}

// A server before 3.9 keeps one watch per path and connection among its
// data watches and one among its children watches, and addWatch, of either
// mode, sets both to its mode. A one-shot watch set on the same path
// (exists and getData among the data watches, getChildren among the
// children watches) shares that entry: set later, it turns the entry into
// a one-shot watch (the framework then sets the persistent watch again);
// set earlier, it is turned into the persistent watch, which still fires
// for it, except that a recursive watch never tells of children changes.
// So AddWatch and RemoveWatch take care not to silence a one-shot watch
// that may wait on the path.

// AddWatch sets a persistent watch on path, recursive (on every node under
// it too) or not, on the connection in use (see the file's comment: it
// lasts as long as that connection). Its notifications reach
// Config.OnWatch; a recursive watch's never say NodeChildrenChanged. It
// fails with zkerr.ConnectionLoss when there is no connection with a
// session, and with zkerr.Unimplemented (or the connection's end) on a
// server before 3.6.
//
// A recursive watch set where go-zookeeper may hold a one-shot children
// watch on path is followed by a watching getChildren, which gives the
// children watches' entry back to a one-shot watch on a server before 3.9
// (there the recursive watch needs none of it), so that watch still hears
// of the next children change; on a later server it sets a one-shot
// children watch beside the persistent one, which fires once.
func (c *Conn) AddWatch(ctx context.Context, path string, recursive bool) error {
	mode := zkwire.AddWatchPersistent
	if recursive {
		mode = zkwire.AddWatchPersistentRecursive
	}
	err := c.ownRequest(ctx, request{"addWatch", path, requestFrame + strSize(path) + 4}, func(xid int32) []byte {
		return zkwire.AddWatchRequest(xid, path, mode)
	})
	if err != nil || !recursive {
		return err
	}
	if _, children := c.watches.oneShotKinds(path); children {
		return c.childrenWatch(ctx, path)
	}
	return nil
}

// RemoveWatch takes a persistent watch that AddWatch set off path; keep
// says that the watch of the other mode stays on path. It fails with
// zkerr.NoWatcher if the connection holds no such watch.
//
// A server before 3.9 knows no persistent watch type, and the two modes
// share its entries (see the file's comment). There a removal with the
// other mode kept sets that one again. Otherwise, of the two entries, one
// that go-zookeeper may hold a one-shot watch on path of is turned into a
// one-shot watch, by a watching read (exists, getChildren), so that its
// caller still hears of the next change (it fires once more, and is gone);
// the others are taken off. A watching read made meanwhile waits for the
// removal.
func (c *Conn) RemoveWatch(ctx context.Context, path string, recursive, keep bool) error {
	typ := zkwire.WatcherPersistent
	if recursive {
		typ = zkwire.WatcherPersistentRecursive
	}
	err := c.removeWatches(ctx, path, typ)
	if !errors.Is(err, zkerr.MarshallingError) { // what a server before 3.9 answers to a type it does not know
		return err
	}
	if keep {
		return c.AddWatch(ctx, path, !recursive)
	}
	data, children := c.watches.beginRemoval(path)
	defer c.watches.endRemoval()
	if !data && !children {
		return c.removeWatches(ctx, path, zkwire.WatcherAny)
	}
	var errs []error
	if data {
		errs = append(errs, c.watchingRead(ctx, zkwire.OpExists, path))
	} else {
		errs = append(errs, c.removeWatches(ctx, path, zkwire.WatcherData))
	}
	if children {
		errs = append(errs, c.childrenWatch(ctx, path))
	} else {
		errs = append(errs, c.removeWatches(ctx, path, zkwire.WatcherChildren))
	}
	return firstError(errs)
}

// childrenWatch turns the children watches' entry on path into a one-shot
// watch, by a watching getChildren; a missing node, on which no one-shot
// children watch can wait, has the entry taken off instead.
func (c *Conn) childrenWatch(ctx context.Context, path string) error {
	err := c.watchingRead(ctx, zkwire.OpGetChildren, path)
	if errors.Is(err, zkerr.NoNode) {
		err = c.removeWatches(ctx, path, zkwire.WatcherChildren)
		if errors.Is(err, zkerr.NoWatcher) {
			err = nil
		}
	}
	return err
}

// removeWatches sends removeWatches for the watch of typ on path.
func (c *Conn) removeWatches(ctx context.Context, path string, typ int32) error {
	r := request{"removeWatches", path, requestFrame + strSize(path) + 4}
	return c.ownRequest(ctx, r, func(xid int32) []byte { return zkwire.RemoveWatchesRequest(xid, path, typ) })
}

// watchingRead sends an exists or getChildren that sets a one-shot watch on
// path, on the server only: go-zookeeper holds no watch for it, and its
// notification reaches Config.OnWatch and go-zookeeper's own watches on
// path. An exists of a missing node sets its watch too.
func (c *Conn) watchingRead(ctx context.Context, op int32, path string) error {
	name := "exists"
	if op == zkwire.OpGetChildren {
		name = "children"
	}
	err := c.ownRequest(ctx, request{name, path, requestFrame + strSize(path) + 1}, func(xid int32) []byte {
		return zkwire.WatchingReadRequest(xid, op, path)
	})
	if op == zkwire.OpExists && errors.Is(err, zkerr.NoNode) {
		return nil
	}
	return err
}

// ownRequest sends an own request and returns its reply's error. Close
// waits for it, and ends it. A ctx that has ended already gives an error
// that wraps it, the request unsent, as call does.
func (c *Conn) ownRequest(ctx context.Context, r request, build func(xid int32) []byte) error {
	_, err := c.ownReply(ctx, r, build)
	return err
}

// ownReply is ownRequest that also returns the reply's frame, when its
// error code is 0.
func (c *Conn) ownReply(ctx context.Context, r request, build func(xid int32) []byte) ([]byte, error) {
	if err := ctx.Err(); err != nil {
		return nil, fmt.Errorf("%w: %w", err, ErrNotSent)
	}
	c.mu.Lock()
	if c.closed {
		c.mu.Unlock()
		return nil, zkerr.ErrClosed
	}
	c.wg.Add(1)
	c.mu.Unlock()
	defer c.wg.Done()
	var reply []byte
	f := func() (int, error) {
		frame, err := c.tr.request(ctx, build)
		if err != nil {
			if c.isClosed() {
				return 0, fmt.Errorf("%w: %v", zkerr.ErrClosed, err)
			}
			return 0, err
		}
		if err := ownCode(frame); err != nil {
			return len(frame) - 4, err
		}
		reply = frame
		return len(frame) - 4, nil
	}
	if c.cfg.OnRequest != nil {
		f = c.reported(r, f)
	}
	_, err := f()
	return reply, err
}

// firstError is the first error in errs that is not zkerr.NoWatcher (a
// kind already off), or else the first error.
func firstError(errs []error) error {
	for _, err := range errs {
		if err != nil && !errors.Is(err, zkerr.NoWatcher) {
			return err
		}
	}
	for _, err := range errs {
		if err != nil {
			return err
		}
	}
	return nil
}
