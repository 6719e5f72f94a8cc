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

// RemoveWatch takes a persistent watch that AddWatch set off path. A
// server before 3.9 knows no persistent watch type; there the watch is
// taken off as a data watch, which it keeps it among (and which it cannot
// hold beside a persistent one on the same path). It fails with
// zkerr.NoWatcher if the connection holds no such watch.
func (c *Conn) RemoveWatch(ctx context.Context, path string, recursive bool) error {
	typ := zkwire.WatcherPersistent
	if recursive {
		typ = zkwire.WatcherPersistentRecursive
	}
	r := request{"removeWatches", path, requestFrame + strSize(path) + 4}
	err := c.ownRequest(ctx, r, func(xid int32) []byte { return zkwire.RemoveWatchesRequest(xid, path, typ) })
	if !errors.Is(err, zkerr.MarshallingError) { // what a server before 3.9 answers to a type it does not know
		return err
	}
	typ = zkwire.WatcherData
	if !recursive {
		typ = zkwire.WatcherAny
	}
	return c.ownRequest(ctx, r, func(xid int32) []byte { return zkwire.RemoveWatchesRequest(xid, path, typ) })
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
