package framework

import (
	"context"
	"fmt"

	"github.com/gocurator/curator/listener"
)

// ErrorEpoch returns how many times the connection has entered an error
// state of the client's ErrorPolicy (Standard: Suspended or Lost; Session:
// Lost). The count moves at the transition itself, before any listener or
// call can see the new state, so a recipe that reads it just before sending
// a request learns from ErrorStateSince whether an error state came after:
// the locks read it before the listing that decides a hold, and the hold is
// lost if the count has moved since. No callback and no request.
func (c *Client) ErrorEpoch() uint64 { return c.sm.errorEpoch() }

// ErrorStateSince reports whether the connection has entered an error state
// since ErrorEpoch returned epoch, and the latest such state. To wait for
// one, wait on StateChanged and ask again.
func (c *Client) ErrorStateSince(epoch uint64) (listener.ConnectionState, bool) {
	return c.sm.errorSince(epoch)
}

// ErrorContext returns a context that ends with parent, at the first error
// state after epoch (at once if one has come already), or when the client
// closes: a recipe runs what is valid only while the connection is sound
// under it, a leader its leadership, a lock holder a wait. context.Cause
// says why: an error wrapping ErrConnectionLoss (Suspended),
// ErrSessionExpired (Lost) or ErrClosed. Call the CancelFunc when done with
// it.
func (c *Client) ErrorContext(parent context.Context, epoch uint64) (context.Context, context.CancelFunc) {
	return c.sm.errorContext(parent, epoch)
}

// InjectSessionExpiration ends the client's current session on the server,
// as Curator's ZooKeeper.injectSessionExpiration does, for tests of a
// client already running: the session is closed over a connection of the
// client's own (with the password its handshake gave), the server deletes
// its ephemeral nodes, and the client finds the session expired, reports
// Lost, and goes on with a new one (Reconnected). It returns once the
// server has closed the session.
func (c *Client) InjectSessionExpiration(ctx context.Context) error {
	hs := c.transport.Session()
	if hs.ID == 0 || c.isClosed() {
		return fmt.Errorf("%w: no session to expire", ErrNotStarted)
	}
	return c.transport.CloseSession(ctx, hs)
}
