package framework

import (
	"context"
	"errors"
	"fmt"

	"github.com/gocurator/curator/internal/zkconn"
	"github.com/gocurator/curator/retry"
)

// DeleteOption configures Delete.
type DeleteOption func(*deleteOpts)

type deleteOpts struct {
	version    int32
	recursive  bool
	guaranteed bool
	quietly    bool
}

// WithVersion deletes only if the node's data version matches.
func WithVersion(v int32) DeleteOption { return func(o *deleteOpts) { o.version = v } }

// WithChildren deletes the node's children first, recursively
// (deletingChildrenIfNeeded).
func WithChildren() DeleteOption { return func(o *deleteOpts) { o.recursive = true } }

// Guaranteed keeps deleting in the background, while the client is open,
// when the delete fails on the connection or ctx ends first. The error is
// still returned to the caller.
func Guaranteed() DeleteOption { return func(o *deleteOpts) { o.guaranteed = true } }

// Quietly makes deleting a node that does not exist a success.
func Quietly() DeleteOption { return func(o *deleteOpts) { o.quietly = true } }

// Delete deletes a node.
func (c *Client) Delete(ctx context.Context, path string, opts ...DeleteOption) error {
	o := deleteOpts{version: -1}
	for _, opt := range opts {
		if opt == nil {
			return opErr("delete", path, fmt.Errorf("%w: nil option", ErrInvalidArg))
		}
		opt(&o)
	}
	if err := ValidatePath(path, false); err != nil {
		return opErr("delete", path, err)
	}
	full := c.cfg.namespace.toServer(path)
	if full == c.cfg.chroot {
		return opErr("delete", path, fmt.Errorf("%w: cannot delete the connect string's chroot", ErrInvalidPath))
	}
	err := c.retrying(ctx, "delete", path, func(ctx context.Context, conn conn) error {
		if o.recursive {
			if err := c.deleteChildren(ctx, conn, full); err != nil {
				return err
			}
		}
		return conn.Delete(ctx, full, o.version)
	})
	if errors.Is(err, ErrNoNode) && o.quietly {
		return nil
	}
	if err != nil && o.guaranteed && (retry.IsRetryable(err) || ctx.Err() != nil) {
		c.janitor.add("guaranteed delete", full, func(ctx context.Context) error {
			if o.recursive {
				err := c.retrying(ctx, "delete", c.cfg.namespace.fromServer(full), func(ctx context.Context, conn conn) error {
					return c.deleteChildren(ctx, conn, full)
				})
				if err != nil {
					return err
				}
			}
			return c.deleteRaw(ctx, full, o.version)
		})
	}
	return err
}

// deleteChildren deletes everything below full, depth first.
func (c *Client) deleteChildren(ctx context.Context, conn conn, full string) error {
	children, _, _, err := conn.Children(ctx, full, zkconn.NoWatch)
	if errors.Is(err, ErrNoNode) {
		return nil
	}
	if err != nil {
		return err
	}
	for _, child := range children {
		p := JoinPath(full, child)
		if err := c.deleteChildren(ctx, conn, p); err != nil {
			return err
		}
		if err := conn.Delete(ctx, p, -1); err != nil && !errors.Is(err, ErrNoNode) {
			return err
		}
	}
	return nil
}

// deleteRaw deletes the server path full; a node already gone is a success.
// Background tasks use it.
func (c *Client) deleteRaw(ctx context.Context, full string, version int32) error {
	err := c.retrying(ctx, "delete", c.cfg.namespace.fromServer(full), func(ctx context.Context, conn conn) error {
		return conn.Delete(ctx, full, version)
	})
	if errors.Is(err, ErrNoNode) {
		return nil
	}
	return err
}
