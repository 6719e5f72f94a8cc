package framework

// UndoCreate runs the undo of an abandoned create of the server path full.
func (c *Client) UndoCreate(full string, mode CreateMode) { c.undoCreate(full, mode) }
