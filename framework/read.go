package framework

import (
	"context"

	"github.com/gocurator/curator/internal/zkconn"
)

// singleRequest is the shape of every single-request operation: validate the
// path, then in the retry loop make the request on the current connection.
func singleRequest[T any](ctx context.Context, c *Client, op, path string, f func(ctx context.Context, conn conn, full string) (T, error)) (T, error) {
	var zero T
	if err := ValidatePath(path, false); err != nil {
		return zero, opErr(op, path, err)
	}
	full := c.cfg.namespace.toServer(path)
	var out T
	err := c.retrying(ctx, op, path, func(ctx context.Context, conn conn) error {
		v, err := f(ctx, conn, full)
		out = v
		return err
	})
	if err != nil {
		return zero, err
	}
	return out, nil
}

// node is what the reads return.
type node struct {
	ok       bool
	data     []byte
	children []string
	acl      []ACL
	stat     *Stat
	watch    *zkconn.Watch
}

// Exists reports whether a node exists, with its stat if it does; a missing
// node's stat is nil, as Curator's checkExists returns null.
func (c *Client) Exists(ctx context.Context, path string) (bool, *Stat, error) {
	n, err := c.exists(ctx, path, zkconn.NoWatch)
	return n.ok, n.stat, err
}

// ExistsW is Exists that also sets a watch, which fires when the node is
// created, deleted or its data changes.
func (c *Client) ExistsW(ctx context.Context, path string) (bool, *Stat, Watch, error) {
	n, err := c.exists(ctx, path, zkconn.Watched)
	return n.ok, n.stat, c.watchOf(n, path), err
}

// ExistsWatched is ExistsW for a watch listener (AddWatchListener): it sets
// the same watch, but returns and keeps no Watch value for it; its
// notification reaches the watch listeners.
func (c *Client) ExistsWatched(ctx context.Context, path string) (bool, *Stat, error) {
	n, err := c.exists(ctx, path, zkconn.Listened)
	return n.ok, n.stat, err
}

func (c *Client) exists(ctx context.Context, path string, watch zkconn.WatchMode) (node, error) {
	n, err := singleRequest(ctx, c, "exists", path, func(ctx context.Context, conn conn, full string) (node, error) {
		ok, stat, w, err := conn.Exists(ctx, full, watch)
		return node{ok: ok, stat: statOf(stat), watch: w}, err
	})
	if err == nil && watch != zkconn.NoWatch {
		c.oneShotSet(path, false)
	}
	return n, err
}

// Get returns a node's data and stat.
func (c *Client) Get(ctx context.Context, path string) ([]byte, *Stat, error) {
	n, err := c.get(ctx, path, zkconn.NoWatch)
	return n.data, n.stat, err
}

// GetW is Get that also sets a watch, which fires when the node's data
// changes or the node is deleted.
func (c *Client) GetW(ctx context.Context, path string) ([]byte, *Stat, Watch, error) {
	n, err := c.get(ctx, path, zkconn.Watched)
	return n.data, n.stat, c.watchOf(n, path), err
}

// GetWatched is GetW for a watch listener (AddWatchListener): it sets the
// same watch, but returns and keeps no Watch value for it; its notification
// reaches the watch listeners. A recipe that watches many nodes saves the
// Watch's memory: the client keeps only a small entry per watched path,
// which tells it that watches are set again after a reconnect (it holds
// replies back until they are).
func (c *Client) GetWatched(ctx context.Context, path string) ([]byte, *Stat, error) {
	n, err := c.get(ctx, path, zkconn.Listened)
	return n.data, n.stat, err
}

func (c *Client) get(ctx context.Context, path string, watch zkconn.WatchMode) (node, error) {
	n, err := singleRequest(ctx, c, "get", path, func(ctx context.Context, conn conn, full string) (node, error) {
		data, stat, w, err := conn.Get(ctx, full, watch)
		return node{data: data, stat: statOf(stat), watch: w}, err
	})
	if err == nil && watch != zkconn.NoWatch {
		c.oneShotSet(path, false)
	}
	return n, err
}

// Children returns the names of a node's children, in no particular order.
func (c *Client) Children(ctx context.Context, path string) ([]string, *Stat, error) {
	n, err := c.children(ctx, path, zkconn.NoWatch)
	return n.children, n.stat, err
}

// ChildrenW is Children that also sets a watch, which fires when a child is
// added or removed or the node is deleted.
func (c *Client) ChildrenW(ctx context.Context, path string) ([]string, *Stat, Watch, error) {
	n, err := c.children(ctx, path, zkconn.Watched)
	return n.children, n.stat, c.watchOf(n, path), err
}

// ChildrenWatched is ChildrenW for a watch listener (AddWatchListener): it
// sets the same watch, but returns and keeps no Watch value for it; its
// notification reaches the watch listeners.
func (c *Client) ChildrenWatched(ctx context.Context, path string) ([]string, *Stat, error) {
	n, err := c.children(ctx, path, zkconn.Listened)
	return n.children, n.stat, err
}

func (c *Client) children(ctx context.Context, path string, watch zkconn.WatchMode) (node, error) {
	n, err := singleRequest(ctx, c, "children", path, func(ctx context.Context, conn conn, full string) (node, error) {
		children, stat, w, err := conn.Children(ctx, full, watch)
		return node{children: children, stat: statOf(stat), watch: w}, err
	})
	if err == nil && watch != zkconn.NoWatch {
		c.oneShotSet(path, true)
	}
	return n, err
}

// Set sets a node's data if its version matches (-1 matches any).
func (c *Client) Set(ctx context.Context, path string, data []byte, version int32) (*Stat, error) {
	return singleRequest(ctx, c, "set", path, func(ctx context.Context, conn conn, full string) (*Stat, error) {
		stat, err := conn.Set(ctx, full, data, version)
		return statOf(stat), err
	})
}

// GetACL returns a node's ACL and stat.
func (c *Client) GetACL(ctx context.Context, path string) ([]ACL, *Stat, error) {
	n, err := singleRequest(ctx, c, "getACL", path, func(ctx context.Context, conn conn, full string) (node, error) {
		acl, stat, err := conn.GetACL(ctx, full)
		return node{acl: aclsOf(acl), stat: statOf(stat)}, err
	})
	return n.acl, n.stat, err
}

// SetACL sets a node's ACL if its ACL version matches (-1 matches any).
func (c *Client) SetACL(ctx context.Context, path string, acl []ACL, version int32) (*Stat, error) {
	return singleRequest(ctx, c, "setACL", path, func(ctx context.Context, conn conn, full string) (*Stat, error) {
		stat, err := conn.SetACL(ctx, full, zkACLs(acl), version)
		return statOf(stat), err
	})
}

// Sync makes the server the client is connected to catch up with the
// ensemble's leader, as Curator's sync does: a read made after Sync returns
// sees every change committed before Sync was called, whichever server
// made it.
func (c *Client) Sync(ctx context.Context, path string) error {
	_, err := singleRequest(ctx, c, "sync", path, func(ctx context.Context, conn conn, full string) (struct{}, error) {
		return struct{}{}, conn.Sync(ctx, full)
	})
	return err
}
