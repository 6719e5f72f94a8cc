package shared

import (
	"context"
	"encoding/binary"
	"fmt"

	"github.com/gocurator/curator/framework"
)

// Count is Curator's SharedCount: a Value holding a 32-bit integer as 4
// big-endian bytes, the node format Java's SharedCount reads and writes.
// (The count-driven locks.Semaphore follows such a node.)
type Count struct {
	v *Value
}

// NewCount returns a Count for the node at path, created with seed if it
// does not exist when the Count starts.
func NewCount(client *framework.Client, path string, seed int32, opts ...Option) (*Count, error) {
	v, err := newValue(client, path, encodeCount(seed), "count", opts)
	if err != nil {
		return nil, err
	}
	return &Count{v: v}, nil
}

// Start creates the node with the seed if it is missing, reads it and
// starts watching it. ctx is the Count's lifetime, as Value.Start's. A
// node whose data is not 4 bytes is an error wrapping
// framework.ErrInvalidArg, and leaves the Count closed.
func (c *Count) Start(ctx context.Context) error {
	if err := c.v.Start(ctx); err != nil {
		return err
	}
	if _, err := decodeCount(c.v.Get().Value); err != nil {
		c.v.Close()
		return err
	}
	return nil
}

// Get returns the count as last seen, with its version. A value another
// participant wrote in another format reads as 0, and TrySet refuses it.
func (c *Count) Get() Versioned[int32] {
	cur := c.v.Get()
	n, _ := decodeCount(cur.Value)
	return Versioned[int32]{cur.Version, n}
}

// Set sets the count whatever it is now.
func (c *Count) Set(ctx context.Context, n int32) error { return c.v.Set(ctx, encodeCount(n)) }

// TrySet sets the count only if prev is still the count (Curator's
// trySetCount): false, with the count read again, if another participant
// set it since. If the node no longer holds a count (4 bytes), it returns
// an error wrapping framework.ErrInvalidArg, as Curator throws: a loop of
// TrySet would otherwise spin on it.
func (c *Count) TrySet(ctx context.Context, prev Versioned[int32], n int32) (bool, error) {
	if _, err := decodeCount(c.v.Get().Value); err != nil {
		return false, err
	}
	return c.v.TrySet(ctx, Versioned[[]byte]{prev.Version, encodeCount(prev.Value)}, encodeCount(n))
}

// AddListener calls fn with every new count (see Value.AddListener).
func (c *Count) AddListener(fn func(n int32)) (remove func()) {
	return c.v.AddListener(func(b []byte) {
		if n, err := decodeCount(b); err == nil {
			fn(n)
		}
	})
}

// Close stops watching; the node stays. It is idempotent, as Value.Close.
func (c *Count) Close() error { return c.v.Close() }

// Path returns the count node's path.
func (c *Count) Path() string { return c.v.path }

// Started reports whether Start succeeded and Close has not been called
// (false for a nil Count).
func (c *Count) Started() bool { return c != nil && c.v.check() == nil }

func encodeCount(n int32) []byte { return binary.BigEndian.AppendUint32(nil, uint32(n)) }

func decodeCount(b []byte) (int32, error) {
	if len(b) != 4 {
		return 0, fmt.Errorf("%w: a shared count's node holds %d bytes, not 4", framework.ErrInvalidArg, len(b))
	}
	return int32(binary.BigEndian.Uint32(b)), nil
}
