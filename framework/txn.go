package framework

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sync/atomic"

	"github.com/gocurator/curator/internal/zkconn"
	"github.com/gocurator/curator/internal/zkerr"
	"github.com/gocurator/curator/retry"
)

// Op is one operation of a transaction; build it with CreateOp, DeleteOp,
// SetDataOp or CheckOp.
type Op struct {
	kind    opKind
	path    string
	data    []byte
	mode    CreateMode
	version int32
	create  createOpts // a create's options
}

type opKind int

const (
	opCreate opKind = iota + 1
	opDelete
	opSetData
	opCheck
)

// String names the operation as an error does.
func (k opKind) String() string {
	switch k {
	case opCreate:
		return "create"
	case opDelete:
		return "delete"
	case opSetData:
		return "set"
	case opCheck:
		return "check"
	}
	return "op"
}

// CreateOp creates a node (Persistent, Ephemeral or their sequential forms;
// ZooKeeper's multi takes no containers or TTLs). nil data means the client's
// default data. Of the create options, WithProtection, WithParents,
// WithContainerParents and WithACL apply: missing parents are made before
// the transaction is tried again, and a protected create lets a retry after
// a lost reply find that the transaction committed instead of applying it
// twice (see Txn).
func CreateOp(path string, data []byte, mode CreateMode, opts ...CreateOption) Op {
	op := Op{kind: opCreate, path: path, data: data, mode: mode}
	op.create.apply(opts)
	return op
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
	Path string // created path, for a create (without the namespace)
	Stat *Stat  // for a set
}

// TxnError reports a transaction that failed: which operation failed and
// why. errors.Is matches the failing operation's error (ErrBadVersion for a
// failed CheckOp, ...), an *OpError naming the operation and its path:
// "transaction op 0: check /locks/x/_c_…-lock-0000000007: zk: node does not exist".
type TxnError struct {
	Index int   // of the failing operation
	Err   error // the failing operation's error
}

// Error returns the failing operation's index and error.
func (e *TxnError) Error() string { return fmt.Sprintf("transaction op %d: %v", e.Index, e.Err) }

// Unwrap returns the failing operation's error.
func (e *TxnError) Unwrap() error { return e.Err }

// Txn commits ops atomically: all of them or none. If one fails, the error
// wraps a *TxnError.
//
// Like Create, Txn leaves nothing behind that its caller cannot know of. If
// ctx ends while the transaction is in flight and it commits after all, the
// nodes it created with sequential or protected names are deleted. With a
// protected create among ops, a retry after a lost reply first looks for
// that node: if it is there the transaction had committed, and Txn returns
// its results (created paths found that way; a set's Stat is then nil). If
// Txn fails and cannot tell whether the transaction committed, the client
// deletes its protected nodes in the background.
//
// The CheckOps of a transaction are its fence, and the persistent nodes the
// client deletes on its own afterwards it deletes under the same fence: in
// one transaction with the same checks, so only while they still hold. If
// they no longer hold, the write was made while they did, and it stays; the
// client logs that at Warn level. Ephemeral nodes of the session are deleted
// without it: they end with the session anyway. A result found after a lost
// reply has an empty Path for an ephemeral node gone with an earlier session.
//
// A transaction whose reply was lost after it was sent has an unknown
// outcome unless a protected create settles it (see above). Txn then
// returns an error that wraps ErrOutcomeUnknown, with the error that ended
// the call: ErrConnectionLoss, ctx's error, or a retry's refusal. A retry
// refused by a check (or by a create finding its node) does not mean that
// the transaction did not commit: the first attempt may have, and the
// error is then not a *TxnError. Writes safe to retry are protected creates
// and writes that are idempotent (setting the same data again).
func (c *Client) Txn(ctx context.Context, ops ...Op) ([]OpResult, error) {
	if len(ops) == 0 {
		return nil, opErr("txn", "", fmt.Errorf("%w: empty transaction", ErrInvalidArg))
	}
	t := &txn{c: c, ops: ops, reqs: make([]zkconn.Op, len(ops)), ids: make([]string, len(ops))}
	protected := slices.ContainsFunc(ops, func(op Op) bool { return op.kind == opCreate && op.create.protected })
	for i, op := range ops {
		req, err := t.request(op, protected)
		if err != nil {
			return nil, opErr("txn", op.path, err)
		}
		if op.kind == opCreate && op.create.protected {
			t.ids[i] = newProtectedID()
			req.Path = ProtectedPath(req.Path, t.ids[i])
		}
		t.reqs[i] = req
		if op.kind == opCheck {
			t.fence = append(t.fence, req)
		}
	}
	written := writeNoticeOf(ctx)
	var (
		res      []zkconn.OpResult
		attempts int
	)
	err := c.retrying(ctx, "txn", ops[0].path, func(ctx context.Context, conn conn) error {
		attempts++
		if protected && attempts > 1 {
			found, settled, err := t.findCommitted(ctx, conn)
			if err != nil || found != nil {
				res = found
				return err
			}
			if settled {
				t.unsettled = false // no attempt so far committed
			}
		}
		var err error
		res, err = t.multi(ctx, conn, written)
		return err
	})
	if err != nil {
		if protected && attempts > 0 && mayHaveCommitted(err) {
			t.cleanUpProtected()
		}
		if t.unsettled {
			return nil, opErr("txn", ops[0].path, t.unknown(err))
		}
		return nil, err
	}
	out := make([]OpResult, len(res))
	for i, r := range res {
		out[i] = OpResult{Path: c.cfg.namespace.fromServer(r.Path), Stat: statOf(r.Stat)}
	}
	return out, nil
}

