package framework

import (
	"context"

	"github.com/gocurator/curator/internal/zkconn"
)

// conn is the connection the client runs on: internal/zkconn's Conn, the
// one door to go-zookeeper, or in this package's tests a fake that plays
// the server's part. Every request takes a context and returns when it ends
// (the request itself may still be answered later: a create's or a
// transaction's Late hook hears that answer).
type conn interface {
	Create(ctx context.Context, r zkconn.CreateRequest) (string, error)
	Delete(ctx context.Context, path string, version int32) error
	Exists(ctx context.Context, path string, watch zkconn.WatchMode) (bool, *zkconn.Stat, *zkconn.Watch, error)
	Get(ctx context.Context, path string, watch zkconn.WatchMode) ([]byte, *zkconn.Stat, *zkconn.Watch, error)
	Children(ctx context.Context, path string, watch zkconn.WatchMode) ([]string, *zkconn.Stat, *zkconn.Watch, error)
	Set(ctx context.Context, path string, data []byte, version int32) (*zkconn.Stat, error)
	GetACL(ctx context.Context, path string) ([]zkconn.ACL, *zkconn.Stat, error)
	SetACL(ctx context.Context, path string, acl []zkconn.ACL, version int32) (*zkconn.Stat, error)
	Sync(ctx context.Context, path string) error
	Multi(ctx context.Context, r zkconn.MultiRequest, sent func()) ([]zkconn.OpResult, error)
	AddAuth(ctx context.Context, scheme string, auth []byte) error
	AddWatch(ctx context.Context, path string, recursive bool) error
	RemoveWatch(ctx context.Context, path string, recursive, keep bool) error
	MultiRead(ctx context.Context, ops []zkconn.ReadOp) ([]zkconn.ReadResult, error)

	SessionID() int64
	Server() string
	DialErr() error
	ExpireSession(ctx context.Context) error
	EndSession(ctx context.Context, id int64) error
	Close()
}
