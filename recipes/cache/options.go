package cache

import (
	"fmt"
	"math"
)

// Option configures a Cache.
type Option func(*options) error

type options struct {
	maxDepth    int
	withoutData bool
	filter      func(path string) bool
	buffer      int
	workers     int
}

// DefaultBuffer is how many undelivered events a cache holds for its
// listeners before it drops them for one Overflowed event.
const DefaultBuffer = 100_000

// defaultWorkers is how many reads one cache has in flight at most.
const defaultWorkers = 16

// WithMaxDepth limits the cache to the nodes at most depth levels below
// its path: 0 caches the node alone (Curator's NodeCache), 1 the node and
// its children (PathChildrenCache, with the parent's own events too). The
// default has no limit (TreeCache, CuratorCache).
func WithMaxDepth(depth int) Option {
	return func(o *options) error {
		if depth < 0 {
			return fmt.Errorf("%w: max depth %d", ErrInvalidArg, depth)
		}
		o.maxDepth = depth
		return nil
	}
}

// WithoutData keeps each node's stat but not its data (Curator's
// cacheData(false)): the data is still read, to set the watch, and then
// dropped.
func WithoutData() Option {
	return func(o *options) error { o.withoutData = true; return nil }
}

// WithFilter caches only the nodes below the cache's path for which keep
// returns true, and nothing below a node it refuses (Curator's
// TreeCacheSelector). keep sees full paths; the cache's own node is always
// kept.
func WithFilter(keep func(path string) bool) Option {
	return func(o *options) error {
		if keep == nil {
			return fmt.Errorf("%w: nil filter", ErrInvalidArg)
		}
		o.filter = keep
		return nil
	}
}

// WithEventBuffer sets how many undelivered events the cache holds for its
// listeners (DefaultBuffer). When a new event finds the buffer full, the
// buffered events are dropped and one Overflowed event stands for them.
func WithEventBuffer(n int) Option {
	return func(o *options) error {
		if n < 1 {
			return fmt.Errorf("%w: event buffer %d", ErrInvalidArg, n)
		}
		o.buffer = n
		return nil
	}
}

func applyOptions(opts []Option) (options, error) {
	o := options{maxDepth: math.MaxInt, buffer: DefaultBuffer, workers: defaultWorkers}
	for _, opt := range opts {
		if opt == nil {
			return o, fmt.Errorf("%w: nil option", ErrInvalidArg)
		}
		if err := opt(&o); err != nil {
			return o, err
		}
	}
	return o, nil
}
