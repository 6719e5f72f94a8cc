package zkwire

import (
	"bytes"
	"encoding/binary"
	"io"
	"net"
	"testing"
	"time"
)

func handshake(sessionID int64, timeoutMs int32, passwd []byte) []byte {
	p := binary.BigEndian.AppendUint32(nil, 0)
	p = binary.BigEndian.AppendUint32(p, uint32(timeoutMs))
	p = binary.BigEndian.AppendUint64(p, uint64(sessionID))
	p = binary.BigEndian.AppendUint32(p, uint32(len(passwd)))
	p = append(p, passwd...)
	p = append(p, 0) // readOnly
	return append(binary.BigEndian.AppendUint32(nil, uint32(len(p))), p...)
}

// Whatever the chunking of reads, the bytes pass through unchanged and the
// handshake is decoded exactly once.
func TestSniffConnAcrossChunkings(t *testing.T) {
	passwd := bytes.Repeat([]byte{7}, 16)
	stream := append(handshake(0x1234, 4000, passwd), []byte("after the handshake: other frames")...)
	for _, chunk := range []int{1, 2, 3, 5, 17, len(stream)} {
		server, client := net.Pipe()
		var got []ConnectResponse
		sc := SniffConn(client, func(r ConnectResponse) { got = append(got, r) })
		go func() {
			for i := 0; i < len(stream); i += chunk {
				server.Write(stream[i:min(i+chunk, len(stream))])
			}
			server.Close()
		}()
		read, err := io.ReadAll(sc)
		if err != nil || !bytes.Equal(read, stream) {
			t.Fatalf("chunk %d: read %q, %v", chunk, read, err)
		}
		if len(got) != 1 || got[0].SessionID != 0x1234 || got[0].Timeout != 4*time.Second || !bytes.Equal(got[0].Passwd, passwd) {
			t.Fatalf("chunk %d: decoded %+v", chunk, got)
		}
	}
}

func TestParseConnectResponseExpired(t *testing.T) {
	frame := handshake(0, 0, nil)
	r, ok := ParseConnectResponse(frame[4:])
	if !ok || r.SessionID != 0 || r.Timeout != 0 {
		t.Fatalf("expired answer decoded as %+v, %v", r, ok)
	}
	if _, ok := ParseConnectResponse([]byte{1, 2, 3}); ok {
		t.Fatal("a short frame decoded")
	}
}
