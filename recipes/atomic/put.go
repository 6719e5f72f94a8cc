package atomic

import (
	"bytes"
	"context"
	"errors"
	"fmt"

	"github.com/gocurator/curator/framework"
	"github.com/gocurator/curator/retry"
)

// errConflict means another participant wrote first: the node moved on
// from the version read, or was created or deleted meanwhile.
var errConflict = errors.New("another participant wrote first")

// put writes b at the version of read, or creates the node holding b if
// read is nil (the node was missing). It returns nil if the write was
// applied, errConflict if another participant's write came first, and an
// error wrapping framework.ErrOutcomeUnknown if the write's reply was lost
// and the node cannot tell whether it was applied.
//
// The write is sent once, without the client's retries: a retry after a
// lost reply would be refused if the first was applied, and that refusal
// looks like another participant's write. A write whose reply was lost
// goes to settle.
func (c *core[T]) put(ctx context.Context, read *framework.Stat, b []byte) error {
	err := retry.Do(ctx, nil, func(ctx context.Context) error { // one attempt: see retry.Do on nested loops
		_, err := c.write(ctx, read, b)
		return err
	})
	switch {
	case err == nil:
		return nil
	case conflict(err):
		return errConflict
	case refused(err):
		return err
	}
	return c.settle(ctx, read, b, err)
}

// settle finds out what became of a write whose reply was lost (lost is
// the error it ended with). It sends the same write again, with the
// client's retries: of the writes at one version (or the creates of one
// node) at most one succeeds, so if this one does, the first was not
// applied, and the update is applied once. If it is refused, the node says
// whose write won where it can: one that moved the node on by one version
// (or created it) with other bytes than ours was another participant's.
func (c *core[T]) settle(ctx context.Context, read *framework.Stat, b []byte, lost error) error {
	if ctx.Err() != nil {
		return c.unknown(b, lost)
	}
	stat, err := c.write(ctx, read, b)
	switch {
	case err == nil && (read == nil || stat.Czxid == read.Czxid):
		return nil
	case err == nil: // a set that went to a node made again since we read it
		return c.unknown(b, lost)
	case !conflict(err):
		return c.unknown(b, errors.Join(lost, err))
	}
	data, now, err := c.client.Get(ctx, c.path)
	if err != nil {
		return c.unknown(b, errors.Join(lost, err))
	}
	next := int32(0) // the version our write would have made
	if read != nil {
		next = read.Version + 1
	}
	sameNode := read == nil || now.Czxid == read.Czxid
	if sameNode && now.Version == next && !bytes.Equal(data, b) {
		return errConflict // the write at our version was another's
	}
	return c.unknown(b, lost)
}

// write is one set at read's version, or one create if read is nil.
func (c *core[T]) write(ctx context.Context, read *framework.Stat, b []byte) (*framework.Stat, error) {
	if read == nil {
		// Kept if ctx ends before the answer, like a set: others may read
		// the value, or find it made, as soon as it is.
		_, err := c.client.Create(ctx, c.path, b, framework.WithContainerParents(), framework.WithoutUndo())
		return nil, err
	}
	return c.client.Set(ctx, c.path, b, read.Version)
}

// unknown is the error of a write whose outcome cannot be known.
func (c *core[T]) unknown(b []byte, cause error) error {
	return fmt.Errorf("atomic %s: the write of %x may or may not have been applied: %w: %w", c.path, b, framework.ErrOutcomeUnknown, cause)
}

// conflict reports whether err is another participant's write coming
// first: a version refused, a node made or deleted since it was read.
func conflict(err error) bool {
	return errors.Is(err, framework.ErrBadVersion) || errors.Is(err, framework.ErrNodeExists) || errors.Is(err, framework.ErrNoNode)
}

// refused reports whether err is an answer that says the write was not
// applied, or a failure before it was sent: anything but a lost reply.
func refused(err error) bool {
	for _, e := range []error{framework.ErrNoAuth, framework.ErrInvalidArg, framework.ErrInvalidPath, framework.ErrNotStarted, framework.ErrNotEmpty} {
		if errors.Is(err, e) {
			return true
		}
	}
	return false
}
