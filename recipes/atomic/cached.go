package atomic

import (
	"context"
	"fmt"
)

// CachedInt64 is Curator's CachedAtomicLong: values handed out from a range
// of an Int64 reserved in one update.
type CachedInt64 = Cached[int64]

// CachedInt32 is Curator's CachedAtomicInteger: values handed out from a
// range of an Int32 reserved in one update.
type CachedInt32 = Cached[int32]

// Cached hands out the values of a Number one at a time, as its Increment
// would, from a range it reserves with one Add of the cache factor: a
// reservation from v hands out v+1 ... v+factor (Result.Post) before the
// next is made. Java's CachedAtomicLong, this and any increment of the same
// node never hand out one value twice; values reserved and not handed out
// (when the process ends, say) are never handed out by anyone. Values are
// not handed out in order across participants. Make one with NewCached; it
// is safe for concurrent use, and has nothing to close.
type Cached[T int32 | int64] struct {
	n      *Number[T]
	factor T
	turn   chan struct{} // holds a token while a caller takes a value
	base   T             // the value the range was reserved from
	used   T             // values of the range handed out; 0: no range
}

// NewCached returns a Cached over n that reserves factor values at a time
// (at least 1). It sends nothing.
func NewCached[T int32 | int64](n *Number[T], factor T) (*Cached[T], error) {
	if n == nil {
		return nil, fmt.Errorf("%w: cached atomic: nil number", ErrInvalidArg)
	}
	if factor < 1 {
		return nil, fmt.Errorf("%w: cached atomic %s: cache factor %d, want at least 1", ErrInvalidArg, n.c.path, factor)
	}
	return &Cached[T]{n: n, factor: factor, turn: make(chan struct{}, 1)}, nil
}

// Next hands out the next value: Result.Post, with Result.Pre one less, as
// an Increment reports them. When the range is used up it first reserves
// the next with the Number's Add, whose Stats the Result carries; if that
// does not succeed, Next fails as the Add did (Succeeded false, and the
// Add's error) and hands out nothing. A reservation whose outcome is
// unknown (an error wrapping framework.ErrOutcomeUnknown) is given up: its
// values, if it was made, are never handed out, and the next call reserves
// again.
func (c *Cached[T]) Next(ctx context.Context) (Result[T], error) {
	select {
	case c.turn <- struct{}{}:
	case <-ctx.Done():
		return Result[T]{}, ctx.Err()
	}
	defer func() { <-c.turn }()
	var res Result[T]
	if c.used == 0 {
		r, err := c.n.Add(ctx, c.factor)
		res.Stats = r.Stats
		if err != nil || !r.Succeeded {
			return res, err
		}
		c.base = r.Pre
	}
	res.Succeeded, res.Pre = true, c.base+c.used
	res.Post = res.Pre + 1
	if c.used++; c.used >= c.factor {
		c.used = 0
	}
	return res, nil
}