// request checks op and returns its request, with the namespace and the
// client's defaults applied (a protected create's name is given by Txn);
// protected says that a create of the transaction is protected.
func (t *txn) request(op Op, protected bool) (zkconn.Op, error) {
	c := t.c
	full := c.cfg.namespace.toServer(op.path)
	switch op.kind {
	case opCreate:
		if err := op.create.check(op.path, op.mode); err != nil {
			return zkconn.Op{}, err
		}
		switch {
		case op.mode != Persistent && op.mode != Ephemeral && op.mode != PersistentSequential && op.mode != EphemeralSequential:
			return zkconn.Op{}, fmt.Errorf("%w: create mode %d in a transaction", ErrInvalidArg, op.mode)
		case op.create.mode != 0:
			return zkconn.Op{}, fmt.Errorf("%w: WithMode in a transaction's create (give the mode to CreateOp)", ErrInvalidArg)
		case op.create.orSet:
			return zkconn.Op{}, fmt.Errorf("%w: OrSetData in a transaction (a transaction's create fails on an existing node)", ErrInvalidArg)
		case protected && !op.create.protected && op.mode.IsSequential(): // after a lost reply its name could not be found again
			return zkconn.Op{}, fmt.Errorf("%w: a sequential create beside a protected one must be protected too", ErrInvalidArg)
		}
		data := op.data
		if data == nil {
			data = c.cfg.defaultData
		}
		return zkconn.Op{Kind: zkconn.OpCreate, Path: full, Data: data, Mode: int32(op.mode), ACL: c.aclOr(op.create.acl, op.path)}, nil
	case opDelete, opSetData, opCheck:
		if err := ValidatePath(op.path, false); err != nil {
			return zkconn.Op{}, err
		}
		if op.kind == opDelete && full == c.cfg.chroot {
			return zkconn.Op{}, fmt.Errorf("%w: cannot delete the connect string's chroot", ErrInvalidPath)
		}
		kind := zkconn.OpDelete
		switch op.kind {
		case opSetData:
			kind = zkconn.OpSetData
		case opCheck:
			kind = zkconn.OpCheck
		}
		return zkconn.Op{Kind: kind, Path: full, Data: op.data, Version: op.version}, nil
	}
	return zkconn.Op{}, fmt.Errorf("%w: zero Op", ErrInvalidArg)
}

// txn is one Txn call's state, shared by its attempts and its clean-up.
type txn struct {
	c     *Client
	ops   []Op
	reqs  []zkconn.Op // as sent, namespace and protection applied
	ids   []string    // protected creates' ids
	fence []zkconn.Op // the checks among reqs

	unsettled   bool  // an attempt may have been applied, and nothing since has told
	sentSession int64 // the session of the first such attempt
}

// unknown is the error of a call whose outcome is unknown: err, which ended
// it, under ErrOutcomeUnknown. A refusal is reported in err's text only, so
// that errors.As finds no *TxnError in it: the first attempt may have
// committed.
func (t *txn) unknown(err error) error {
	var te *TxnError
	if errors.As(err, &te) {
		err = fmt.Errorf("a retry after the reply was lost was refused (%v)", te)
	}
	return fmt.Errorf("%w: %w", ErrOutcomeUnknown, err)
}

