package framework

import (
	"fmt"

	"github.com/gocurator/curator/internal/zkerr"
)

// DefaultMaxReplySize is the longest reply a client accepts from a server
// unless WithMaxReplySize says otherwise: 1,048,575 bytes, ZooKeeper's
// default jute.maxbuffer, which Java's client applies to every reply.
const DefaultMaxReplySize = 0xfffff

// ErrReplyTooLarge means a server sent a reply longer than the client
// accepts (WithMaxReplySize): the request it answered fails with it, and is
// not retried.
var ErrReplyTooLarge error = zkerr.ReplyTooLarge

// WithMaxReplySize sets the longest reply, in bytes (a frame's length,
// without its 4-byte prefix), the client accepts from a server. A longer
// reply is skipped unread, never held in memory, and the request it
// answered fails with an error wrapping ErrReplyTooLarge; the connection
// goes on (Java's client drops it). A length prefix that claims more than
// the stream holds leaves the read waiting until the connection's read
// deadline drops it. The default is DefaultMaxReplySize; raise it with the
// servers' jute.maxbuffer. n must be above 0.
func WithMaxReplySize(n int) Option {
	return func(c *config) error {
		if n <= 0 {
			return fmt.Errorf("%w: max reply size %d", ErrInvalidArg, n)
		}
		c.maxReplySize = n
		return nil
	}
}
