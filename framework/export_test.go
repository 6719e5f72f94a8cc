package framework

import "context"

// UndoCreate runs the undo of an abandoned create of the server path full,
// whose name is unique (sequential or protected) or not.
func (c *Client) UndoCreate(full string, mode CreateMode, unique bool) {
	c.undoCreate(full, undoVersion(mode, unique))
}

// FindProtected runs the search a protected create's retry makes, under
// the server path parent.
func (c *Client) FindProtected(ctx context.Context, parent, id string, mode CreateMode) (string, error) {
	var found string
	err := c.retrying(ctx, "find", parent, func(ctx context.Context, conn conn) error {
		var err error
		found, err = c.findProtected(ctx, conn, parent, id, mode)
		return err
	})
	return found, err
}

// JanitorPending is the number of background tasks not yet done.
func (c *Client) JanitorPending() int { return c.janitor.pending() }
