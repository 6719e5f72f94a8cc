package atomic

import (
	"context"
	"encoding/binary"
	"fmt"

	"github.com/gocurator/curator/framework"
	"github.com/gocurator/curator/retry"
)

// Int64 is Curator's DistributedAtomicLong: a 64-bit integer held in a
// node as 8 big-endian bytes.
type Int64 = Number[int64]

// Int32 is Curator's DistributedAtomicInteger: a 32-bit integer held in a
// node as 4 big-endian bytes.
type Int32 = Number[int32]

// Number is an integer held in a node that participants update together;
// make one with NewInt64 or NewInt32. It is safe for concurrent use, holds
// no connection of its own and starts no goroutine: nothing to close.
// Sums wrap around on overflow, as Java's do.
type Number[T int32 | int64] struct {
	c *core[T]
}

// NewInt64 returns an Int64 at path, whose updates try under policy (which
// must not be nil) and then as opts say. It checks its arguments and sends
// nothing.
func NewInt64(client *framework.Client, path string, policy retry.Policy, opts ...Option) (*Int64, error) {
	c, err := newCore(client, path, policy, codec[int64]{
		encode: func(v int64) []byte { return binary.BigEndian.AppendUint64(nil, uint64(v)) },
		decode: func(path string, b []byte) (int64, error) {
			if err := fits(path, b, 8); err != nil || len(b) == 0 {
				return 0, err
			}
			return int64(binary.BigEndian.Uint64(b)), nil
		},
	}, opts)
	if err != nil {
		return nil, err
	}
	return &Int64{c}, nil
}

// NewInt32 returns an Int32 at path, whose updates try under policy (which
// must not be nil) and then as opts say. It checks its arguments and sends
// nothing.
func NewInt32(client *framework.Client, path string, policy retry.Policy, opts ...Option) (*Int32, error) {
	c, err := newCore(client, path, policy, codec[int32]{
		encode: func(v int32) []byte { return binary.BigEndian.AppendUint32(nil, uint32(v)) },
		decode: func(path string, b []byte) (int32, error) {
			if err := fits(path, b, 4); err != nil || len(b) == 0 {
				return 0, err
			}
			return int32(binary.BigEndian.Uint32(b)), nil
		},
	}, opts)
	if err != nil {
		return nil, err
	}
	return &Int32{c}, nil
}

// fits checks that data holds a number of size bytes: none (the zero
// value) or at least size, whose first size bytes are read.
func fits(path string, data []byte, size int) error {
	if len(data) > 0 && len(data) < size {
		return fmt.Errorf("%w: node %s holds %d bytes (%x), fewer than a number's %d", ErrCorrupt, path, len(data), data, size)
	}
	return nil
}

// Get returns the value: 0 if the node does not exist.
func (n *Number[T]) Get(ctx context.Context) (T, error) { return n.c.get(ctx) }

// ForceSet sets the value whatever it is, creating the node (and its
// missing parents, as containers) if need be.
func (n *Number[T]) ForceSet(ctx context.Context, v T) error { return n.c.forceSet(ctx, v) }

// TrySet sets the value, trying as the package doc says.
func (n *Number[T]) TrySet(ctx context.Context, v T) (Result[T], error) {
	return n.c.update(ctx, func(T) T { return v })
}

// CompareAndSet sets the value to v if it is expected now, in one try: it
// fails if the node does not exist, holds other bytes than expected's, or
// another participant writes first.
func (n *Number[T]) CompareAndSet(ctx context.Context, expected, v T) (Result[T], error) {
	return n.c.compareAndSet(ctx, expected, v)
}

// Initialize creates the node holding v, and returns false if it exists
// already.
func (n *Number[T]) Initialize(ctx context.Context, v T) (bool, error) {
	return n.c.initialize(ctx, v)
}

// Increment adds one to the value.
func (n *Number[T]) Increment(ctx context.Context) (Result[T], error) { return n.Add(ctx, 1) }

// Decrement subtracts one from the value.
func (n *Number[T]) Decrement(ctx context.Context) (Result[T], error) { return n.Add(ctx, -1) }

// Add adds delta to the value, trying as the package doc says.
func (n *Number[T]) Add(ctx context.Context, delta T) (Result[T], error) {
	return n.c.update(ctx, func(pre T) T { return pre + delta })
}

// Subtract subtracts delta from the value.
func (n *Number[T]) Subtract(ctx context.Context, delta T) (Result[T], error) {
	return n.Add(ctx, -delta)
}
