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

// AddWatch sets a persistent watch on path, recursive (on every node under
// it too) or not, on the connection in use (see the file's comment: it
// lasts as long as that connection). Its notifications reach
// Config.OnWatch; a recursive watch's never say NodeChildrenChanged. It
// fails with zkerr.ConnectionLoss when there is no connection with a
// session, and with zkerr.Unimplemented (or the connection's end) on a
// server before 3.6.
func (c *Conn) AddWatch(ctx context.Context, path string, recursive bool) error {
	mode := zkwire.AddWatchPersistent
	if recursive {
		mode = zkwire.AddWatchPersistentRecursive
	}
	return c.ownRequest(ctx, request{"addWatch", path, requestFrame + strSize(path) + 4}, func(xid int32) []byte {
		return zkwire.AddWatchRequest(xid, path, mode)
	})
}

// RemoveWatch takes a persistent watch that AddWatch set off path. It
// fails with zkerr.NoWatcher if the connection holds no such watch.
//
// A server before 3.9 knows no persistent watch type. It keeps a recursive
// watch among the data watches, and a watch that is not recursive among
// both the data and the children watches, one watch per path and
// connection of each: a one-shot watch set on path too shares the entry.
// There a kind of watch go-zookeeper holds no one-shot watch of on path is
// taken off as such; a kind it may hold one of is turned into a one-shot
// watch instead, by a watching read (exists, getChildren), so that the
// one-shot watch's caller still hears of the next change. That watch fires
// once more, and is gone.
func (c *Conn) RemoveWatch(ctx context.Context, path string, recursive bool) error {
	typ := zkwire.WatcherPersistent
	if recursive {
		typ = zkwire.WatcherPersistentRecursive
	}
	err := c.removeWatches(ctx, path, typ)
	if !errors.Is(err, zkerr.MarshallingError) { // what a server before 3.9 answers to a type it does not know
		return err
	}
	data, children := c.watches.holding(path)
	children = children && !recursive
	switch {
	case !data && recursive:
		return c.removeWatches(ctx, path, zkwire.WatcherData)
	case !data && !children:
		return c.removeWatches(ctx, path, zkwire.WatcherAny)
	}
	var errs []error
	if data {
		errs = append(errs, c.watchingRead(ctx, zkwire.OpExists, path))
	} else {
		errs = append(errs, c.removeWatches(ctx, path, zkwire.WatcherData))
	}
	switch {
	case recursive:
	case !children:
		errs = append(errs, c.removeWatches(ctx, path, zkwire.WatcherChildren))
	default:
		err := c.watchingRead(ctx, zkwire.OpGetChildren, path)
		if errors.Is(err, zkerr.NoNode) { // no node: no one-shot children watch waits there
			err = c.removeWatches(ctx, path, zkwire.WatcherChildren)
		}
		errs = append(errs, err)
	}
	return firstError(errs)
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
	if err := ctx.Err(); err != nil {
		return fmt.Errorf("%w: %w", err, ErrNotSent)
	}
	c.mu.Lock()
	if c.closed {
		c.mu.Unlock()
		return zkerr.ErrClosed
	}
	c.wg.Add(1)
	c.mu.Unlock()
	defer c.wg.Done()
	f := func() (int, error) {
		frame, err := c.tr.request(ctx, build)
		if err != nil {
			if c.isClosed() {
				return 0, fmt.Errorf("%w: %v", zkerr.ErrClosed, err)
			}
			return 0, err
		}
		return len(frame) - 4, ownCode(frame)
	}
	if c.cfg.OnRequest != nil {
		f = c.reported(r, f)
	}
	_, err := f()
	return err
}
