package locks_test

import (
	"errors"
	"testing"
	"time"

	"github.com/gocurator/curator/framework"
	"github.com/gocurator/curator/listener"
	"github.com/gocurator/curator/recipes/locks"
	"github.com/gocurator/curator/recipestest"
	"github.com/gocurator/curator/retry"
	"github.com/gocurator/curator/zkharness"
)

// A holder paused past its session (its connection silent while the server
// ends the session, as for a stopped process) resumes and releases: it is
// told the hold was lost, by Release, Err and Lost alike, whatever its
// delete finds on the new session. Under both error policies: the session,
// not the connection, ended the hold.
func TestReleaseAfterTheSessionEndedIsALoss(t *testing.T) {
	for _, tc := range []struct {
		name   string
		policy listener.ErrorPolicy
	}{
		{"standard", listener.StandardErrorPolicy{}},
		{"session", listener.SessionErrorPolicy{}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ctx := ctxT(t)
			// The holder's Release must begin while its client still thinks
			// itself connected (a Release begun while suspended does not
			// wait for the connection, and leaves the delete to the
			// client): on a machine too slow to see the node go before the
			// silent client suspends itself, the setup is made again.
			var (
				c        *framework.Client
				h        *locks.Hold
				proxy    *zkharness.Proxy
				lost     <-chan struct{}
				prepared bool
			)
			for attempt := 0; attempt < 3 && !prepared; attempt++ {
				ns := recipestest.Namespace(t)
				proxy = recipestest.StartProxy(t, server.Addr())
				killer := zkharness.NewSessionKiller()
				c = newClientAt(t, proxy.Addr(), framework.WithNamespace(ns), framework.WithErrorPolicy(tc.policy), framework.WithDialer(killer.Dialer(nil)))
				observer := newClientAt(t, server.ConnectString(), framework.WithNamespace(ns))
				h = holdLock(ctx, t, c)
				lost = h.Lost()

				proxy.Blackhole(true) // the holder hears nothing from here on
				if err := killer.KillAt(ctx, server.Addr()); err != nil {
					t.Fatal(err)
				}
				waitGone(t, observer, h.Path())
				if err := h.Err(); err != nil {
					t.Fatalf("the holder knew of the loss before it resumed: %v", err)
				}
				prepared = c.State().IsConnected()
			}
			if !prepared {
				t.Fatal("three times the holder's client suspended itself before its node was seen gone")
			}
			// The network speaks again only once the release's delete is
			// sent: Release has begun while the client was connected.
			sent := proxy.Arrival(zkharness.OpDelete)
			done := make(chan error, 1)
			go func() { done <- h.Release(ctx) }()
			select {
			case <-sent:
			case err := <-done:
				t.Fatalf("Release returned before its delete was sent (%v): the client suspended itself, the test proves nothing", err)
			}
			proxy.Blackhole(false) // it resumes, its release under way
			err := <-done
			if !isLost(err) {
				t.Fatalf("Release after the session ended: %v; want ErrLockLost", err)
			}
			// Under the Session policy only the session's end loses the hold,
			// and the error says so.
			if _, session := tc.policy.(listener.SessionErrorPolicy); session && !errors.Is(err, framework.ErrSessionExpired) {
				t.Fatalf("Release after the session ended: %v; want ErrSessionExpired too", err)
			}
			if !isLost(h.Err()) {
				t.Fatalf("Err after a release that found the hold lost: %v", h.Err())
			}
			select {
			case <-lost:
			default:
				t.Fatal("Lost not closed after a release that found the hold lost")
			}
			if err := h.Release(ctx); !errors.Is(err, locks.ErrNotOwner) {
				t.Fatalf("second Release: %v, want ErrNotOwner", err)
			}
		})
	}
}

