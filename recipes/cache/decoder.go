package cache

import (
	"fmt"
	"sync"
)

// Decoder reads a Cache's nodes as values of type T: a config cache whose
// nodes hold JSON, say. Each node's data is decoded once per change, on the
// first Get after it. Every Get of one version returns the same value, so
// a T holding maps, slices or pointers is shared by its callers: treat it
// as read-only.
type Decoder[T any] struct {
	cache  *Cache
	decode func([]byte) (T, error)

	mu   sync.Mutex
	memo map[string]decoded[T]
}

type decoded[T any] struct {
	czxid, mzxid int64 // the node's version the value was decoded from
	value        T
	err          error
}

// NewDecoder returns a decoder of c's nodes with decode (json.Unmarshal
// into a T, say). The cache must keep data (not WithoutData).
func NewDecoder[T any](c *Cache, decode func([]byte) (T, error)) (*Decoder[T], error) {
	switch {
	case c == nil:
		return nil, fmt.Errorf("%w: nil cache", ErrInvalidArg)
	case decode == nil:
		return nil, fmt.Errorf("%w: nil decode function", ErrInvalidArg)
	case c.opts.withoutData:
		return nil, fmt.Errorf("%w: the cache keeps no data (WithoutData)", ErrInvalidArg)
	}
	return &Decoder[T]{cache: c, decode: decode, memo: make(map[string]decoded[T])}, nil
}

// Get returns the decoded value of the cached node at path, and whether
// the cache holds that node. A node whose data does not decode returns the
// decode function's error, wrapped with the path.
func (d *Decoder[T]) Get(path string) (T, bool, error) {
	var zero T
	n, ok := d.cache.Get(path)
	d.mu.Lock()
	defer d.mu.Unlock()
	if !ok {
		delete(d.memo, path)
		return zero, false, nil
	}
	if len(d.memo) >= 2*d.cache.Len()+16 {
		d.pruneLocked() // nodes deleted since they were last asked for
	}
	m, hit := d.memo[path]
	if !hit || m.czxid != n.Stat.Czxid || m.mzxid != n.Stat.Mzxid {
		v, err := d.decode(n.Data)
		if err != nil {
			err = fmt.Errorf("cache: decoding %s: %w", path, err)
		}
		m = decoded[T]{czxid: n.Stat.Czxid, mzxid: n.Stat.Mzxid, value: v, err: err}
		d.memo[path] = m
	}
	return m.value, true, m.err
}

// pruneLocked forgets the values of nodes the cache no longer holds.
func (d *Decoder[T]) pruneLocked() {
	for path := range d.memo {
		if _, ok := d.cache.Get(path); !ok {
			delete(d.memo, path)
		}
	}
}
