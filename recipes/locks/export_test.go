package locks

import (
	"github.com/gocurator/curator/framework"
)

// WriteDriver exposes the read-write lock's writer driver to the
// conformance test.
var WriteDriver = writeDriver{}

// ReadDriver exposes the reader driver to the benchmarks.
var ReadDriver = readDriver{}

// NewHold makes the hold of the node at path, as an acquire does once the
// listing made during sess found it holding.
func NewHold(c *framework.Client, path string, sess *framework.Session) *Hold {
	return newHold(c, path, nil, nil, sess, report{})
}

// SemaphoreMutexTakers counts the holds a SemaphoreMutex remembers as taken
// without an Owner.
func SemaphoreMutexTakers(m *SemaphoreMutex) int {
	m.mu.Lock()
	defer m.mu.Unlock()
	return len(m.takers)
}
