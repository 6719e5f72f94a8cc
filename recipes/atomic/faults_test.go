package atomic_test

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/gocurator/curator/framework"
	"github.com/gocurator/curator/recipes/atomic"
	"github.com/gocurator/curator/recipes/locks"
	"github.com/gocurator/curator/recipestest"
	"github.com/gocurator/curator/retry"
	"github.com/gocurator/curator/zkharness"
)

// proxied returns a client behind a fault proxy and a direct one, in one
// namespace.
func proxied(t *testing.T) (proxy *zkharness.Proxy, c, direct *framework.Client) {
	t.Helper()
	ns := recipestest.Namespace(t)
	proxy = recipestest.StartProxy(t, server.Addr())
	c = recipestest.NewClient(t, proxy.Addr(), framework.WithNamespace(ns))
	direct = recipestest.NewClient(t, server.ConnectString(), framework.WithNamespace(ns))
	return proxy, c, direct
}

// The write of an increment is applied and its reply lost: it is not
// applied a second time (Curator's is, see the interop test), and, since
// the node cannot tell this write from another participant's increment
// from the same value, the increment says its outcome is unknown, with the
// value it wrote. For the set of an existing node and for the create of a
// missing one.
func TestLostReplyIsNotAppliedTwice(t *testing.T) {
	proxy, c, direct := proxied(t)
	ctx := ctxT(t)
	for _, tc := range []struct {
		name string
		op   int32
		seed bool
	}{{"set", zkharness.OpSetData, true}, {"create", zkharness.OpCreate, false}} {
		t.Run(tc.name, func(t *testing.T) {
			path := "/" + tc.name
			l := newInt64(t, c, path, few)
			var pre int64
			if tc.seed {
				pre = 5
				if err := newInt64(t, direct, path, few).ForceSet(ctx, pre); err != nil {
					t.Fatal(err)
				}
			}
			proxy.DropAfter(tc.op)
			res, err := l.Increment(ctx)
			if !errors.Is(err, framework.ErrOutcomeUnknown) || res.Succeeded || res.Pre != pre || res.Post != pre+1 {
				t.Fatalf("an increment whose write's reply was lost: %+v, %v; want ErrOutcomeUnknown for %d -> %d", res, err, pre, pre+1)
			}
			if v, _ := newInt64(t, direct, path, few).Get(ctx); v != pre+1 {
				t.Fatalf("the long is %d after one increment of %d, want %d", v, pre, pre+1)
			}
			if res, err := l.Increment(ctx); err != nil || !res.Succeeded || res.Post != pre+2 {
				t.Fatalf("the next increment: %+v, %v", res, err)
			}
		})
	}
}

// The reply to a write that lost to another participant's is lost: the
// node shows the winner's bytes at our version, so the try failed, and the
// increment goes on and succeeds once.
func TestLostReplyOfARefusedWriteGoesOn(t *testing.T) {
	proxy, c, direct := proxied(t)
	ctx := ctxT(t)
	l := newInt64(t, c, "/long", few)
	if err := l.ForceSet(ctx, 1); err != nil {
		t.Fatal(err)
	}
	other := newInt64(t, direct, "/long", few)
	res, err := forceConflict(t, proxy, func() (atomic.Result[int64], error) { return l.Increment(ctx) }, func() {
		if _, err := other.Add(ctx, 10); err != nil {
			t.Error(err)
		}
		proxy.DropAfter(zkharness.OpSetData) // the refusal's reply
	})
	if err != nil || !res.Succeeded || res.Pre != 11 || res.Post != 12 || res.Stats.OptimisticTries != 2 {
		t.Fatalf("an increment whose refused write's reply was lost: %+v, %v; want 11 -> 12 in 2 tries", res, err)
	}
	if v, _ := other.Get(ctx); v != 12 {
		t.Fatalf("the long is %d, want 12", v)
	}
}

// The session expires while the write's reply is on its way: the write
// was applied once, and the increment, on the next session, says its
// outcome is unknown.
func TestSessionExpiryAfterTheWrite(t *testing.T) {
	proxy, c, direct := proxied(t)
	ctx := ctxT(t)
	l := newInt64(t, c, "/long", few)
	if err := l.ForceSet(ctx, 1); err != nil {
		t.Fatal(err)
	}
	session := c.SessionID()
	held := proxy.HoldReply(zkharness.OpSetData)
	done := make(chan error, 1)
	var res atomic.Result[int64]
	go func() {
		var err error
		res, err = l.Increment(ctx)
		done <- err
	}()
	<-held.Arrived()
	if err := c.InjectSessionExpiration(ctx); err != nil {
		t.Fatal(err)
	}
	held.Drop()
	err := <-done
	if !errors.Is(err, framework.ErrOutcomeUnknown) || res.Succeeded || res.Post != 2 {
		t.Fatalf("an increment across a session expiry after its write: %+v, %v; want ErrOutcomeUnknown", res, err)
	}
	if c.SessionID() == session {
		t.Fatal("the session did not change")
	}
	if v, _ := newInt64(t, direct, "/long", few).Get(ctx); v != 2 {
		t.Fatalf("the long is %d, want 2", v)
	}
}

