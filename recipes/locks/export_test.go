package locks

import (
	"github.com/gocurator/curator/framework"
)

// WriteDriver exposes the read-write lock's writer driver to the
// conformance test.
var WriteDriver = writeDriver{}

// ReadDriver exposes the reader driver to the benchmarks.
var ReadDriver = readDriver{}

// ConnWatch exposes an acquire's connection watch to the tests.
type ConnWatch = connWatch

// WatchConnection starts a connection watch, as an acquire does.
func WatchConnection(c *framework.Client) *ConnWatch { return watchConnection(c) }

// Mark is the watch's count before a deciding listing.
func (w *connWatch) Mark() int { return w.mark() }

// NewHold makes the hold of the node at path, as an acquire does once the
// listing after mark found it holding.
func NewHold(c *framework.Client, path string, w *ConnWatch, mark int) *Hold {
	return newHold(c, path, nil, nil, w, mark)
}
