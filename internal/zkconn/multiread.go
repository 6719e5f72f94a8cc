package zkconn

// Reads of several nodes in one request: ZooKeeper 3.6+'s multiRead, a
// request of the transport's own (own.go), since go-zookeeper v1.0.4
// cannot send it.

import (
	"context"
	"fmt"

	"github.com/gocurator/curator/internal/zkerr"
	"github.com/gocurator/curator/internal/zkwire"
)

// ReadKind is what a ReadOp reads.
type ReadKind int32

// The kinds of read.
const (
	ReadData     = ReadKind(zkwire.OpGetData)     // data and stat
	ReadChildren = ReadKind(zkwire.OpGetChildren) // the children's names, without a stat
)

// ReadOp is one read of a MultiRead, of a server path.
type ReadOp struct {
	Kind ReadKind
	Path string
}

// ReadResult is the answer to one ReadOp: Err is the read's own error
// (zkerr.NoNode, zkerr.NoAuth, ...); a data read has Data and Stat, a
// children read Children.
type ReadResult struct {
	Data     []byte
	Stat     *Stat
	Children []string
	Err      error
}

// MultiRead sends ops, each without a watch, in one multiRead request on
// the connection in use, and returns a result for each, in order. The
// server makes the reads one after the other, not as one: each sees the
// tree as it is then, and one that fails fails alone. It fails as a whole
// with zkerr.ConnectionLoss when there is no connection with a session,
// with zkerr.ReplyTooLarge when the reply is longer than the connection
// accepts (Config.MaxReplySize), and with the server's refusal (or the
// connection's end) on a server before 3.6.
func (c *Conn) MultiRead(ctx context.Context, ops []ReadOp) ([]ReadResult, error) {
	wire := make([]zkwire.ReadOp, len(ops))
	out := requestFrame + 9 // the closing header
	for i, op := range ops {
		wire[i] = zkwire.ReadOp{Op: int32(op.Kind), Path: op.Path}
		out += 9 + strSize(op.Path) + 1
	}
	var first string
	if len(ops) > 0 {
		first = ops[0].Path
	}
	frame, err := c.ownReply(ctx, request{"multiRead", first, out}, func(xid int32) []byte {
		return zkwire.MultiReadRequest(xid, wire)
	})
	if err != nil {
		return nil, err
	}
	replies, err := zkwire.ParseMultiReadReply(frame, len(ops))
	if err != nil {
		return nil, fmt.Errorf("%w: %v", zkerr.MarshallingError, err)
	}
	results := make([]ReadResult, len(replies))
	for i := range replies {
		r := &replies[i]
		switch {
		case r.Code != 0:
			results[i].Err = zkerr.Code(r.Code)
		case r.Op != int32(ops[i].Kind):
			return nil, fmt.Errorf("%w: a multiRead answered read %d with opcode %d", zkerr.MarshallingError, i, r.Op)
		case ops[i].Kind == ReadData:
			results[i].Data, results[i].Stat = r.Data, &r.Stat // in replies: one allocation for every stat
		default:
			results[i].Children = r.Children
		}
	}
	return results, nil
}
