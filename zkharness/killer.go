package zkharness

import (
	"context"
	"errors"
	"net"
	"sync"
	"time"

	"github.com/gocurator/curator/framework"
	"github.com/gocurator/curator/internal/zkwire"
)

// SessionKiller expires a client's session on the server, on demand, as
// Curator's KillSession does. go-zookeeper keeps the session password to
// itself, so the killer learns it on the wire: give the client
// killer.Dialer(nil) as its dialer.
type SessionKiller struct {
	mu        sync.Mutex
	addr      string
	sessionID int64
	passwd    []byte
}

// NewSessionKiller returns a killer that knows no session yet.
func NewSessionKiller() *SessionKiller { return &SessionKiller{} }

// Dialer wraps next (net.DialTimeout if nil) to record the address, session
// id and password of every session handshake that passes through.
func (k *SessionKiller) Dialer(next framework.Dialer) framework.Dialer {
	if next == nil {
		next = net.DialTimeout
	}
	return func(network, addr string, timeout time.Duration) (net.Conn, error) {
		c, err := next(network, addr, timeout)
		if err != nil {
			return nil, err
		}
		return zkwire.SniffConn(c, func(r zkwire.ConnectResponse) {
			if r.SessionID == 0 {
				return
			}
			k.mu.Lock()
			defer k.mu.Unlock()
			k.addr, k.sessionID, k.passwd = addr, r.SessionID, r.Passwd
		}), nil
	}
}

// SessionID returns the last session seen, 0 if none.
func (k *SessionKiller) SessionID() int64 {
	k.mu.Lock()
	defer k.mu.Unlock()
	return k.sessionID
}

// Kill closes the last session seen, on the server it was made with: its
// ephemeral nodes are deleted at once, and the client finds the session
// expired when it reconnects.
func (k *SessionKiller) Kill(ctx context.Context) error {
	k.mu.Lock()
	addr := k.addr
	k.mu.Unlock()
	return k.KillAt(ctx, addr)
}

// KillAt is Kill through the server at addr (when the client's own route is
// cut off, say).
func (k *SessionKiller) KillAt(ctx context.Context, addr string) error {
	k.mu.Lock()
	id, passwd := k.sessionID, k.passwd
	k.mu.Unlock()
	if id == 0 {
		return errors.New("no session seen yet")
	}
	return zkwire.CloseSession(ctx, addr, id, passwd)
}