// mayHaveCommitted reports whether a transaction that failed with err may
// have committed all the same: the server did not reject it.
func mayHaveCommitted(err error) bool {
	var te *TxnError
	return !errors.As(err, &te) && !errors.Is(err, ErrNoAuth) && !errors.Is(err, ErrClosed) && !errors.Is(err, ErrInvalidArg)
}

// multi sends the transaction, making missing parents of the creates that
// ask for them and trying again. A failed transaction's error wraps a
// *TxnError. If the caller gives up before the answer and the transaction
// committed after all, its sequential and protected nodes are deleted.
func (t *txn) multi(ctx context.Context, conn conn, written *zkconn.WriteNotice) ([]zkconn.OpResult, error) {
	c, ops := t.c, t.ops
	for made := 0; ; made++ {
		var sent atomic.Bool
		session := conn.SessionID() // the request goes out on this session, if at all
		u := newUndoable(func(res []zkconn.OpResult) {
			if committed(res, len(ops)) {
				t.undo(res)
			}
		})
		res, err := conn.Multi(ctx, zkconn.MultiRequest{Ops: t.reqs, Written: written, Late: u.late}, func() { sent.Store(true) })
		u.settle(ctx, err)
		if sent.Load() && (ctx.Err() != nil || retry.IsRetryable(err)) && !t.unsettled {
			t.unsettled, t.sentSession = true, session
		}
		if err != nil && ctx.Err() != nil {
			return nil, err
		}
		i, failure := failedOp(res) // the connection may report it as err too
		switch {
		case i < 0 && err != nil:
			return nil, err
		case i < 0 && len(res) != len(ops):
			return nil, fmt.Errorf("%w: %d results for %d ops", zkerr.APIError, len(res), len(ops))
		case i < 0:
			return res, nil
		}
		if op := ops[i]; op.kind != opCreate || op.create.parents == noParents || !errors.Is(failure, ErrNoNode) || made == len(ops) {
			return nil, &TxnError{Index: i, Err: opErr(op.kind.String(), op.path, failure)}
		}
		parent, _ := SplitPath(t.reqs[i].Path)
		if err := c.mkdirs(ctx, conn, parent, ops[i].create.parents); err != nil {
			return nil, err
		}
	}
}

// committed reports whether every operation of a transaction succeeded.
func committed(res []zkconn.OpResult, n int) bool {
	if len(res) != n {
		return false
	}
	for _, r := range res {
		if r.Err != nil {
			return false
		}
	}
	return true
}

// findCommitted looks for the protected nodes of the transaction after a
// lost reply. The transaction is atomic, so one node decides: a persistent
// protected node, which outlives its session, or an ephemeral one while the
// session that may have made it lives (findProtected finds only this
// session's). If that node is there, the transaction committed, and
// findCommitted returns results with every created path it can find (an
// ephemeral node gone with an earlier session has none). If it is not,
// settled says that no attempt committed. With no node that can decide,
// every protected node must be there to call it committed, and a miss
// settles nothing.
func (t *txn) findCommitted(ctx context.Context, conn conn) (res []zkconn.OpResult, settled bool, err error) {
	probe := -1
	for i, id := range t.ids {
		if id == "" {
			continue
		}
		if !t.ops[i].mode.IsEphemeral() {
			probe = i
			break
		}
		if probe < 0 && conn.SessionID() == t.sentSession {
			probe = i
		}
	}
	find := func(i int) (string, error) {
		parent, _ := SplitPath(t.reqs[i].Path)
		return t.c.findProtected(ctx, conn, parent, t.ids[i], t.ops[i].mode)
	}
	if probe >= 0 {
		found, err := find(probe)
		if err != nil || found == "" {
			return nil, err == nil, err
		}
	}
	res = make([]zkconn.OpResult, len(t.ops))
	for i, id := range t.ids {
		switch {
		case id == "" && t.ops[i].kind == opCreate:
			res[i].Path = t.reqs[i].Path // not sequential (Txn checks): the name is known
		case id != "":
			found, err := find(i)
			if err != nil {
				return nil, false, err
			}
			if found == "" && probe < 0 {
				return nil, false, nil
			}
			res[i].Path = found
		}
	}
	return res, false, nil
}

// failedOp finds the operation of a failed transaction that failed: the
// first whose error is not the rollback marker ZooKeeper gives the others.
func failedOp(res []zkconn.OpResult) (int, error) {
	for i, r := range res {
		if r.Err != nil && !errors.Is(r.Err, zkerr.RuntimeInconsistency) {
			return i, r.Err
		}
	}
	return -1, nil
}
