package zkwire

import "encoding/binary"

// The persistent watches of ZooKeeper 3.6 and later, which go-zookeeper
// v1.0.4 cannot send: addWatch sets one, removeWatches takes a watch off.
const (
	OpRemoveWatches int32 = 18
	OpAddWatch      int32 = 106
)

// The modes of an addWatch request (AddWatchMode).
const (
	AddWatchPersistent          int32 = 0
	AddWatchPersistentRecursive int32 = 1
)

// The watch types of a removeWatches request (Watcher.WatcherType). A
// server before 3.9 knows only the first three; there Data takes off a
// persistent recursive watch, which it keeps among the data watches.
const (
	WatcherChildren            int32 = 1
	WatcherData                int32 = 2
	WatcherAny                 int32 = 3
	WatcherPersistent          int32 = 4
	WatcherPersistentRecursive int32 = 5
)

// OwnXidLimit is the highest xid of a request the client's own transport
// sends beside go-zookeeper's: go-zookeeper's xids are positive and the
// protocol's own (notifications, pings, auth, setWatches) are -1 to -8, so
// a reply with an xid at or below it is the transport's.
const OwnXidLimit int32 = -1 << 20

// AddWatchRequest returns an addWatch request frame, its length prefix
// included: a watch of mode (AddWatchPersistent...) on path.
func AddWatchRequest(xid int32, path string, mode int32) []byte {
	return pathRequest(xid, OpAddWatch, path, mode)
}

// RemoveWatchesRequest returns a removeWatches request frame, its length
// prefix included: take the watch of typ (WatcherData...) off path.
func RemoveWatchesRequest(xid int32, path string, typ int32) []byte {
	return pathRequest(xid, OpRemoveWatches, path, typ)
}

// WatchingReadRequest returns an exists (OpExists) or getChildren
// (OpGetChildren) request frame, its length prefix included, that sets a
// one-shot watch on path.
func WatchingReadRequest(xid, op int32, path string) []byte {
	b := make([]byte, 4, 4+8+4+len(path)+1)
	b = binary.BigEndian.AppendUint32(b, uint32(xid))
	b = binary.BigEndian.AppendUint32(b, uint32(op))
	b = binary.BigEndian.AppendUint32(b, uint32(len(path)))
	b = append(b, path...)
	b = append(b, 1) // watch
	binary.BigEndian.PutUint32(b[:4], uint32(len(b)-4))
	return b
}

// pathRequest is a request whose body is a path and an int.
func pathRequest(xid, op int32, path string, n int32) []byte {
	b := make([]byte, 4, 4+8+4+len(path)+4)
	b = binary.BigEndian.AppendUint32(b, uint32(xid))
	b = binary.BigEndian.AppendUint32(b, uint32(op))
	b = binary.BigEndian.AppendUint32(b, uint32(len(path)))
	b = append(b, path...)
	b = binary.BigEndian.AppendUint32(b, uint32(n))
	binary.BigEndian.PutUint32(b[:4], uint32(len(b)-4))
	return b
}

// ReplyHeader returns the xid, zxid and error code of a reply frame, its
// length prefix included; ok is false for a frame too short to hold them.
func ReplyHeader(frame []byte) (xid int32, zxid int64, code int32, ok bool) {
	if len(frame) < 20 {
		return 0, 0, 0, false
	}
	return int32(binary.BigEndian.Uint32(frame[4:8])), int64(binary.BigEndian.Uint64(frame[8:16])),
		int32(binary.BigEndian.Uint32(frame[16:20])), true
}
