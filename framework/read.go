package framework

import (
	"context"

	"github.com/go-zookeeper/zk"
)

// Exists reports whether a node exists, with its stat if it does.
func (c *Client) Exists(ctx context.Context, path string) (bool, *zk.Stat, error) {
	ok, stat, _, err := c.exists(ctx, path, false)
	return ok, stat, err
}

// ExistsW is Exists that also sets a watch, which fires when the node is
// created, deleted or its data changes.
func (c *Client) ExistsW(ctx context.Context, path string) (bool, *zk.Stat, Watch, error) {
	return c.exists(ctx, path, true)
}

func (c *Client) exists(ctx context.Context, path string, watch bool) (ok bool, stat *zk.Stat, w Watch, err error) {
	if err := ValidatePath(path, false); err != nil {
		return false, nil, Watch{}, opErr("exists", path, err)
	}
	full := c.cfg.namespace.fix(path)
	err = c.do(ctx, "exists", path, func(ctx context.Context, conn *zk.Conn) error {
		return c.call(ctx, func() error {
			var err error
			if watch {
				var ch <-chan zk.Event
				ok, stat, ch, err = conn.ExistsW(full)
				w = Watch{ch, c.cfg.namespace}
			} else {
				ok, stat, err = conn.Exists(full)
			}
			return err
		}, nil)
	})
	if err != nil {
		return false, nil, Watch{}, err
	}
	return ok, stat, w, nil
}

// Get returns a node's data and stat.
func (c *Client) Get(ctx context.Context, path string) ([]byte, *zk.Stat, error) {
	data, stat, _, err := c.get(ctx, path, false)
	return data, stat, err
}

// GetW is Get that also sets a watch, which fires when the node's data
// changes or the node is deleted.
func (c *Client) GetW(ctx context.Context, path string) ([]byte, *zk.Stat, Watch, error) {
	return c.get(ctx, path, true)
}

func (c *Client) get(ctx context.Context, path string, watch bool) (data []byte, stat *zk.Stat, w Watch, err error) {
	if err := ValidatePath(path, false); err != nil {
		return nil, nil, Watch{}, opErr("get", path, err)
	}
	full := c.cfg.namespace.fix(path)
	err = c.do(ctx, "get", path, func(ctx context.Context, conn *zk.Conn) error {
		return c.call(ctx, func() error {
			var err error
			if watch {
				var ch <-chan zk.Event
				data, stat, ch, err = conn.GetW(full)
				w = Watch{ch, c.cfg.namespace}
			} else {
				data, stat, err = conn.Get(full)
			}
			return err
		}, nil)
	})
	if err != nil {
		return nil, nil, Watch{}, err
	}
	return data, stat, w, nil
}

// Children returns the names of a node's children, in no particular order.
func (c *Client) Children(ctx context.Context, path string) ([]string, *zk.Stat, error) {
	children, stat, _, err := c.children(ctx, path, false)
	return children, stat, err
}

// ChildrenW is Children that also sets a watch, which fires when a child is
// added or removed or the node is deleted.
func (c *Client) ChildrenW(ctx context.Context, path string) ([]string, *zk.Stat, Watch, error) {
	return c.children(ctx, path, true)
}

func (c *Client) children(ctx context.Context, path string, watch bool) (children []string, stat *zk.Stat, w Watch, err error) {
	if err := ValidatePath(path, false); err != nil {
		return nil, nil, Watch{}, opErr("children", path, err)
	}
	full := c.cfg.namespace.fix(path)
	err = c.do(ctx, "children", path, func(ctx context.Context, conn *zk.Conn) error {
		return c.call(ctx, func() error {
			var err error
			if watch {
				var ch <-chan zk.Event
				children, stat, ch, err = conn.ChildrenW(full)
				w = Watch{ch, c.cfg.namespace}
			} else {
				children, stat, err = conn.Children(full)
			}
			return err
		}, nil)
	})
	if err != nil {
		return nil, nil, Watch{}, err
	}
	return children, stat, w, nil
}

// Set sets a node's data if its version matches (-1 matches any).
func (c *Client) Set(ctx context.Context, path string, data []byte, version int32) (*zk.Stat, error) {
	if err := ValidatePath(path, false); err != nil {
		return nil, opErr("set", path, err)
	}
	full := c.cfg.namespace.fix(path)
	var stat *zk.Stat
	err := c.do(ctx, "set", path, func(ctx context.Context, conn *zk.Conn) error {
		return c.call(ctx, func() error {
			var err error
			stat, err = conn.Set(full, data, version)
			return err
		}, nil)
	})
	if err != nil {
		return nil, err
	}
	return stat, nil
}

// GetACL returns a node's ACL and stat.
func (c *Client) GetACL(ctx context.Context, path string) ([]zk.ACL, *zk.Stat, error) {
	if err := ValidatePath(path, false); err != nil {
		return nil, nil, opErr("getACL", path, err)
	}
	full := c.cfg.namespace.fix(path)
	var (
		acl  []zk.ACL
		stat *zk.Stat
	)
	err := c.do(ctx, "getACL", path, func(ctx context.Context, conn *zk.Conn) error {
		return c.call(ctx, func() error {
			var err error
			acl, stat, err = conn.GetACL(full)
			return err
		}, nil)
	})
	if err != nil {
		return nil, nil, err
	}
	return acl, stat, nil
}

// SetACL sets a node's ACL if its ACL version matches (-1 matches any).
func (c *Client) SetACL(ctx context.Context, path string, acl []zk.ACL, version int32) (*zk.Stat, error) {
	if err := ValidatePath(path, false); err != nil {
		return nil, opErr("setACL", path, err)
	}
	full := c.cfg.namespace.fix(path)
	var stat *zk.Stat
	err := c.do(ctx, "setACL", path, func(ctx context.Context, conn *zk.Conn) error {
		return c.call(ctx, func() error {
			var err error
			stat, err = conn.SetACL(full, acl, version)
			return err
		}, nil)
	})
	if err != nil {
		return nil, err
	}
	return stat, nil
}
