package framework

import (
	"context"
	"fmt"

	"github.com/gocurator/curator/internal/zkconn"
)

// ReadOp is one read of a MultiRead; build it with GetOp or ChildrenOp.
type ReadOp struct {
	kind zkconn.ReadKind
	path string
}

// GetOp reads a node's data and stat, as Get does.
func GetOp(path string) ReadOp { return ReadOp{kind: zkconn.ReadData, path: path} }

// ChildrenOp lists a node's children, as Children does, but without the
// node's stat: ZooKeeper sends none with a listing in a multiRead.
func ChildrenOp(path string) ReadOp { return ReadOp{kind: zkconn.ReadChildren, path: path} }

// ReadResult is the answer to one ReadOp of a MultiRead. Err is the read's
// own error, an *OpError that errors.Is matches as Get's would
// (ErrNoNode, ErrNoAuth); the others are then zero. A GetOp's result has
// Data and Stat, a ChildrenOp's Children.
type ReadResult struct {
	Data     []byte
	Stat     *Stat
	Children []string
	Err      error
}

// MultiRead makes the reads ops in one request, ZooKeeper 3.6's multiRead,
// and returns their results in the same order: a load of many nodes pays
// the server's cost of a request, and a round trip, once instead of once a
// node. The reads are not atomic: the server makes them one after the
// other, each sees the tree as it is then, and one that fails fails alone,
// in its result. None sets a watch.
//
// MultiRead fails as a whole, with no results, on bad input (no ops, a bad
// path: ErrInvalidArg, ErrInvalidPath), when the reply is longer than the
// client accepts (ErrReplyTooLarge, see WithMaxReplySize: ask for fewer
// nodes at a time), and as every request does: it is retried on a lost
// connection under the client's retry policy, as a read is. Two limits are
// the server's, and cost the connection (the client connects again, and
// every call under way on it sees the loss): a server before 3.6 answers
// the unknown request and closes the connection, and a request longer than
// the server's jute.maxbuffer (1 MiB by default: thousands of paths) is
// dropped with its connection, and retried to the same end.
func (c *Client) MultiRead(ctx context.Context, ops ...ReadOp) ([]ReadResult, error) {
	if len(ops) == 0 {
		return nil, opErr("multiRead", "", fmt.Errorf("%w: no reads", ErrInvalidArg))
	}
	reqs := make([]zkconn.ReadOp, len(ops))
	for i, op := range ops {
		if op.kind == 0 {
			return nil, opErr("multiRead", op.path, fmt.Errorf("%w: read %d was not made by GetOp or ChildrenOp", ErrInvalidArg, i))
		}
		if err := ValidatePath(op.path, false); err != nil {
			return nil, opErr("multiRead", op.path, err)
		}
		reqs[i] = zkconn.ReadOp{Kind: op.kind, Path: c.cfg.namespace.toServer(op.path)}
	}
	var res []zkconn.ReadResult
	err := c.retrying(ctx, "multiRead", ops[0].path, func(ctx context.Context, conn conn) error {
		var err error
		res, err = conn.MultiRead(ctx, reqs)
		return err
	})
	if err != nil {
		return nil, err
	}
	out := make([]ReadResult, len(res))
	for i, r := range res {
		switch {
		case r.Err != nil:
			op := "get"
			if ops[i].kind == zkconn.ReadChildren {
				op = "children"
			}
			out[i].Err = opErr(op, ops[i].path, r.Err)
		case ops[i].kind == zkconn.ReadData:
			out[i].Data, out[i].Stat = r.Data, statOf(r.Stat)
		default:
			out[i].Children = r.Children
		}
	}
	return out, nil
}
