package framework

import (
	"context"
	"errors"
	"fmt"

	"github.com/gocurator/curator/internal/zkconn"
	"github.com/gocurator/curator/retry"
)

// errFenceRefused ends an undo whose fence no longer holds: the write it
// would have undone was made while the fence held, and it stays.
var errFenceRefused = errors.New("the transaction's fence no longer holds")

// undoTarget is a node an undo deletes, at a version.
type undoTarget struct {
	path    string // as sent
	version int32
}

// undo deletes the nodes an abandoned transaction created under names its
// caller never learnt (sequential and protected ones). It runs where the
// call's answer arrives, and hands what it cannot finish at once to the
// janitor.
//
// Persistent nodes are deleted under the transaction's fence: written while
// it held, they stay once it no longer holds. Ephemeral nodes are deleted
// without it: they are the session's own (a unique name), they die with it
// anyway, and deleting one gives back what it took (a lease, a place in a
// queue), which the caller's own clean-up may have ended the fence to do:
// a recipe's transaction is often fenced on a node the recipe deletes next.
func (t *txn) undo(res []zkconn.OpResult) {
	var targets []undoTarget
	for i, op := range t.ops {
		if op.kind != opCreate || !op.mode.IsSequential() && !op.create.protected {
			continue
		}
		if op.mode.IsEphemeral() || len(t.fence) == 0 {
			t.c.undoCreate(res[i].Path, undoVersion(op.mode, true))
			continue
		}
		targets = append(targets, undoTarget{res[i].Path, undoVersion(op.mode, true)})
	}
	if len(targets) == 0 {
		return
	}
	ctx, cancel := context.WithTimeout(context.Background(), undoGrace)
	defer cancel()
	if err := t.deleteFenced(ctx, targets); err != nil {
		t.c.janitor.add("delete nodes of an abandoned fenced transaction", targets[0].path, func(ctx context.Context) error {
			return t.deleteFenced(ctx, targets)
		})
	}
}

// cleanUpProtected has the janitor find and delete the protected nodes of a
// transaction that failed without telling whether it committed: persistent
// ones under its fence, ephemeral ones of the session without it (see undo).
func (t *txn) cleanUpProtected() {
	for i, id := range t.ids {
		if id == "" {
			continue
		}
		parent, _ := SplitPath(t.reqs[i].Path)
		if mode := t.ops[i].mode; mode.IsEphemeral() || len(t.fence) == 0 {
			t.c.janitor.add("delete protected node of a failed transaction", parent, func(ctx context.Context) error {
				return t.c.deleteProtected(ctx, parent, id, mode)
			})
			continue
		}
		t.c.janitor.add("delete protected node of a failed fenced transaction", parent, func(ctx context.Context) error {
			var found string
			err := t.c.retrying(ctx, "delete", t.c.cfg.namespace.fromServer(parent), func(ctx context.Context, conn conn) error {
				var err error
				found, err = t.c.findProtected(ctx, conn, parent, id, Persistent)
				return err
			})
			if err != nil || found == "" {
				return err
			}
			return t.deleteFenced(ctx, []undoTarget{{found, -1}})
		})
	}
}

// deleteFenced deletes targets in one transaction with the fence's checks,
// so that nothing is deleted unless the fence still holds. A target already
// gone, or written to since (at version 0), is left out and the rest tried
// again. A fence that no longer holds ends it: logged, and nil, so that the
// janitor does not try again. A retryable error, or ctx's, is returned for
// the janitor.
func (t *txn) deleteFenced(ctx context.Context, targets []undoTarget) error {
	c := t.c
	for len(targets) > 0 {
		reqs := append([]zkconn.Op(nil), t.fence...)
		for _, target := range targets {
			reqs = append(reqs, zkconn.Op{Kind: zkconn.OpDelete, Path: target.path, Version: target.version})
		}
		var res []zkconn.OpResult
		err := c.retrying(ctx, "txn", c.cfg.namespace.fromServer(targets[0].path), func(ctx context.Context, conn conn) error {
			var err error
			res, err = conn.Multi(ctx, zkconn.MultiRequest{Ops: reqs}, nil)
			return err
		})
		if err != nil && ctx.Err() != nil {
			return err // for the janitor
		}
		i, failure := failedOp(res)
		switch {
		case i < 0 && err != nil && retry.IsRetryable(err):
			return err // for the janitor
		case i < 0 && err != nil:
			c.log.Error("undo of an abandoned transaction failed", "path", targets[0].path, "err", err)
			return nil
		case i < 0:
			return nil
		case i < len(t.fence):
			c.log.Warn("undo of an abandoned transaction refused by its fence: its nodes stay",
				"fence", t.fence[i].Path, "nodes", len(targets), "first", targets[0].path,
				"err", fmt.Errorf("%w: %w", errFenceRefused, failure))
			return nil
		}
		targets = append(targets[:i-len(t.fence)], targets[i-len(t.fence)+1:]...)
	}
	return nil
}
