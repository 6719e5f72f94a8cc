package framework

import (
	"context"

	"github.com/go-zookeeper/zk"
)

// singleRequest is the shape of every single-request operation: validate the path,
// then in the retry loop make the request on the current connection. f's
// result is read only when it succeeded, never while an abandoned call may
// still be writing it.
func singleRequest[T any](ctx context.Context, c *Client, op, path string, f func(conn *zk.Conn, full string) (T, error)) (T, error) {
	var zero T
	if err := ValidatePath(path, false); err != nil {
		return zero, opErr(op, path, err)
	}
	full := c.cfg.namespace.toServer(path)
	var out T
	err := c.retrying(ctx, op, path, func(ctx context.Context, conn *zk.Conn) error {
		return c.callCancellable(ctx, func() error {
			v, err := f(conn, full)
			out = v
			return err
		}, nil)
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
	watch    Watch
}

// Exists reports whether a node exists, with its stat if it does; a missing
// node's stat is nil, as Curator's checkExists returns null.
func (c *Client) Exists(ctx context.Context, path string) (bool, *Stat, error) {
	n, err := singleRequest(ctx, c, "exists", path, func(conn *zk.Conn, full string) (node, error) {
		ok, stat, err := conn.Exists(full)
		return node{ok: ok, stat: existing(ok, stat)}, err
	})
	return n.ok, n.stat, err
}

// ExistsW is Exists that also sets a watch, which fires when the node is
// created, deleted or its data changes.
func (c *Client) ExistsW(ctx context.Context, path string) (bool, *Stat, Watch, error) {
	n, err := singleRequest(ctx, c, "exists", path, func(conn *zk.Conn, full string) (node, error) {
		ok, stat, ch, err := conn.ExistsW(full)
		if err == nil {
			kind := watchExist
			if ok {
				kind = watchData
			}
			c.mirror.added(full, kind)
		}
		return node{ok: ok, stat: existing(ok, stat), watch: Watch{ch, c.cfg.namespace, path}}, err
	})
	return n.ok, n.stat, n.watch, err
}

// Get returns a node's data and stat.
func (c *Client) Get(ctx context.Context, path string) ([]byte, *Stat, error) {
	n, err := singleRequest(ctx, c, "get", path, func(conn *zk.Conn, full string) (node, error) {
		data, stat, err := conn.Get(full)
		return node{data: data, stat: statOf(stat)}, err
	})
	return n.data, n.stat, err
}

// GetW is Get that also sets a watch, which fires when the node's data
// changes or the node is deleted.
func (c *Client) GetW(ctx context.Context, path string) ([]byte, *Stat, Watch, error) {
	n, err := singleRequest(ctx, c, "get", path, func(conn *zk.Conn, full string) (node, error) {
		data, stat, ch, err := conn.GetW(full)
		if err == nil {
			c.mirror.added(full, watchData)
		}
		return node{data: data, stat: statOf(stat), watch: Watch{ch, c.cfg.namespace, path}}, err
	})
	return n.data, n.stat, n.watch, err
}

// Children returns the names of a node's children, in no particular order.
func (c *Client) Children(ctx context.Context, path string) ([]string, *Stat, error) {
	n, err := singleRequest(ctx, c, "children", path, func(conn *zk.Conn, full string) (node, error) {
		children, stat, err := conn.Children(full)
		return node{children: children, stat: statOf(stat)}, err
	})
	return n.children, n.stat, err
}

// ChildrenW is Children that also sets a watch, which fires when a child is
// added or removed or the node is deleted.
func (c *Client) ChildrenW(ctx context.Context, path string) ([]string, *Stat, Watch, error) {
	n, err := singleRequest(ctx, c, "children", path, func(conn *zk.Conn, full string) (node, error) {
		children, stat, ch, err := conn.ChildrenW(full)
		if err == nil {
			c.mirror.added(full, watchChild)
		}
		return node{children: children, stat: statOf(stat), watch: Watch{ch, c.cfg.namespace, path}}, err
	})
	return n.children, n.stat, n.watch, err
}

// Set sets a node's data if its version matches (-1 matches any).
func (c *Client) Set(ctx context.Context, path string, data []byte, version int32) (*Stat, error) {
	return singleRequest(ctx, c, "set", path, func(conn *zk.Conn, full string) (*Stat, error) {
		stat, err := conn.Set(full, data, version)
		return statOf(stat), err
	})
}

// GetACL returns a node's ACL and stat.
func (c *Client) GetACL(ctx context.Context, path string) ([]ACL, *Stat, error) {
	n, err := singleRequest(ctx, c, "getACL", path, func(conn *zk.Conn, full string) (node, error) {
		acl, stat, err := conn.GetACL(full)
		return node{acl: aclsOf(acl), stat: statOf(stat)}, err
	})
	return n.acl, n.stat, err
}

// SetACL sets a node's ACL if its ACL version matches (-1 matches any).
func (c *Client) SetACL(ctx context.Context, path string, acl []ACL, version int32) (*Stat, error) {
	return singleRequest(ctx, c, "setACL", path, func(conn *zk.Conn, full string) (*Stat, error) {
		stat, err := conn.SetACL(full, zkACLs(acl), version)
		return statOf(stat), err
	})
}

// existing is the stat of a node that exists, nil for one that does not
// (go-zookeeper gives a zero stat then).
func existing(ok bool, stat *zk.Stat) *Stat {
	if !ok {
		return nil
	}
	return statOf(stat)
}
