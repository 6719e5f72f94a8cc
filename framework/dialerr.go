package framework

import "fmt"

// noteDial records how the latest dial ended, for notConnected.
func (c *Client) noteDial(err error) {
	c.mu.Lock()
	c.dialErr = err
	c.mu.Unlock()
}

// notConnected is err, the reason a wait for a connection gave up, with why
// the latest attempt to connect failed, if it did.
func (c *Client) notConnected(err error) error {
	c.mu.Lock()
	dialErr := c.dialErr
	c.mu.Unlock()
	if dialErr == nil {
		return err
	}
	return fmt.Errorf("%w; the last attempt to connect failed: %w", err, dialErr)
}
