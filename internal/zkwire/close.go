package zkwire

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"net"
	"time"
)

// CloseSession opens a raw connection to addr, re-attaches to the session
// (sessionID, passwd) and sends closeSession, waiting for the reply. The
// server ends the session at once (its ephemeral nodes go) and the client
// that held it finds it expired when it next connects, as Curator's
// KillSession test utility does it.
func CloseSession(ctx context.Context, addr string, sessionID int64, passwd []byte) error {
	var d net.Dialer
	conn, err := d.DialContext(ctx, "tcp", addr)
	if err != nil {
		return err
	}
	defer conn.Close()
	return CloseSessionOn(ctx, conn, sessionID, passwd)
}

// CloseSessionOn is CloseSession over conn, a fresh connection to a server
// (dialled as the client dials, through a proxy or TLS, say). It leaves conn
// open.
func CloseSessionOn(ctx context.Context, conn net.Conn, sessionID int64, passwd []byte) error {
	stop := context.AfterFunc(ctx, func() { conn.SetDeadline(time.Unix(1, 0)) })
	defer stop()

	// ConnectRequest: protocolVersion, lastZxidSeen, timeOut, sessionId, passwd, readOnly.
	req := binary.BigEndian.AppendUint32(nil, 0)
	req = binary.BigEndian.AppendUint64(req, 0)
	req = binary.BigEndian.AppendUint32(req, 30000)
	req = binary.BigEndian.AppendUint64(req, uint64(sessionID))
	req = binary.BigEndian.AppendUint32(req, uint32(len(passwd)))
	req = append(req, passwd...)
	req = append(req, 0)
	if err := writeFrame(conn, req); err != nil {
		return wrapCtx(ctx, err)
	}
	frame, err := readFrame(conn)
	if err != nil {
		return wrapCtx(ctx, err)
	}
	r, ok := ParseConnectResponse(frame)
	if !ok {
		return errors.New("zkwire: malformed handshake answer")
	}
	if r.SessionID != sessionID {
		return fmt.Errorf("zkwire: session %#x is already gone", sessionID)
	}
	// RequestHeader: xid, type.
	hdr := binary.BigEndian.AppendUint32(nil, 1)
	op := OpCloseSession
	hdr = binary.BigEndian.AppendUint32(hdr, uint32(op))
	if err := writeFrame(conn, hdr); err != nil {
		return wrapCtx(ctx, err)
	}
	for {
		frame, err := readFrame(conn)
		if err != nil {
			return wrapCtx(ctx, err)
		}
		if len(frame) >= 16 && int32(binary.BigEndian.Uint32(frame[0:4])) == 1 {
			if code := int32(binary.BigEndian.Uint32(frame[12:16])); code != 0 {
				return fmt.Errorf("zkwire: closeSession failed with code %d", code)
			}
			return nil
		}
	}
}

func wrapCtx(ctx context.Context, err error) error {
	if ctx.Err() != nil {
		return fmt.Errorf("%w: %w", ctx.Err(), err)
	}
	return err
}

// writeFrame writes a length-prefixed frame.
func writeFrame(w io.Writer, payload []byte) error {
	b := binary.BigEndian.AppendUint32(make([]byte, 0, 4+len(payload)), uint32(len(payload)))
	_, err := w.Write(append(b, payload...))
	return err
}

// readFrame reads one frame and returns its payload (see ReadFrame).
func readFrame(r io.Reader) ([]byte, error) {
	frame, err := ReadFrame(r)
	if err != nil {
		return nil, err
	}
	return frame[4:], nil
}