// A release whose delete was applied but whose reply was lost to a dropped
// connection finds no node when it tries again on the same session: that is
// a clean release, not a loss.
func TestReleaseWhoseReplyWasLostIsClean(t *testing.T) {
	ns := recipestest.Namespace(t)
	proxy := recipestest.StartProxy(t, server.Addr())
	c := newClientAt(t, proxy.Addr(), framework.WithNamespace(ns), framework.WithErrorPolicy(listener.SessionErrorPolicy{}))
	ctx := ctxT(t)
	h := holdLock(ctx, t, c)
	session := c.SessionID()
	proxy.DropAfter(zkharness.OpDelete)
	if err := h.Release(ctx); err != nil {
		t.Fatalf("Release whose first reply was lost: %v", err)
	}
	if c.SessionID() != session {
		t.Fatal("the session changed: the test proves nothing")
	}
	if err := h.Err(); err != nil {
		t.Fatalf("Err after a clean release: %v", err)
	}
}

// A release whose write to the socket fails with a raw network error
// ("write: broken pipe", which go-zookeeper hands back as it is) is retried
// as the connection loss it is, and the node is deleted.
func TestReleaseRetriesABrokenPipe(t *testing.T) {
	ns := recipestest.Namespace(t)
	fault := zkharness.NewWriteFault()
	c := newClientAt(t, server.ConnectString(), framework.WithNamespace(ns), framework.WithErrorPolicy(listener.SessionErrorPolicy{}), framework.WithDialer(fault.Dialer(nil)))
	ctx := ctxT(t)
	h := holdLock(ctx, t, c)
	hit := fault.FailNext(zkharness.OpDelete)
	if err := h.Release(ctx); err != nil {
		t.Fatalf("Release through a broken pipe: %v", err)
	}
	select {
	case <-hit:
	default:
		t.Fatal("the fault never struck: the test proves nothing")
	}
	if ok, _, err := c.Exists(ctx, h.Path()); ok || err != nil {
		t.Fatalf("the node after the release: exists %v (%v)", ok, err)
	}
}

// Releasing while the connection is down returns without waiting for it
// (the client's retry policy here would wait for ever), and the client's
// guaranteed delete removes the node once the connection is back. Under the
// Standard policy the hold was lost when the connection went; under the
// Session policy it was not, and Release says the delete is pending.
func TestReleaseWhileTheConnectionIsDownReturns(t *testing.T) {
	for _, tc := range []struct {
		name     string
		policy   listener.ErrorPolicy
		wantLost bool
	}{
		{"standard", listener.StandardErrorPolicy{}, true},
		{"session", listener.SessionErrorPolicy{}, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ns := recipestest.Namespace(t)
			proxy := recipestest.StartProxy(t, server.Addr())
			c := newClientAt(t, proxy.Addr(), framework.WithNamespace(ns), framework.WithErrorPolicy(tc.policy),
				framework.WithRetryPolicy(retry.RetryForever(10*time.Millisecond)), framework.WithSessionTimeout(20*time.Second))
			observer := newClientAt(t, server.ConnectString(), framework.WithNamespace(ns))
			ctx := ctxT(t)
			h := holdLock(ctx, t, c)
			_, changed := c.StateChanged()
			proxy.Blackhole(true) // new connections wait unserved
			proxy.DropAll()
			<-changed             // Suspended, and it stays so
			err := h.Release(ctx) // ctx only bounds a hang: on a connection that stays down, Release must not wait
			if c.State() != listener.Suspended {
				t.Fatalf("state %v when Release returned: the test proves nothing", c.State())
			}
			switch {
			case tc.wantLost && !isLost(err):
				t.Fatalf("Release with the connection down: %v; want ErrLockLost", err)
			case !tc.wantLost && (isLost(err) || !errors.Is(err, framework.ErrConnectionLoss)):
				t.Fatalf("Release with the connection down: %v; want ErrConnectionLoss, not a loss", err)
			}
			proxy.Blackhole(false)
			waitGone(t, observer, h.Path())
		})
	}
}
