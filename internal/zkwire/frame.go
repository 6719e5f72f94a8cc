package zkwire

import (
	"encoding/binary"
	"errors"
	"io"
)

// A frame is ZooKeeper's unit on the wire: a 4-byte big-endian length, then
// that many bytes. A request's payload starts with its xid and opcode, a
// reply's with its xid, zxid and error code. The first frame each way is
// the session handshake, which has neither. go-zookeeper writes one request
// per Write.

// MaxFrame is the largest frame ReadFrame and Splitter accept: ZooKeeper's
// own default limit (jute.maxbuffer, 1 MiB) with room to spare.
const MaxFrame = 64 << 20

// ErrFrameTooLarge is ReadFrame's error for a length prefix above MaxFrame.
var ErrFrameTooLarge = errors.New("zkwire: frame too large")

// ReadFrame reads one frame, its length prefix included.
func ReadFrame(r io.Reader) ([]byte, error) {
	var size [4]byte
	if _, err := io.ReadFull(r, size[:]); err != nil {
		return nil, err
	}
	n := binary.BigEndian.Uint32(size[:])
	if n > MaxFrame {
		return nil, ErrFrameTooLarge
	}
	frame := make([]byte, 4+n)
	copy(frame, size[:])
	_, err := io.ReadFull(r, frame[4:])
	return frame, err
}

// RequestHeader returns the xid and opcode of a request frame, its length
// prefix included; ok is false for a frame too short to hold them.
func RequestHeader(frame []byte) (xid, op int32, ok bool) {
	if len(frame) < 12 {
		return 0, 0, false
	}
	return int32(binary.BigEndian.Uint32(frame[4:8])), int32(binary.BigEndian.Uint32(frame[8:12])), true
}

// ReplyXid returns the xid of a reply frame, its length prefix included.
// Watch notifications have xid NotificationXid.
func ReplyXid(frame []byte) (xid int32, ok bool) {
	if len(frame) < 8 {
		return 0, false
	}
	return int32(binary.BigEndian.Uint32(frame[4:8])), true
}

// NotificationXid is the xid of a watch notification.
const NotificationXid int32 = -1

// IsCreate reports whether a request with this opcode creates a node: a
// create of any kind, or a multi (whose first op CreatedPath reads).
func IsCreate(op int32) bool {
	switch op {
	case OpCreate, OpCreate2, OpCreateContainer, OpCreateTTL, OpMulti:
		return true
	}
	return false
}

// CreatedPath returns the path a create request frame (length prefix
// included) creates; for a multi, its first op's path. ok is false for any
// other frame, and for the handshake and pings (their xids are not
// positive).
func CreatedPath(frame []byte) (path []byte, ok bool) {
	xid, op, ok := RequestHeader(frame)
	if !ok || xid <= 0 || !IsCreate(op) {
		return nil, false
	}
	at := 12
	if op == OpMulti {
		at += 9 // the first op's header: type, done, error
	}
	if len(frame) < at+4 {
		return nil, false
	}
	n := int(int32(binary.BigEndian.Uint32(frame[at : at+4])))
	if n < 0 || len(frame)-(at+4) < n {
		return nil, false
	}
	return frame[at+4 : at+4+n], true
}

// Splitter cuts a byte stream, fed in chunks of any size, into frames, and
// hands each payload (the frame without its length prefix) but the first,
// the handshake, to OnFrame. A length prefix above MaxFrame stops it: it
// ignores the rest of the stream. Feed is not safe for concurrent use.
type Splitter struct {
	OnFrame func(payload []byte)

	buf     []byte
	seen    bool
	stopped bool
}

// Feed adds b to the stream.
func (s *Splitter) Feed(b []byte) {
	if s.stopped {
		return
	}
	s.buf = append(s.buf, b...)
	for len(s.buf) >= 4 {
		n := binary.BigEndian.Uint32(s.buf[:4])
		if n > MaxFrame {
			s.stopped, s.buf = true, nil
			return
		}
		if uint32(len(s.buf)-4) < n {
			return
		}
		if s.seen {
			s.OnFrame(s.buf[4 : 4+n])
		}
		s.seen = true
		s.buf = s.buf[4+n:]
	}
}
