package framework

import (
	"context"

	"github.com/gocurator/curator/internal/zkconn"
)

type writtenKey struct{}

// NotifyWritten returns a copy of ctx and a channel that is closed once the
// request of a Create, or of a Txn, made with the copy has been written to
// the server's connection: a request made on the same Client after that is
// sent, and answered, after it (a session's requests go out in order, and
// ZooKeeper answers them in order), unless the connection drops in between
// and the create is sent again on the next one. It lets a recipe send a
// request right behind another, both in one round trip: the locks list
// their directory behind the create of their node.
//
// The request is known by the path it creates (a Txn's first op's path):
// another create of the same path on the Client may close the channel
// instead, so give it a unique path (WithProtection). The requests that
// make missing parents do not close it. A Create or Txn that succeeds has
// closed it by the time it returns; one that fails may never close it.
func NotifyWritten(ctx context.Context) (context.Context, <-chan struct{}) {
	n := zkconn.NewWriteNotice()
	return context.WithValue(ctx, writtenKey{}, n), n.C()
}

// writeNoticeOf returns the notice NotifyWritten put in ctx, or nil.
func writeNoticeOf(ctx context.Context) *zkconn.WriteNotice {
	n, _ := ctx.Value(writtenKey{}).(*zkconn.WriteNotice)
	return n
}