// The caller gives up while the write is in flight: the increment returns
// at once, with the context's error and ErrOutcomeUnknown; the write,
// applied, is not undone and not made again.
func TestCancelDuringTheWrite(t *testing.T) {
	proxy, c, direct := proxied(t)
	ctx := ctxT(t)
	l := newInt64(t, c, "/long", few)
	if err := l.ForceSet(ctx, 1); err != nil {
		t.Fatal(err)
	}
	held := proxy.HoldReply(zkharness.OpSetData)
	cctx, cancel := context.WithCancel(ctx)
	done := make(chan error, 1)
	go func() {
		_, err := l.Increment(cctx)
		done <- err
	}()
	<-held.Arrived()
	cancel()
	err := <-done
	if !errors.Is(err, framework.ErrOutcomeUnknown) || !errors.Is(err, context.Canceled) {
		t.Fatalf("an increment cancelled during its write: %v; want ErrOutcomeUnknown and context.Canceled", err)
	}
	held.Deliver()
	if v, _ := newInt64(t, direct, "/long", few).Get(ctx); v != 2 {
		t.Fatalf("the long is %d, want 2", v)
	}
}

// An update promoted to the lock gives up its wait when its context ends,
// and leaves no lock node behind.
func TestCancelledPromotionLeavesNoLockNode(t *testing.T) {
	proxy, c, direct := proxied(t)
	ctx := ctxT(t)
	holder, err := locks.NewMutex(direct, "/lock")
	if err != nil {
		t.Fatal(err)
	}
	h, err := holder.Acquire(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer h.Release(ctx)
	l := newInt64(t, c, "/long", retry.RetryNTimes(0, 0), atomic.WithPromotion(atomic.Promotion{LockPath: "/lock"}))
	other := newInt64(t, direct, "/long", few)
	cctx, cancel := context.WithCancel(ctx)
	defer cancel()
	held := proxy.HoldReply(zkharness.OpGetData)
	done := make(chan error, 1)
	go func() {
		_, err := l.Increment(cctx)
		done <- err
	}()
	<-held.Arrived()
	if _, err := other.Increment(ctx); err != nil { // the optimistic try fails
		t.Fatal(err)
	}
	held.Deliver()
	recipestest.Eventually(t, "the update's lock node behind the holder's", func() (bool, string) {
		p, err := holder.Participants(ctx)
		return len(p) == 2, fmt.Sprint(p, err)
	})
	cancel()
	if err := <-done; !errors.Is(err, context.Canceled) {
		t.Fatalf("a promoted update cancelled while it waits for the lock: %v", err)
	}
	if p, err := holder.Participants(ctx); len(p) != 1 || p[0] != h.Path() || err != nil {
		t.Fatalf("lock nodes after the cancel: %v, %v; want only the holder's", p, err)
	}
}

// A promotion with a timeout that fails to take its lock for another reason
// (here, the lock path refuses the client's create) returns that error: only
// the timeout itself is a quiet failure.
func TestPromotionLockErrorIsReturned(t *testing.T) {
	proxy, c, direct := proxied(t)
	ctx := ctxT(t)
	if _, err := direct.Create(ctx, "/lock", nil, framework.WithACL(framework.WorldACL(framework.PermRead))); err != nil {
		t.Fatal(err)
	}
	l := newInt64(t, c, "/long", retry.RetryNTimes(0, 0), atomic.WithPromotion(atomic.Promotion{LockPath: "/lock", Timeout: time.Minute}))
	other := newInt64(t, direct, "/long", few)
	held := proxy.HoldReply(zkharness.OpGetData)
	type answer struct {
		res atomic.Result[int64]
		err error
	}
	done := make(chan answer, 1)
	go func() {
		res, err := l.Increment(ctx)
		done <- answer{res, err}
	}()
	<-held.Arrived()
	if _, err := other.Increment(ctx); err != nil { // the optimistic try fails
		t.Fatal(err)
	}
	held.Deliver()
	got := <-done
	if !errors.Is(got.err, framework.ErrNoAuth) || got.res.Succeeded {
		t.Fatalf("a promotion refused its lock: %+v, %v; want ErrNoAuth", got.res, got.err)
	}
}

// An update cancelled while it holds the promotion's lock returns at once,
// though the connection has gone silent: before the client even finds the
// connection suspended, not after waiting on the release of the lock, whose
// node the client deletes once the connection is back.
func TestCancelUnderThePromotionsLockReturnsAtOnce(t *testing.T) {
	proxy, c, direct := proxied(t)
	ctx := ctxT(t)
	lock, err := locks.NewMutex(direct, "/lock")
	if err != nil {
		t.Fatal(err)
	}
	l := newInt64(t, c, "/long", retry.RetryNTimes(0, 0), atomic.WithPromotion(atomic.Promotion{LockPath: "/lock"}))
	other := newInt64(t, direct, "/long", few)
	cctx, cancel := context.WithCancel(ctx)
	defer cancel()
	optimistic := proxy.HoldReply(zkharness.OpGetData)
	done := make(chan error, 1)
	go func() {
		_, err := l.Increment(cctx)
		done <- err
	}()
	<-optimistic.Arrived()
	if _, err := other.Increment(ctx); err != nil { // the optimistic try fails
		t.Fatal(err)
	}
	promoted := proxy.HoldReply(zkharness.OpGetData) // the read under the lock: its reply, and all after it, wait
	optimistic.Deliver()
	<-promoted.Arrived()
	if p, err := lock.Participants(ctx); len(p) != 1 || err != nil {
		t.Fatalf("lock nodes while the update reads under the lock: %v, %v; want the update's", p, err)
	}
	sess := c.Session() // ends when the client finds the connection suspended
	cancel()
	select {
	case err := <-done:
		if !errors.Is(err, context.Canceled) {
			t.Fatalf("an update cancelled under the promotion's lock: %v", err)
		}
	case <-sess.Done():
		t.Fatal("the cancelled update had not returned when the client found the connection suspended")
	}
	promoted.Deliver()
	recipestest.Eventually(t, "the update's lock node to go", func() (bool, string) {
		p, err := lock.Participants(ctx)
		return len(p) == 0 && err == nil, fmt.Sprint(p, err)
	})
}

// Increments by several participants while their connections are cut and
// replies lost: every increment that succeeded counts once, and the node
// holds at least their number and at most that plus the increments whose
// outcome was reported unknown.
func TestIncrementsUnderFaultsAddUp(t *testing.T) {
	const participants, increments = 4, 18
	ns := recipestest.Namespace(t)
	proxy := recipestest.StartProxy(t, server.Addr())
	ctx := ctxT(t)
	var mu sync.Mutex
	var posts []int64
	var unknown int
	var errs []error // under mu: reported once every participant has stopped
	var wg sync.WaitGroup
	for i := range participants {
		c := recipestest.NewClient(t, proxy.Addr(), framework.WithNamespace(ns))
		var opts []atomic.Option
		if i%2 == 1 {
			opts = append(opts, atomic.WithPromotion(atomic.Promotion{LockPath: "/lock", Retry: retry.RetryNTimes(3, time.Millisecond)}))
		}
		l := newInt64(t, c, "/long", retry.RetryNTimes(3, time.Millisecond), opts...)
		wg.Add(1)
		go func() {
			defer wg.Done()
			for n := range increments {
				if i == 0 && n%3 == 0 { // the first participant injects a fault, in turn, before every third increment
					switch n / 3 % 3 {
					case 0:
						proxy.DropAfter(zkharness.OpSetData)
					case 1:
						proxy.DropAll()
					case 2:
						proxy.DropAfter(zkharness.OpGetData)
					}
				}
				res, err := l.Increment(ctx)
				mu.Lock()
				switch {
				case errors.Is(err, framework.ErrOutcomeUnknown):
					unknown++
				case err != nil && !errors.Is(err, framework.ErrConnectionLoss):
					errs = append(errs, err)
				case res.Succeeded:
					posts = append(posts, res.Post)
				}
				mu.Unlock()
			}
		}()
	}
	wg.Wait()
	for _, err := range errs {
		t.Error(err)
	}
	if len(errs) > 0 {
		t.FailNow()
	}
	v, err := newInt64(t, recipestest.NewClient(t, server.ConnectString(), framework.WithNamespace(ns)), "/long", few).Get(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if v < int64(len(posts)) || v > int64(len(posts)+unknown) {
		t.Fatalf("the long is %d after %d successful increments and %d of unknown outcome", v, len(posts), unknown)
	}
	seen := make(map[int64]bool)
	for _, p := range posts {
		if seen[p] || p < 1 || p > v {
			t.Fatalf("a successful increment's value %d is duplicated or out of 1..%d", p, v)
		}
		seen[p] = true
	}
	t.Logf("%d increments succeeded, %d of unknown outcome, the long is %d", len(posts), unknown, v)
}
