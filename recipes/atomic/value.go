package atomic

import (
	"bytes"
	"context"

	"github.com/gocurator/curator/framework"
	"github.com/gocurator/curator/retry"
)

// Value is Curator's DistributedAtomicValue: bytes held in a node that
// participants set together. It is safe for concurrent use and has nothing
// to close.
type Value struct {
	c *core[[]byte]
}

// NewValue returns a Value at path, whose sets try under policy (which
// must not be nil) and then as opts say. It checks its arguments and sends
// nothing.
func NewValue(client *framework.Client, path string, policy retry.Policy, opts ...Option) (*Value, error) {
	c, err := newCore(client, path, policy, codec[[]byte]{
		encode: func(v []byte) []byte {
			if v == nil {
				return []byte{} // nil would be the client's default data
			}
			return bytes.Clone(v)
		},
		decode: func(_ string, b []byte) ([]byte, error) { return bytes.Clone(b), nil },
	}, opts)
	if err != nil {
		return nil, err
	}
	return &Value{c}, nil
}

// Get returns the node's bytes: nil if it does not exist.
func (v *Value) Get(ctx context.Context) ([]byte, error) { return v.c.get(ctx) }

// ForceSet sets the bytes whatever they are, creating the node (and its
// missing parents, as containers) if need be.
func (v *Value) ForceSet(ctx context.Context, b []byte) error { return v.c.forceSet(ctx, b) }

// TrySet sets the bytes, trying as the package doc says.
func (v *Value) TrySet(ctx context.Context, b []byte) (Result[[]byte], error) {
	b = bytes.Clone(b)
	return v.c.update(ctx, func([]byte) []byte { return b })
}

// CompareAndSet sets the bytes to b if they are expected now, in one try:
// it fails if the node does not exist, holds other bytes, or another
// participant writes first.
func (v *Value) CompareAndSet(ctx context.Context, expected, b []byte) (Result[[]byte], error) {
	return v.c.compareAndSet(ctx, expected, bytes.Clone(b))
}

// Initialize creates the node holding b, and returns false if it exists
// already.
func (v *Value) Initialize(ctx context.Context, b []byte) (bool, error) {
	return v.c.initialize(ctx, b)
}
