package framework

// UndoCreate runs the undo of an abandoned create of the server path full,
// whose name is unique (sequential or protected) or not.
func (c *Client) UndoCreate(full string, mode CreateMode, unique bool) {
	c.undoCreate(full, mode, unique)
}
