package locks_test

import (
	"context"
	"errors"
	"log/slog"
	"strings"
	"sync"
	"testing"

	"github.com/gocurator/curator/framework"
	"github.com/gocurator/curator/recipestest"
	"github.com/gocurator/curator/zkharness"
)

// pausedFencedWrite sets up a holder whose fenced write to /log has
// committed on the server while its reply waits in the proxy, as for a
// process paused at that moment; the holder's session is then ended on the
// server. It returns the holder's client, the write's result channel, the
// held reply, and the entry the write made.
func pausedFencedWrite(ctx context.Context, t *testing.T, ns string, proxy *zkharness.Proxy, opts ...framework.Option) (writeCtx context.CancelFunc, result <-chan error, held *zkharness.HeldReply, entry string, observer *framework.Client) {
	t.Helper()
	killer := zkharness.NewSessionKiller()
	c := newClientAt(t, proxy.Addr(), append([]framework.Option{framework.WithNamespace(ns), framework.WithDialer(killer.Dialer(nil))}, opts...)...)
	observer = newClientAt(t, server.ConnectString(), framework.WithNamespace(ns))
	if _, err := observer.Create(ctx, "/log", nil); err != nil {
		t.Fatal(err)
	}
	h := holdLock(ctx, t, c)

	held = proxy.HoldReply(zkharness.OpMulti)
	wctx, cancel := context.WithCancel(ctx)
	done := make(chan error, 1)
	go func() {
		_, err := c.Txn(wctx, h.Fence(), framework.CreateOp("/log/e-", []byte("paused"), framework.PersistentSequential))
		done <- err
	}()
	<-held.Arrived() // committed
	proxy.Blackhole(true)
	entries := children(t, observer, "/log")
	if len(entries) != 1 {
		t.Fatalf("log %v, want the one committed entry", entries)
	}
	if err := killer.KillAt(ctx, server.Addr()); err != nil {
		t.Fatal(err)
	}
	waitGone(t, observer, h.Path()) // the fence no longer holds
	return cancel, done, held, "/log/" + entries[0], observer
}

// A fenced write commits, its caller's context ends while the reply is
// delayed, and the hold is lost before the reply arrives: the library does
// not undo the write, because its fence no longer holds (the undo would be
// a write of the library's own after the hold was lost). It says so in its
// log, and the caller learns that the outcome is unknown.
func TestNoUndoOfAFencedWriteOnceTheFenceFails(t *testing.T) {
	ns := recipestest.Namespace(t)
	proxy := recipestest.StartProxy(t, server.Addr())
	logs := newLogWatch("refused by its fence")
	ctx := ctxT(t)
	cancel, result, held, entry, observer := pausedFencedWrite(ctx, t, ns, proxy, framework.WithLogger(slog.New(logs)))

	cancel() // the caller gives up; the client waits its grace for the reply, then returns
	err := <-result
	if !errors.Is(err, context.Canceled) || !errors.Is(err, framework.ErrOutcomeUnknown) {
		t.Fatalf("fenced write abandoned in flight: %v; want context.Canceled and ErrOutcomeUnknown", err)
	}
	_, _, gone, err := observer.ExistsW(ctx, entry)
	if err != nil {
		t.Fatal(err)
	}
	held.Deliver() // the late success reaches the client, and with it the undo
	proxy.Blackhole(false)
	select {
	case <-logs.seen:
	case <-gone.Done():
		t.Fatal("the library deleted a write its fence let through, after the hold was lost")
	case <-ctx.Done():
		t.Fatal("the undo never concluded")
	}
	if ok, _, err := observer.Exists(ctx, entry); !ok || err != nil {
		t.Fatalf("the committed entry after the refused undo: exists %v (%v)", ok, err)
	}
}

// A fenced write commits, its reply is lost with the connection, and the
// hold is lost before the retry: the retry's check fails, but the write is
// in the log, so Txn must not report a refusal. The outcome is unknown.
func TestFencedWriteRetriedAfterALostReplyIsUnknown(t *testing.T) {
	ns := recipestest.Namespace(t)
	proxy := recipestest.StartProxy(t, server.Addr())
	ctx := ctxT(t)
	_, result, held, entry, observer := pausedFencedWrite(ctx, t, ns, proxy)

	held.Drop() // the reply is lost with the connection
	proxy.Blackhole(false)
	err := <-result
	var te *framework.TxnError
	if errors.As(err, &te) || !errors.Is(err, framework.ErrOutcomeUnknown) {
		t.Fatalf("committed write retried after a lost reply: %v; want ErrOutcomeUnknown, not a refusal", err)
	}
	if ok, _, err := observer.Exists(ctx, entry); !ok || err != nil {
		t.Fatalf("the committed entry: exists %v (%v)", ok, err)
	}
}

// logWatch is a slog handler that closes seen once a record whose message
// contains want is logged.
type logWatch struct {
	want string
	seen chan struct{}
	once sync.Once
}

func newLogWatch(want string) *logWatch { return &logWatch{want: want, seen: make(chan struct{})} }

func (l *logWatch) Enabled(context.Context, slog.Level) bool { return true }

func (l *logWatch) Handle(_ context.Context, r slog.Record) error {
	if strings.Contains(r.Message, l.want) {
		l.once.Do(func() { close(l.seen) })
	}
	return nil
}

func (l *logWatch) WithAttrs([]slog.Attr) slog.Handler { return l }
func (l *logWatch) WithGroup(string) slog.Handler      { return l }
