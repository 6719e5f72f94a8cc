package zkwire

import (
	"encoding/binary"
	"errors"
)

// OpMultiRead is ZooKeeper 3.6+'s multiRead: getData and getChildren
// requests of several nodes in one request, which go-zookeeper v1.0.4
// cannot send. The server answers each on its own, in order: not
// atomically, and one that fails (a missing node) fails alone.
const OpMultiRead int32 = 22

// opError is the type of a multi reply's failed operation.
const opError int32 = -1

// ReadOp is one read of a multiRead: Op is OpGetData or OpGetChildren.
type ReadOp struct {
	Op   int32
	Path string
}

// Stat is a node's stat, field for field as the wire carries it (and as
// go-zookeeper's zk.Stat and framework.Stat lay it out).
type Stat struct {
	Czxid          int64
	Mzxid          int64
	Ctime          int64
	Mtime          int64
	Version        int32
	Cversion       int32
	Aversion       int32
	EphemeralOwner int64
	DataLength     int32
	NumChildren    int32
	Pzxid          int64
}

// statSize is a Stat's size on the wire.
const statSize = 68

// ReadResult is the answer to one ReadOp: Code is 0 or the operation's
// error code; Op says which read answered (OpGetData or OpGetChildren)
// when Code is 0; a getData has Data and Stat, a getChildren Children (the
// server sends no stat with it).
type ReadResult struct {
	Code     int32
	Op       int32
	Data     []byte
	Stat     Stat
	Children []string
}

// MultiReadRequest returns a multiRead request frame, its length prefix
// included, of ops, each without a watch.
func MultiReadRequest(xid int32, ops []ReadOp) []byte {
	n := 4 + 8 + 9
	for _, op := range ops {
		n += 9 + 4 + len(op.Path) + 1
	}
	b := make([]byte, 4, n)
	b = binary.BigEndian.AppendUint32(b, uint32(xid))
	b = binary.BigEndian.AppendUint32(b, uint32(OpMultiRead))
	for _, op := range ops {
		b = multiHeader(b, op.Op, false)
		b = binary.BigEndian.AppendUint32(b, uint32(len(op.Path)))
		b = append(b, op.Path...)
		b = append(b, 0) // no watch
	}
	b = multiHeader(b, opError, true) // the end
	binary.BigEndian.PutUint32(b[:4], uint32(len(b)-4))
	return b
}

// multiHeader appends a multi request's operation header.
func multiHeader(b []byte, op int32, done bool) []byte {
	b = binary.BigEndian.AppendUint32(b, uint32(op))
	if done {
		b = append(b, 1)
	} else {
		b = append(b, 0)
	}
	return binary.BigEndian.AppendUint32(b, 0xFFFFFFFF) // err: -1 in a request
}

// errMalformed is the error of a reply that does not parse.
var errMalformed = errors.New("zkwire: a malformed multiRead reply")

// ParseMultiReadReply returns the results of a multiRead reply frame, its
// length prefix and reply header included, one for each of the request's
// ops; they hold none of the frame's memory. A reply whose header carries an error code has no results: the
// caller reads the code with ReplyHeader.
func ParseMultiReadReply(frame []byte, ops int) ([]ReadResult, error) {
	if len(frame) < 20 {
		return nil, errMalformed
	}
	r := reader{b: frame[20:]}
	results := make([]ReadResult, 0, ops)
	for {
		typ, done, code := r.int32(), r.bool(), r.int32()
		if r.bad || done {
			break
		}
		if len(results) == ops {
			return nil, errMalformed
		}
		res := ReadResult{Op: typ}
		switch typ {
		case OpGetData:
			if d := r.buffer(); d != nil {
				res.Data = append(make([]byte, 0, len(d)), d...) // not the frame's: it would keep the frame
			}
			res.Stat = r.stat()
		case OpGetChildren:
			res.Children = r.strings()
		case opError:
			res.Code = r.int32()
			if res.Code == 0 {
				res.Code = code
			}
		default:
			return nil, errMalformed
		}
		results = append(results, res)
	}
	if r.bad || len(results) != ops {
		return nil, errMalformed
	}
	return results, nil
}

// reader reads jute's encoding from b; a read past the end sets bad and
// returns zero values.
type reader struct {
	b   []byte
	bad bool
}

func (r *reader) take(n int) []byte {
	if r.bad || n < 0 || n > len(r.b) {
		r.bad = true
		return nil
	}
	p := r.b[:n:n]
	r.b = r.b[n:]
	return p
}

func (r *reader) int32() int32 {
	p := r.take(4)
	if p == nil {
		return 0
	}
	return int32(binary.BigEndian.Uint32(p))
}

func (r *reader) int64() int64 {
	p := r.take(8)
	if p == nil {
		return 0
	}
	return int64(binary.BigEndian.Uint64(p))
}

func (r *reader) bool() bool {
	p := r.take(1)
	return p != nil && p[0] != 0
}

// buffer reads a length-prefixed byte string: nil for length -1.
func (r *reader) buffer() []byte {
	n := r.int32()
	if n == -1 || r.bad {
		return nil
	}
	return r.take(int(n))
}

func (r *reader) strings() []string {
	n := r.int32()
	if n == -1 || r.bad {
		return nil
	}
	if n < 0 || int(n) > len(r.b)/4 { // each takes 4 bytes at least
		r.bad = true
		return nil
	}
	s := make([]string, n)
	for i := range s {
		s[i] = string(r.buffer())
	}
	return s
}

func (r *reader) stat() Stat {
	if len(r.b) < statSize {
		r.bad = true
		return Stat{}
	}
	return Stat{
		Czxid: r.int64(), Mzxid: r.int64(), Ctime: r.int64(), Mtime: r.int64(),
		Version: r.int32(), Cversion: r.int32(), Aversion: r.int32(),
		EphemeralOwner: r.int64(), DataLength: r.int32(), NumChildren: r.int32(), Pzxid: r.int64(),
	}
}
