package node

import (
	"fmt"
	"time"

	"github.com/gocurator/curator/framework"
)

// Option configures a Node.
type Option func(*options)

type options struct {
	mode      framework.CreateMode
	ttl       time.Duration
	protected bool
	noParents bool
}

// WithMode sets the node's mode (default framework.Ephemeral, Curator's
// PersistentEphemeralNode). A sequential mode gets one sequence number for
// good: see the package documentation.
func WithMode(m framework.CreateMode) Option { return func(o *options) { o.mode = m } }

// WithTTL sets the time to live of a node in a TTL mode
// (framework.PersistentWithTTL, framework.PersistentSequentialWithTTL); it
// is required for those modes and refused for the others.
func WithTTL(d time.Duration) Option { return func(o *options) { o.ttl = d } }

// WithProtection gives the node a protected name, _c_<uuid>-<name>, as
// Curator's useProtection does. Sequential modes always have one.
func WithProtection() Option { return func(o *options) { o.protected = true } }

// WithoutParents creates the node without creating its missing parents
// (Curator's useParentCreation false): until they exist, the node is not
// created and WaitForInitialCreate reports it. By default missing parents
// are created as containers.
func WithoutParents() Option { return func(o *options) { o.noParents = true } }

// applyOptions returns the options opts set for a node at path.
func applyOptions(path string, opts []Option) (options, error) {
	o := options{mode: framework.Ephemeral}
	for _, opt := range opts {
		if opt == nil {
			return o, fmt.Errorf("%w: node %s: nil option", ErrInvalidArg, path)
		}
		opt(&o)
	}
	ttlMode := o.mode == framework.PersistentWithTTL || o.mode == framework.PersistentSequentialWithTTL
	switch {
	case o.mode < framework.Persistent || o.mode > framework.PersistentSequentialWithTTL:
		return o, fmt.Errorf("%w: node %s: create mode %d", ErrInvalidArg, path, o.mode)
	case ttlMode && o.ttl <= 0:
		return o, fmt.Errorf("%w: node %s: a TTL mode needs a positive TTL (WithTTL)", ErrInvalidArg, path)
	case !ttlMode && o.ttl != 0:
		return o, fmt.Errorf("%w: node %s: a TTL needs a TTL mode", ErrInvalidArg, path)
	}
	if o.mode.IsSequential() {
		o.protected = true
	}
	return o, nil
}
