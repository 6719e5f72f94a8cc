package locks

import (
	"bytes"
	"fmt"
)

// Option configures a Mutex or a ReadWriteLock.
type Option func(*options)

type options struct {
	data []byte // nil: the client's default data
}

// WithNodeData sets the data of the lock's nodes (Curator's lockNodeBytes
// and InterProcessReadWriteLock's lockData): what another participant, or
// an operator listing the lock, reads to learn who holds or waits. Without
// it, nodes carry the client's default data (the local IP address).
func WithNodeData(data []byte) Option {
	return func(o *options) { o.data = bytes.Clone(data) }
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
