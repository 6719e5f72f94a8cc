package locks

import (
	"bytes"
	"fmt"
)

// Option configures a Mutex or a ReadWriteLock.
type Option func(*options)

type options struct {
	data  []byte // nil: the client's default data
	label string // WithLabel's
}

// WithNodeData sets the data of the lock's nodes (Curator's lockNodeBytes
// and InterProcessReadWriteLock's lockData): what another participant, or
// an operator listing the lock, reads to learn who holds or waits. Without
// it, nodes carry the client's default data (the local IP address).
func WithNodeData(data []byte) Option {
	return func(o *options) { o.data = bytes.Clone(data) }
}

// WithLabel names the lock for the client's hooks (framework.WithHooks):
// its acquires, releases and losses carry the label, which metrics may use
// where a path, whose number has no bound, may not.
func WithLabel(label string) Option {
	return func(o *options) { o.label = label }
}

// applyOptions returns the options opts set, or ErrInvalidArg for a nil one.
func applyOptions(opts []Option) (options, error) {
	var o options
	for _, opt := range opts {
		if opt == nil {
			return o, fmt.Errorf("%w: nil option", ErrInvalidArg)
		}
		opt(&o)
	}
	return o, nil
}
