package framework

import (
	"context"

	"github.com/go-zookeeper/zk"
)

// run is the shape of every single-request operation: validate the path,
// then in the retry loop make the request on the current connection. f's
// result is read only when it succeeded, never while an abandoned call may
// still be writing it.
func run[T any](ctx context.Context, c *Client, op, path string, f func(conn *zk.Conn, full string) (T, error)) (T, error) {
	var zero T
	if err := ValidatePath(path, false); err != nil {
		return zero, opErr(op, path, err)
	}
	full := c.cfg.namespace.fix(path)
	var out T
	err := c.do(ctx, op, path, func(ctx context.Context, conn *zk.Conn) error {
		return c.call(ctx, func() error {
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
	acl      []zk.ACL
	stat     *zk.Stat
	watch    Watch
}

// Exists reports whether a node exists, with its stat if it does.
func (c *Client) Exists(ctx context.Context, path string) (bool, *zk.Stat, error) {
	n, err := run(ctx, c, "exists", path, func(conn *zk.Conn, full string) (node, error) {
		ok, stat, err := conn.Exists(full)
		return node{ok: ok, stat: stat}, err
	})
	return n.ok, n.stat, err
}

// ExistsW is Exists that also sets a watch, which fires when the node is
// created, deleted or its data changes.
func (c *Client) ExistsW(ctx context.Context, path string) (bool, *zk.Stat, Watch, error) {
	n, err := run(ctx, c, "exists", path, func(conn *zk.Conn, full string) (node, error) {
		ok, stat, ch, err := conn.ExistsW(full)
		return node{ok: ok, stat: stat, watch: Watch{ch, c.cfg.namespace}}, err
	})
	return n.ok, n.stat, n.watch, err
}

// Get returns a node's data and stat.
func (c *Client) Get(ctx context.Context, path string) ([]byte, *zk.Stat, error) {
	n, err := run(ctx, c, "get", path, func(conn *zk.Conn, full string) (node, error) {
		data, stat, err := conn.Get(full)
		return node{data: data, stat: stat}, err
	})
	return n.data, n.stat, err
}

// GetW is Get that also sets a watch, which fires when the node's data
// changes or the node is deleted.
func (c *Client) GetW(ctx context.Context, path string) ([]byte, *zk.Stat, Watch, error) {
	n, err := run(ctx, c, "get", path, func(conn *zk.Conn, full string) (node, error) {
		data, stat, ch, err := conn.GetW(full)
		return node{data: data, stat: stat, watch: Watch{ch, c.cfg.namespace}}, err
	})
	return n.data, n.stat, n.watch, err
}

// Children returns the names of a node's children, in no particular order.
func (c *Client) Children(ctx context.Context, path string) ([]string, *zk.Stat, error) {
	n, err := run(ctx, c, "children", path, func(conn *zk.Conn, full string) (node, error) {
		children, stat, err := conn.Children(full)
		return node{children: children, stat: stat}, err
	})
	return n.children, n.stat, err
}

// ChildrenW is Children that also sets a watch, which fires when a child is
// added or removed or the node is deleted.
func (c *Client) ChildrenW(ctx context.Context, path string) ([]string, *zk.Stat, Watch, error) {
	n, err := run(ctx, c, "children", path, func(conn *zk.Conn, full string) (node, error) {
		children, stat, ch, err := conn.ChildrenW(full)
		return node{children: children, stat: stat, watch: Watch{ch, c.cfg.namespace}}, err
	})
	return n.children, n.stat, n.watch, err
}

// Set sets a node's data if its version matches (-1 matches any).
func (c *Client) Set(ctx context.Context, path string, data []byte, version int32) (*zk.Stat, error) {
	return run(ctx, c, "set", path, func(conn *zk.Conn, full string) (*zk.Stat, error) {
		return conn.Set(full, data, version)
	})
}

// GetACL returns a node's ACL and stat.
func (c *Client) GetACL(ctx context.Context, path string) ([]zk.ACL, *zk.Stat, error) {
	n, err := run(ctx, c, "getACL", path, func(conn *zk.Conn, full string) (node, error) {
		acl, stat, err := conn.GetACL(full)
		return node{acl: acl, stat: stat}, err
	})
	return n.acl, n.stat, err
}

// SetACL sets a node's ACL if its ACL version matches (-1 matches any).
func (c *Client) SetACL(ctx context.Context, path string, acl []zk.ACL, version int32) (*zk.Stat, error) {
	return run(ctx, c, "setACL", path, func(conn *zk.Conn, full string) (*zk.Stat, error) {
		return conn.SetACL(full, acl, version)
	})
}
