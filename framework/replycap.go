package framework

import (
	"errors"
	"fmt"
)

// DefaultMaxReplySize is the longest reply a client accepts from a server
// unless WithMaxReplySize says otherwise: 1,048,575 bytes, ZooKeeper's
// default jute.maxbuffer, which Java's client applies to every reply.
const DefaultMaxReplySize = 0xfffff

// ErrReplyTooLarge means a server sent a reply longer than the client
// accepts (WithMaxReplySize): the request it answered fails with it, and is
// not retried.
var ErrReplyTooLarge = errors.New("curator: reply larger than the client accepts")

// WithMaxReplySize sets the longest reply, in bytes (a frame's length,
// without its 4-byte prefix), the client accepts from a server. A reply
// that claims more is not read: the connection is dropped, as Java's client
// drops it, and the request it answered fails with an error wrapping
// ErrReplyTooLarge instead of the client allocating what the reply claims.
// The default is DefaultMaxReplySize; raise it with the servers'
// jute.maxbuffer. n must be above 0.
func WithMaxReplySize(n int) Option {
	return func(c *config) error {
		if n <= 0 {
			return fmt.Errorf("%w: max reply size %d", ErrInvalidArg, n)
		}
		c.maxReplySize = n
		return nil
	}
}
