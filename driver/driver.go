package driver

import (
	"context"
	"errors"

	"github.com/gocurator/curator/framework"
)

// LockDriver makes a lock's two policy decisions. Implementations must be safe
// for concurrent use; Standard is the reference implementation, and
// recipestest.TestLockDriver checks others.
type LockDriver interface {
	// CreatesTheLock creates this participant's node. path is the lock's
	// directory joined with the lock name (e.g. "/locks/app/lock-"); data is
	// the node's data (nil: the client's default). It returns the created
	// node's full path.
	CreatesTheLock(ctx context.Context, client *framework.Client, path string, data []byte) (string, error)

	// GetsTheLock decides, from all children of the lock's directory sorted by
	// SortChildren, whether the participant whose node is named ourNode holds
	// the lock when at most maxLeases may. If not, it names the child to
	// watch: the engine waits for that node to go, then asks again. If ourNode
	// is not among children, it returns an error wrapping ErrNodeMissing.
	GetsTheLock(children []string, ourNode string, maxLeases int) (Result, error)

	// FixForSorting returns the sort key of a child's name.
	FixForSorting(name, lockName string) string
}

// Result is GetsTheLock's answer.
type Result struct {
	Held  bool   // the participant holds the lock
	Watch string // otherwise: the child (a name, not a path) to wait on
}

// ErrNodeMissing means the participant's own node is not among the lock's
// children: it was deleted (session expiry, an administrator). The engine
// creates a fresh node and tries again, or reports the loss to a holder.
var ErrNodeMissing = errors.New("our lock node is missing")
