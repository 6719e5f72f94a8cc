package zkwire

import (
	"bytes"
	"context"
	"encoding/binary"
	"io"
	"net"
	"slices"
	"testing"
	"time"
)

// answer builds a handshake answer's payload with a password length of its
// own (which may lie).
func answer(sessionID int64, timeoutMs int32, passwdLen int32, passwd []byte) []byte {
	p := binary.BigEndian.AppendUint32(nil, 0)
	p = binary.BigEndian.AppendUint32(p, uint32(timeoutMs))
	p = binary.BigEndian.AppendUint64(p, uint64(sessionID))
	p = binary.BigEndian.AppendUint32(p, uint32(passwdLen))
	return append(p, passwd...)
}

// prefixed returns payload with its length prefix.
func prefixed(payload []byte) []byte {
	return append(binary.BigEndian.AppendUint32(nil, uint32(len(payload))), payload...)
}

// reply builds a reply frame's payload: xid, zxid, error code.
func reply(xid int32, code int32) []byte {
	p := binary.BigEndian.AppendUint32(nil, uint32(xid))
	p = binary.BigEndian.AppendUint64(p, 99)
	return binary.BigEndian.AppendUint32(p, uint32(code))
}

// decodeAnswer is the reference decoding of a handshake answer, as
// go-zookeeper's decoder reads its fields: three numbers and a buffer whose
// length, if not negative, must fit in what is left.
func decodeAnswer(b []byte) (ConnectResponse, bool) {
	if len(b) < 20 {
		return ConnectResponse{}, false
	}
	var r ConnectResponse
	r.ProtocolVersion = int32(uint32(b[0])<<24 | uint32(b[1])<<16 | uint32(b[2])<<8 | uint32(b[3]))
	ms := int32(uint32(b[4])<<24 | uint32(b[5])<<16 | uint32(b[6])<<8 | uint32(b[7]))
	r.Timeout = time.Duration(ms) * time.Millisecond
	for _, c := range b[8:16] {
		r.SessionID = r.SessionID<<8 | int64(c)
	}
	n := int32(uint32(b[16])<<24 | uint32(b[17])<<16 | uint32(b[18])<<8 | uint32(b[19]))
	rest := b[20:]
	switch {
	case n < 0:
	case int64(n) > int64(len(rest)):
		return ConnectResponse{}, false
	case n > 0:
		r.Passwd = rest[:n]
	}
	return r, true
}

func equalResponse(a, b ConnectResponse) bool {
	return a.ProtocolVersion == b.ProtocolVersion && a.Timeout == b.Timeout &&
		a.SessionID == b.SessionID && bytes.Equal(a.Passwd, b.Passwd)
}

func addAnswers(f *testing.F) {
	passwd := bytes.Repeat([]byte{7}, 16)
	f.Add(answer(0x1234, 4000, 16, passwd))
	f.Add(append(answer(0x1234, 4000, 16, passwd), 0)) // with the readOnly flag
	f.Add(answer(0, 0, 0, nil))                        // an expired session
	f.Add(answer(1, 1, -1, nil))                       // a null password
	f.Add(answer(1, 1, 17, passwd))                    // truncated
	f.Add(answer(1, 1, 0x7fffffff, passwd))            // overflows 20+n on 32 bits
	f.Add(answer(1, 1, -0x80000000, nil))
	f.Add([]byte{1, 2, 3})
}

// FuzzParseConnectResponse: any payload decodes as the reference decoding
// does, without panicking, and the password is a copy.
func FuzzParseConnectResponse(f *testing.F) {
	addAnswers(f)
	f.Fuzz(func(t *testing.T, b []byte) {
		in := slices.Clone(b)
		got, ok := ParseConnectResponse(b)
		want, wantOK := decodeAnswer(in)
		if ok != wantOK || !equalResponse(got, want) {
			t.Fatalf("ParseConnectResponse(%x) = %+v, %v; want %+v, %v", in, got, ok, want, wantOK)
		}
		if !bytes.Equal(b, in) {
			t.Fatalf("the payload was changed: %x -> %x", in, b)
		}
		for i := range b {
			b[i] ^= 0xff
		}
		if !equalResponse(got, want) {
			t.Fatalf("the password shares the payload's memory")
		}
	})
}

// chunkConn serves a byte stream in reads of the sizes chunks gives, in
// turn; it is written to by nobody.
type chunkConn struct {
	net.Conn // nil: only Read is used
	stream   []byte
	chunks   []byte
	next     int
}

func (c *chunkConn) Read(p []byte) (int, error) {
	if len(c.stream) == 0 {
		return 0, io.EOF
	}
	n := 1
	if len(c.chunks) > 0 {
		n = int(c.chunks[c.next%len(c.chunks)]) + 1
		c.next++
	}
	n = min(n, len(p), len(c.stream))
	copy(p, c.stream[:n])
	c.stream = c.stream[n:]
	return n, nil
}

