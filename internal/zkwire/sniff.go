// Package zkwire is the one place that knows ZooKeeper's wire format: its
// opcodes, its frames and request headers, and the few messages
// go-zookeeper keeps to itself: the handshake answer (session id, password,
// negotiated timeout) and a raw closeSession.
package zkwire

import (
	"encoding/binary"
	"net"
	"sync"
	"time"
)

// ConnectResponse is the server's answer to a session handshake.
type ConnectResponse struct {
	ProtocolVersion int32
	Timeout         time.Duration // negotiated session timeout; 0 if the session expired
	SessionID       int64         // 0 if the session expired
	Passwd          []byte
}

// ParseConnectResponse decodes a handshake answer's payload (the frame
// without its length prefix). It reports false if the payload is too short
// for its fields or for the password its length announces, as go-zookeeper
// then refuses the answer too; a negative length is a null password.
func ParseConnectResponse(b []byte) (ConnectResponse, bool) {
	if len(b) < 20 {
		return ConnectResponse{}, false
	}
	r := ConnectResponse{
		ProtocolVersion: int32(binary.BigEndian.Uint32(b[0:4])),
		Timeout:         time.Duration(int32(binary.BigEndian.Uint32(b[4:8]))) * time.Millisecond,
		SessionID:       int64(binary.BigEndian.Uint64(b[8:16])),
	}
	// Compared as int64: 20+n overflows a 32-bit int.
	n := int64(int32(binary.BigEndian.Uint32(b[16:20])))
	if n > int64(len(b)-20) {
		return ConnectResponse{}, false
	}
	if n > 0 {
		r.Passwd = append([]byte(nil), b[20:20+n]...)
	}
	return r, true
}

// SniffConn wraps c; the first complete frame read from the server is decoded
// as a ConnectResponse and passed to onConnect (once, on the reading
// goroutine; it must not block). All bytes pass through unchanged, whatever
// chunks Read is called with. A frame that does not decode is passed through
// silently.
func SniffConn(c net.Conn, onConnect func(ConnectResponse)) net.Conn {
	return &sniffConn{Conn: c, onConnect: onConnect}
}

type sniffConn struct {
	net.Conn
	onConnect func(ConnectResponse)

	mu   sync.Mutex
	done bool
	buf  []byte
}

const maxHandshake = 1 << 10

func (s *sniffConn) Read(p []byte) (int, error) {
	n, err := s.Conn.Read(p)
	if n > 0 {
		s.observe(p[:n])
	}
	return n, err
}

func (s *sniffConn) observe(b []byte) {
	s.mu.Lock()
	if s.done {
		s.mu.Unlock()
		return
	}
	s.buf = append(s.buf, b...)
	if len(s.buf) < 4 {
		s.mu.Unlock()
		return
	}
	size := int(binary.BigEndian.Uint32(s.buf[:4]))
	if size < 0 || size > maxHandshake {
		s.done, s.buf = true, nil
		s.mu.Unlock()
		return
	}
	if len(s.buf) < 4+size {
		s.mu.Unlock()
		return
	}
	frame := s.buf[4 : 4+size]
	s.done, s.buf = true, nil
	s.mu.Unlock()
	if r, ok := ParseConnectResponse(frame); ok {
		s.onConnect(r)
	}
}
