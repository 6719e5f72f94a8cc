package framework

import (
	"context"
	"fmt"

	"github.com/go-zookeeper/zk"
)

// Op is one operation of a transaction; build it with CreateOp, DeleteOp,
// SetDataOp or CheckOp.
type Op struct {
	kind    opKind
	path    string
	data    []byte
	mode    CreateMode
	version int32
}

type opKind int

const (
	opCreate opKind = iota + 1
	opDelete
	opSetData
	opCheck
)

// CreateOp creates a node (Persistent, Ephemeral or their sequential forms;
// ZooKeeper's multi takes no containers or TTLs). nil data means the client's
// default data.
func CreateOp(path string, data []byte, mode CreateMode) Op {
	return Op{kind: opCreate, path: path, data: data, mode: mode}
}

// DeleteOp deletes a node if its version matches (-1 matches any).
func DeleteOp(path string, version int32) Op {
	return Op{kind: opDelete, path: path, version: version}
}

// SetDataOp sets a node's data if its version matches (-1 matches any).
func SetDataOp(path string, data []byte, version int32) Op {
	return Op{kind: opSetData, path: path, data: data, version: version}
}

// CheckOp fails the transaction unless the node exists with this data
// version: a fence.
func CheckOp(path string, version int32) Op {
	return Op{kind: opCheck, path: path, version: version}
}

// OpResult is the outcome of one operation of a committed transaction.
type OpResult struct {
	Path string   // created path, for a create (without the namespace)
	Stat *zk.Stat // for a set
}

// TxnError reports a transaction that failed: which operation failed and
// why. errors.Is matches the failing operation's error (ErrBadVersion for a
// failed CheckOp, ...).
type TxnError struct {
	Index int // of the failing operation
	Err   error
}

func (e *TxnError) Error() string { return fmt.Sprintf("transaction op %d: %v", e.Index, e.Err) }

// Unwrap returns the failing operation's error.
func (e *TxnError) Unwrap() error { return e.Err }

// Txn commits ops atomically: all of them or none. If one fails, the error
// wraps a *TxnError.
func (c *Client) Txn(ctx context.Context, ops ...Op) ([]OpResult, error) {
	if len(ops) == 0 {
		return nil, opErr("txn", "", fmt.Errorf("%w: empty transaction", ErrInvalidArg))
	}
	reqs := make([]any, len(ops))
	for i, op := range ops {
		seq := op.kind == opCreate && op.mode.IsSequential()
		if err := ValidatePath(op.path, seq); err != nil {
			return nil, opErr("txn", op.path, err)
		}
		full := c.cfg.namespace.fix(op.path)
		switch op.kind {
		case opCreate:
			if op.mode != Persistent && op.mode != Ephemeral && op.mode != PersistentSequential && op.mode != EphemeralSequential {
				return nil, opErr("txn", op.path, fmt.Errorf("%w: create mode %d in a transaction", ErrInvalidArg, op.mode))
			}
			data := op.data
			if data == nil {
				data = c.cfg.defaultData
			}
			reqs[i] = &zk.CreateRequest{Path: full, Data: data, Acl: aclFor(c.cfg.aclProvider, op.path), Flags: int32(op.mode)}
		case opDelete:
			reqs[i] = &zk.DeleteRequest{Path: full, Version: op.version}
		case opSetData:
			reqs[i] = &zk.SetDataRequest{Path: full, Data: op.data, Version: op.version}
		case opCheck:
			reqs[i] = &zk.CheckVersionRequest{Path: full, Version: op.version}
		default:
			return nil, opErr("txn", op.path, fmt.Errorf("%w: zero Op", ErrInvalidArg))
		}
	}
	var res []zk.MultiResponse
	err := c.do(ctx, "txn", ops[0].path, func(ctx context.Context, conn *zk.Conn) error {
		return c.call(ctx, func() error {
			var err error
			res, err = conn.Multi(reqs...)
			return err
		}, nil)
	})
	if err != nil && ctx.Err() != nil {
		return nil, err // res may still be written by an abandoned call
	}
	if err == nil && len(res) != len(ops) {
		err = opErr("txn", ops[0].path, fmt.Errorf("%w: %d results for %d ops", zk.ErrAPIError, len(res), len(ops)))
	}
	if err != nil {
		return nil, txnError(err, res)
	}
	out := make([]OpResult, len(res))
	for i, r := range res {
		if r.Error != nil {
			return nil, txnError(r.Error, res)
		}
		out[i] = OpResult{Path: c.cfg.namespace.unfix(r.String), Stat: r.Stat}
	}
	return out, nil
}

// txnError finds the operation that failed: the first whose error is not
// the rollback marker ZooKeeper gives the others.
func txnError(err error, res []zk.MultiResponse) error {
	for i, r := range res {
		if r.Error != nil && !isRollback(r.Error) {
			return opErr("txn", "", &TxnError{Index: i, Err: opErr("txn", "", r.Error)})
		}
	}
	return opErr("txn", "", err)
}

// isRollback reports ZooKeeper's "runtime inconsistency" (-2) and "ok" codes,
// which mark the operations of a failed multi that did not fail themselves.
func isRollback(err error) bool {
	return err.Error() == "unknown error: -2"
}
