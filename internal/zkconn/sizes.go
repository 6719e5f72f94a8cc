package zkconn

// The sizes of requests and replies on the wire, as ZooKeeper's jute
// encoding counts them, each frame with its 4-byte length prefix: a
// request's header is its xid and opcode (8 bytes), a reply's its xid, zxid
// and error code (16). A reply with an error has no body. They feed the
// request hook (RequestInfo's BytesOut and BytesIn); nothing else uses them.
const (
	requestFrame = 4 + 8
	replyFrame   = 4 + 16
	statSize     = 6*8 + 5*4 // six longs (czxid, mzxid, ctime, mtime, ephemeralOwner, pzxid), five ints
	multiHeader  = 4 + 1 + 4
)

func strSize(s string) int { return 4 + len(s) }
func bufSize(b []byte) int { return 4 + len(b) }
func aclSize(acl []ACL) int {
	n := 4
	for _, a := range acl {
		n += 4 + strSize(a.Scheme) + strSize(a.ID)
	}
	return n
}

func listSize(names []string) int {
	n := 4
	for _, s := range names {
		n += strSize(s)
	}
	return n
}

// replySize is the size of a reply frame with a body of n bytes, or with none
// if err (the server refused).
func replySize(n int, err error) int {
	if err != nil {
		return replyFrame
	}
	return replyFrame + n
}

// opSize is the size of op in a multi request.
func opSize(op Op) int {
	switch op.Kind {
	case OpCreate:
		return multiHeader + strSize(op.Path) + bufSize(op.Data) + aclSize(op.ACL) + 4
	case OpSetData:
		return multiHeader + strSize(op.Path) + bufSize(op.Data) + 4
	default: // delete, check
		return multiHeader + strSize(op.Path) + 4
	}
}

// resultSize is the size of a multi's result in its reply.
func resultSize(r OpResult) int {
	switch {
	case r.Err != nil:
		return multiHeader + 4
	case r.Path != "":
		return multiHeader + strSize(r.Path)
	case r.Stat != nil:
		return multiHeader + statSize
	}
	return multiHeader
}
