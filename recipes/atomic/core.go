package atomic

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/gocurator/curator/framework"
	"github.com/gocurator/curator/observe"
	"github.com/gocurator/curator/recipes/locks"
	"github.com/gocurator/curator/retry"
)

// codec turns a value into the node's bytes and back.
type codec[T any] struct {
	encode func(T) []byte
	decode func(path string, data []byte) (T, error) // nil or empty data is the zero value
}

// core is the engine under Int64, Int32 and Value: Curator's
// DistributedAtomicValue over a codec.
type core[T any] struct {
	client *framework.Client
	path   string
	policy retry.Policy
	promo  *Promotion
	mutex  *locks.Mutex // nil without a promotion
	codec  codec[T]
	hooks  *observe.Hooks // the client's; nil without any
}

// newCore checks the arguments and builds the engine; it sends nothing.
func newCore[T any](client *framework.Client, path string, policy retry.Policy, cd codec[T], opts []Option) (*core[T], error) {
	if client == nil {
		return nil, fmt.Errorf("%w: atomic: nil client", ErrInvalidArg)
	}
	if err := checkPath("atomic", path); err != nil {
		return nil, err
	}
	if policy == nil {
		return nil, fmt.Errorf("%w: atomic %s: nil retry policy", ErrInvalidArg, path)
	}
	var o options
	for _, opt := range opts {
		if opt == nil {
			return nil, fmt.Errorf("%w: atomic %s: nil option", ErrInvalidArg, path)
		}
		if err := opt(&o); err != nil {
			return nil, err
		}
	}
	c := &core[T]{client: client, path: path, policy: policy, promo: o.promo, codec: cd, hooks: client.Hooks()}
	if o.promo != nil {
		m, err := locks.NewMutex(client, o.promo.LockPath)
		if err != nil {
			return nil, err
		}
		c.mutex = m
	}
	return c, nil
}

// get reads the value: the zero value if the node does not exist.
func (c *core[T]) get(ctx context.Context) (T, error) {
	v, _, _, err := c.read(ctx)
	return v, err
}

// read reads the node: its value, its raw bytes and its stat (nil if the
// node does not exist).
func (c *core[T]) read(ctx context.Context) (T, []byte, *framework.Stat, error) {
	var zero T
	data, stat, err := c.client.Get(ctx, c.path)
	switch {
	case errors.Is(err, framework.ErrNoNode):
		return zero, nil, nil, nil
	case err != nil:
		return zero, nil, nil, err
	}
	v, err := c.codec.decode(c.path, data)
	return v, data, stat, err
}

// forceSet writes v whatever the node holds, creating it if it is missing
// (Curator's forceSet). Every step writes the same bytes, so sending one
// again after a lost reply is harmless.
func (c *core[T]) forceSet(ctx context.Context, v T) error {
	b := c.codec.encode(v)
	_, err := c.client.Set(ctx, c.path, b, -1)
	if !errors.Is(err, framework.ErrNoNode) {
		return err
	}
	_, err = c.client.Create(ctx, c.path, b, framework.WithContainerParents(), framework.WithoutUndo())
	if !errors.Is(err, framework.ErrNodeExists) {
		return err
	}
	_, err = c.client.Set(ctx, c.path, b, -1)
	return err
}

// initialize creates the node holding v, and reports false if it exists
// (Curator's initialize).
func (c *core[T]) initialize(ctx context.Context, v T) (bool, error) {
	switch err := c.put(ctx, nil, c.codec.encode(v)); {
	case err == nil:
		return true, nil
	case errors.Is(err, errConflict):
		return false, nil
	default:
		return false, err
	}
}

// compareAndSet writes next at the version read if the node's bytes are
// expected's (Curator's compareAndSet): one try, which fails if the node
// does not exist or another participant wrote first.
func (c *core[T]) compareAndSet(ctx context.Context, expected, next T) (Result[T], error) {
	var res Result[T]
	pre, data, stat, err := c.read(ctx)
	res.Pre = pre
	if err != nil {
		return res, err
	}
	if stat == nil || !bytes.Equal(data, c.codec.encode(expected)) {
		c.report(true)
		return res, nil
	}
	switch err := c.put(ctx, stat, c.codec.encode(next)); {
	case err == nil:
		c.report(false)
		res.Succeeded, res.Post = true, next
	case errors.Is(err, errConflict):
		c.report(true)
	default:
		if errors.Is(err, framework.ErrOutcomeUnknown) {
			res.Post = next
		}
		return res, err
	}
	return res, nil
}