// FuzzSniffConn: whatever the stream and however it is cut into reads, the
// bytes pass through unchanged, the sniffer keeps no more than the first
// frame, and onConnect runs once if the first frame is a handshake answer
// of at most maxHandshake bytes, with its decoding, and never otherwise.
func FuzzSniffConn(f *testing.F) {
	passwd := bytes.Repeat([]byte{7}, 16)
	good := prefixed(append(answer(0x1234, 4000, 16, passwd), 0))
	f.Add(append(slices.Clone(good), "then other frames"...), []byte{0, 1, 2, 16})
	f.Add(good, []byte{})
	f.Add(good[:10], []byte{3})
	f.Add(prefixed(answer(1, 1, 17, passwd)), []byte{255})
	f.Add(append(binary.BigEndian.AppendUint32(nil, maxHandshake+1), make([]byte, maxHandshake+1)...), []byte{255})
	f.Add([]byte{0xff, 0xff, 0xff, 0xff, 1, 2}, []byte{0})
	f.Fuzz(func(t *testing.T, stream, chunks []byte) {
		var got []ConnectResponse
		sc := SniffConn(&chunkConn{stream: stream, chunks: chunks}, func(r ConnectResponse) { got = append(got, r) })
		read, err := io.ReadAll(sc)
		if err != nil || !bytes.Equal(read, stream) {
			t.Fatalf("read %x, %v; want %x", read, err, stream)
		}
		if s := sc.(*sniffConn); len(s.buf) >= 4+maxHandshake || (s.done && s.buf != nil) {
			t.Fatalf("%d bytes still buffered (done: %v)", len(s.buf), s.done)
		}
		var want []ConnectResponse
		if len(stream) >= 4 {
			size := int64(binary.BigEndian.Uint32(stream))
			if size <= maxHandshake && int64(len(stream)) >= 4+size {
				if r, ok := decodeAnswer(stream[4 : 4+size]); ok {
					want = append(want, r)
				}
			}
		}
		if len(got) != len(want) || (len(got) == 1 && !equalResponse(got[0], want[0])) {
			t.Fatalf("onConnect got %+v, want %+v", got, want)
		}
	})
}

// scriptConn answers with a fixed byte stream (then EOF) and records what
// is written to it.
type scriptConn struct {
	net.Conn // nil: only the methods below are used
	answers  *bytes.Reader
	written  bytes.Buffer
}

func (c *scriptConn) Read(p []byte) (int, error)       { return c.answers.Read(p) }
func (c *scriptConn) Write(p []byte) (int, error)      { return c.written.Write(p) }
func (c *scriptConn) SetDeadline(time.Time) error      { return nil }
func (c *scriptConn) SetReadDeadline(time.Time) error  { return nil }
func (c *scriptConn) SetWriteDeadline(time.Time) error { return nil }
func (c *scriptConn) Close() error                     { return nil }
func (c *scriptConn) LocalAddr() net.Addr              { return nil }
func (c *scriptConn) RemoteAddr() net.Addr             { return nil }

// FuzzCloseSessionOn feeds CloseSessionOn arbitrary answers from the
// server: it never panics, ends once they run out, sends the handshake
// and the closeSession request it should, and succeeds only on a handshake
// answer for our session followed by a reply to xid 1 with code 0.
func FuzzCloseSessionOn(f *testing.F) {
	passwd := bytes.Repeat([]byte{7}, 16)
	ok := append(prefixed(answer(0x1234, 4000, 16, passwd)), prefixed(reply(1, 0))...)
	f.Add(ok, int64(0x1234))
	f.Add(ok, int64(0x1235))
	f.Add(append(prefixed(answer(0x1234, 4000, 16, passwd)), append(prefixed(reply(-1, 0)), prefixed(reply(1, -112))...)...), int64(0x1234))
	f.Add(append(prefixed(answer(0x1234, 4000, 16, passwd)), prefixed(reply(1, 0)[:15])...), int64(0x1234))
	f.Add(prefixed(answer(0x1234, 4000, 17, passwd)), int64(0x1234))
	f.Add([]byte{0xff, 0xff, 0xff, 0xff}, int64(0))
	f.Fuzz(func(t *testing.T, answers []byte, sessionID int64) {
		conn := &scriptConn{answers: bytes.NewReader(answers)}
		err := CloseSessionOn(context.Background(), conn, sessionID, passwd)

		// What was sent: the handshake, then closeSession if the answer
		// was for our session.
		sent := bytes.NewReader(conn.written.Bytes())
		hs, herr := readFrame(sent)
		if herr != nil || len(hs) != 4+8+4+8+4+len(passwd)+1 ||
			int64(binary.BigEndian.Uint64(hs[16:24])) != sessionID || !bytes.Equal(hs[28:28+len(passwd)], passwd) {
			t.Fatalf("handshake sent: %x, %v", hs, herr)
		}

		// The reference outcome.
		in := bytes.NewReader(answers)
		first, ferr := readFrame(in)
		r, decoded := decodeAnswer(first)
		ours := ferr == nil && decoded && r.SessionID == sessionID
		closeSent, cerr := readFrame(sent)
		if wantClose := ours; (cerr == nil) != wantClose ||
			(wantClose && !bytes.Equal(closeSent, binary.BigEndian.AppendUint32([]byte{0, 0, 0, 1}, uint32(0xfffffff5)))) {
			t.Fatalf("closeSession request %x, %v; our session answered: %v", closeSent, cerr, wantClose)
		}
		wantOK := false
		for ours {
			frame, err := readFrame(in)
			if err != nil {
				break
			}
			if len(frame) >= 16 && int32(binary.BigEndian.Uint32(frame)) == 1 {
				wantOK = int32(binary.BigEndian.Uint32(frame[12:16])) == 0
				break
			}
		}
		if (err == nil) != wantOK {
			t.Fatalf("CloseSessionOn over %x (session %#x) = %v, want success %v", answers, sessionID, err, wantOK)
		}
	})
}
