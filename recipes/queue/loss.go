package queue

import (
	"context"

	"github.com/gocurator/curator/framework"
	"github.com/gocurator/curator/listener"
)

// watchLoss returns a context that ends with ctx, or with ErrLockLost as
// its cause once an ephemeral node made on session after changed (from
// client.StateChanged before the create) may be gone: the connection
// entered an error state of the client's ErrorPolicy, or the session
// changed. stop ends the watch and waits for its goroutine.
func watchLoss(ctx context.Context, client *framework.Client, changed <-chan struct{}, session int64) (context.Context, func()) {
	cctx, cancel := context.WithCancelCause(ctx)
	policy := client.ErrorPolicy()
	done := make(chan struct{})
	go func() {
		defer close(done)
		for {
			select {
			case <-changed:
			case <-cctx.Done():
				return
			}
			var st listener.ConnectionState
			st, changed = client.StateChanged()
			// Reconnected follows Suspended or Lost: one of them came and
			// went while we looked away.
			if policy.IsErrorState(st) || client.SessionID() != session ||
				(st == listener.Reconnected && policy.IsErrorState(listener.Suspended)) {
				cancel(ErrLockLost)
				return
			}
		}
	}()
	return cctx, func() {
		cancel(nil)
		<-done
	}
}