// update sets the value to next(the value read), optimistically under the
// policy and then, if that failed, under the promotion's lock (Curator's
// trySet with a MakeValue).
func (c *core[T]) update(ctx context.Context, next func(T) T) (Result[T], error) {
	var res Result[T]
	start := time.Now()
	err := c.tries(ctx, start, c.policy, &res, &res.Stats.OptimisticTries, next)
	res.Stats.OptimisticTime = time.Since(start)
	if err != nil || res.Succeeded || c.promo == nil {
		return res, err
	}
	start = time.Now()
	err = c.promoted(ctx, start, &res, next)
	res.Stats.PromotedTime = time.Since(start)
	return res, err
}

// promoted takes the promotion's lock and tries under it. A lock not
// taken within the promotion's timeout fails the update without an error,
// as Curator's acquire returning false does.
func (c *core[T]) promoted(ctx context.Context, start time.Time, res *Result[T], next func(T) T) error {
	lctx, cancel := ctx, context.CancelFunc(func() {})
	if c.promo.Timeout > 0 {
		lctx, cancel = context.WithTimeout(ctx, c.promo.Timeout)
	}
	hold, err := c.mutex.Acquire(lctx)
	timedOut := ctx.Err() == nil && errors.Is(lctx.Err(), context.DeadlineExceeded) // read before cancel, which ends lctx
	cancel()
	if err != nil {
		if timedOut && errors.Is(err, context.DeadlineExceeded) {
			return nil // the promotion's timeout
		}
		return err
	}
	defer c.release(ctx, hold)
	return c.tries(ctx, start, c.promo.Retry, res, &res.Stats.PromotedTries, next)
}

// release gives the promotion's lock back. If ctx has ended, or the
// connection is down, it returns at once and the client's guaranteed
// delete removes the lock node in the background (see locks.Hold.Release),
// so a cancelled update does not wait on the connection. A hold lost
// meanwhile changes nothing for the update, whose writes are checked by
// version, not by the lock: it is only logged.
func (c *core[T]) release(ctx context.Context, hold *locks.Hold) {
	if err := hold.Release(ctx); err != nil {
		c.client.Logger().Debug("atomic: releasing the promotion's lock", "path", c.path, "lock", hold.Path(), "err", err)
	}
}

// tries runs tries until one succeeds or policy refuses another, sleeping
// as it says in between; elapsed time counts from start. Running out of
// tries is not an error.
func (c *core[T]) tries(ctx context.Context, start time.Time, policy retry.Policy, res *Result[T], count *int, next func(T) T) error {
	for retries := 0; ; retries++ {
		*count++
		ok, err := c.try(ctx, res, next)
		if err != nil || ok {
			res.Succeeded = ok
			return err
		}
		sleep, again := policy.AllowRetry(retries, time.Since(start))
		if !again {
			return nil
		}
		if err := sleepCtx(ctx, sleep); err != nil {
			return err
		}
	}
}

// try reads the node and writes next(value) at the version read, or
// creates the node if it is missing: it reports false when another
// participant wrote first.
func (c *core[T]) try(ctx context.Context, res *Result[T], next func(T) T) (bool, error) {
	pre, _, stat, err := c.read(ctx)
	if err != nil {
		return false, err
	}
	res.Pre = pre
	v := next(pre)
	switch err := c.put(ctx, stat, c.codec.encode(v)); {
	case err == nil:
		c.report(false)
		res.Post = v
		return true, nil
	case errors.Is(err, errConflict):
		c.report(true)
		return false, nil
	default:
		if errors.Is(err, framework.ErrOutcomeUnknown) {
			res.Post = v
		}
		return false, err
	}
}

// report tells the client's hooks how a compare-and-set ended: applied, or
// refused (conflict) because another participant wrote first. One whose
// outcome is unknown is not reported.
func (c *core[T]) report(conflict bool) {
	if c.hooks != nil {
		c.hooks.TrySet(observe.TrySet{Time: time.Now(), Recipe: "atomic", Path: c.path, Conflict: conflict})
	}
}

// sleepCtx sleeps d, or until ctx ends.
func sleepCtx(ctx context.Context, d time.Duration) error {
	if d <= 0 {
		return ctx.Err()
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}
