package atomic_test

import (
	"bytes"
	"errors"
	"fmt"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/gocurator/curator/framework"
	"github.com/gocurator/curator/recipes/atomic"
	"github.com/gocurator/curator/recipestest"
	"github.com/gocurator/curator/retry"
	"github.com/gocurator/curator/zkharness"
)

// few is the optimistic policy of the tests that do not contend.
var few = retry.RetryNTimes(3, 5*time.Millisecond)

func newInt64(t *testing.T, c *framework.Client, path string, policy retry.Policy, opts ...atomic.Option) *atomic.Int64 {
	t.Helper()
	n, err := atomic.NewInt64(c, path, policy, opts...)
	if err != nil {
		t.Fatal(err)
	}
	return n
}

// nodeBytes reads a node's data.
func nodeBytes(t *testing.T, c *framework.Client, path string) []byte {
	t.Helper()
	data, _, err := c.Get(ctxT(t), path)
	if err != nil {
		t.Fatal(err)
	}
	return data
}

// The node holds what Curator writes: 8 big-endian bytes for an Int64, 4
// for an Int32, the bytes themselves for a Value; a missing node reads as
// zero, and its missing parents are made as containers.
func TestNodeFormat(t *testing.T) {
	c := clients(t, 1)[0]
	ctx := ctxT(t)
	l := newInt64(t, c, "/a/b/long", few)
	if v, err := l.Get(ctx); v != 0 || err != nil {
		t.Fatalf("Get of a missing node: %d, %v; want 0", v, err)
	}
	res, err := l.Add(ctx, 183)
	if err != nil || !res.Succeeded || res.Pre != 0 || res.Post != 183 || res.Stats.OptimisticTries != 1 {
		t.Fatalf("Add(183) on a missing node: %+v, %v", res, err)
	}
	if got := fmt.Sprintf("%x", nodeBytes(t, c, "/a/b/long")); got != "00000000000000b7" {
		t.Fatalf("the long's node holds %s, want Curator's 00000000000000b7", got)
	}
	for _, p := range []string{"/a", "/a/b"} {
		if ok, stat, err := c.Exists(ctx, p); !ok || err != nil || stat.EphemeralOwner != 0 {
			t.Fatalf("parent %s: %v %v", p, ok, err)
		}
	}
	if res, err := l.Subtract(ctx, 200); err != nil || res.Post != -17 {
		t.Fatalf("Subtract(200): %+v, %v", res, err)
	}
	if got := fmt.Sprintf("%x", nodeBytes(t, c, "/a/b/long")); got != "ffffffffffffffef" {
		t.Fatalf("-17 is %s, want two's complement ffffffffffffffef", got)
	}

	i, err := atomic.NewInt32(c, "/int", few)
	if err != nil {
		t.Fatal(err)
	}
	if res, err := i.Decrement(ctx); err != nil || res.Post != -1 {
		t.Fatalf("Decrement: %+v, %v", res, err)
	}
	if res, err := i.Increment(ctx); err != nil || res.Pre != -1 || res.Post != 0 {
		t.Fatalf("Increment: %+v, %v", res, err)
	}
	if res, err := i.Add(ctx, 0x01020304); err != nil || res.Post != 0x01020304 {
		t.Fatalf("Add: %+v, %v", res, err)
	}
	if got := fmt.Sprintf("%x", nodeBytes(t, c, "/int")); got != "01020304" {
		t.Fatalf("the integer's node holds %s, want 01020304", got)
	}

	v, err := atomic.NewValue(c, "/value", few)
	if err != nil {
		t.Fatal(err)
	}
	if got, err := v.Get(ctx); got != nil || err != nil {
		t.Fatalf("Value.Get of a missing node: %q, %v; want nil", got, err)
	}
	if res, err := v.TrySet(ctx, []byte("abc")); err != nil || !res.Succeeded || res.Pre != nil || string(res.Post) != "abc" {
		t.Fatalf("Value.TrySet: %+v, %v", res, err)
	}
	if got := nodeBytes(t, c, "/value"); string(got) != "abc" {
		t.Fatalf("the value's node holds %q", got)
	}
	if res, err := v.TrySet(ctx, nil); err != nil || !res.Succeeded || string(res.Pre) != "abc" {
		t.Fatalf("Value.TrySet(nil): %+v, %v", res, err)
	}
	if got := nodeBytes(t, c, "/value"); len(got) != 0 {
		t.Fatalf("a value set to nil holds %q, want no bytes (not the client's default data)", got)
	}
}

// Initialize creates only; ForceSet writes whatever is there; Get reads.
func TestInitializeAndForceSet(t *testing.T) {
	c := clients(t, 1)[0]
	ctx := ctxT(t)
	l := newInt64(t, c, "/p/long", few)
	if ok, err := l.Initialize(ctx, 7); !ok || err != nil {
		t.Fatalf("Initialize on a missing node: %v, %v", ok, err)
	}
	if ok, err := l.Initialize(ctx, 9); ok || err != nil {
		t.Fatalf("Initialize on an existing node: %v, %v; want false", ok, err)
	}
	if v, _ := l.Get(ctx); v != 7 {
		t.Fatalf("after Initialize(7) then Initialize(9): %d", v)
	}
	if err := l.ForceSet(ctx, -3); err != nil {
		t.Fatal(err)
	}
	if v, _ := l.Get(ctx); v != -3 {
		t.Fatalf("after ForceSet(-3): %d", v)
	}
	m := newInt64(t, c, "/q/r/long", few)
	if err := m.ForceSet(ctx, 42); err != nil {
		t.Fatalf("ForceSet on a missing node and parents: %v", err)
	}
	if v, _ := m.Get(ctx); v != 42 {
		t.Fatalf("after ForceSet(42): %d", v)
	}
}

// CompareAndSet sets only over the value it expects, and never creates.
func TestCompareAndSet(t *testing.T) {
	c := clients(t, 1)[0]
	ctx := ctxT(t)
	l := newInt64(t, c, "/long", few)
	if res, err := l.CompareAndSet(ctx, 0, 1); res.Succeeded || err != nil {
		t.Fatalf("CompareAndSet on a missing node: %+v, %v; want a failure", res, err)
	}
	if ok, _, _ := c.Exists(ctx, "/long"); ok {
		t.Fatal("CompareAndSet created the node")
	}
	if err := l.ForceSet(ctx, 5); err != nil {
		t.Fatal(err)
	}
	if res, err := l.CompareAndSet(ctx, 4, 6); res.Succeeded || err != nil || res.Pre != 5 {
		t.Fatalf("CompareAndSet(4, 6) over 5: %+v, %v", res, err)
	}
	res, err := l.CompareAndSet(ctx, 5, 6)
	if !res.Succeeded || err != nil || res.Pre != 5 || res.Post != 6 || res.Stats != (atomic.Stats{}) {
		t.Fatalf("CompareAndSet(5, 6) over 5: %+v, %v", res, err)
	}
	v, _ := atomic.NewValue(c, "/long", few)
	if res, err := v.CompareAndSet(ctx, []byte{0, 0, 0, 0, 0, 0, 0, 6}, []byte("x")); !res.Succeeded || err != nil {
		t.Fatalf("Value.CompareAndSet over the long's bytes: %+v, %v", res, err)
	}
}

// A node shorter than the number is Curator's corrupted data, an error; a
// longer one is read from its first bytes, as Curator reads it.
func TestCorruptData(t *testing.T) {
	c := clients(t, 1)[0]
	ctx := ctxT(t)
	if _, err := c.Create(ctx, "/short", []byte{1, 2, 3}); err != nil {
		t.Fatal(err)
	}
	l := newInt64(t, c, "/short", few)
	if _, err := l.Get(ctx); !errors.Is(err, atomic.ErrCorrupt) {
		t.Fatalf("Get of 3 bytes: %v, want ErrCorrupt", err)
	}
	if res, err := l.Increment(ctx); !errors.Is(err, atomic.ErrCorrupt) || res.Succeeded {
		t.Fatalf("Increment of 3 bytes: %+v, %v; want ErrCorrupt", res, err)
	}
	if got := nodeBytes(t, c, "/short"); !bytes.Equal(got, []byte{1, 2, 3}) {
		t.Fatalf("the corrupt node was written: %x", got)
	}
	if _, err := c.Create(ctx, "/long9", []byte{0, 0, 0, 0, 0, 0, 0, 9, 0xff}); err != nil {
		t.Fatal(err)
	}
	if v, err := newInt64(t, c, "/long9", few).Get(ctx); v != 9 || err != nil {
		t.Fatalf("Get of 9 bytes: %d, %v; want 9 from the first 8", v, err)
	}
	if _, err := c.Create(ctx, "/empty", []byte{}); err != nil {
		t.Fatal(err)
	}
	if res, err := newInt64(t, c, "/empty", few).Increment(ctx); err != nil || res.Pre != 0 || res.Post != 1 {
		t.Fatalf("Increment of an empty node: %+v, %v; want 0 -> 1", res, err)
	}
}

// forceConflict makes the next try of an update through proxy fail: its
// read is answered only after other has written the node, so its write is
// refused for its version. It returns the update's outcome.
func forceConflict[T any](t *testing.T, proxy *zkharness.Proxy, update func() (atomic.Result[T], error), other func()) (atomic.Result[T], error) {
	t.Helper()
	held := proxy.HoldReply(zkharness.OpGetData)
	type outcome struct {
		res atomic.Result[T]
		err error
	}
	done := make(chan outcome, 1)
	go func() {
		res, err := update()
		done <- outcome{res, err}
	}()
	select {
	case <-held.Arrived():
	case o := <-done:
		t.Fatalf("the update returned before its read was answered: %+v, %v", o.res, o.err)
	}
	other()
	held.Deliver()
	o := <-done
	return o.res, o.err
}

// When the policy allows no more tries, the update fails without an error,
// as Curator's does, and says what it read.
func TestTriesRunOut(t *testing.T) {
	ns := recipestest.Namespace(t)
	proxy := recipestest.StartProxy(t, server.Addr())
	c := recipestest.NewClient(t, proxy.Addr(), framework.WithNamespace(ns))
	other := recipestest.NewClient(t, server.ConnectString(), framework.WithNamespace(ns))
	ctx := ctxT(t)
	l := newInt64(t, c, "/long", retry.RetryNTimes(0, 0))
	if err := l.ForceSet(ctx, 1); err != nil {
		t.Fatal(err)
	}
	ol := newInt64(t, other, "/long", few)
	res, err := forceConflict(t, proxy, func() (atomic.Result[int64], error) { return l.Increment(ctx) }, func() {
		if _, err := ol.Add(ctx, 10); err != nil {
			t.Error(err)
		}
	})
	if err != nil || res.Succeeded || res.Pre != 1 || res.Post != 0 || res.Stats.OptimisticTries != 1 || res.Stats.PromotedTries != 0 {
		t.Fatalf("an increment whose only try conflicts: %+v, %v; want a failure after 1 try that read 1", res, err)
	}
	if v, _ := l.Get(ctx); v != 11 {
		t.Fatalf("the long is %d, want the other's 11", v)
	}
	// With tries left, the next one succeeds.
	l2 := newInt64(t, c, "/long", retry.RetryNTimes(1, 0))
	res, err = forceConflict(t, proxy, func() (atomic.Result[int64], error) { return l2.Increment(ctx) }, func() {
		if _, err := ol.Add(ctx, 10); err != nil {
			t.Error(err)
		}
	})
	if err != nil || !res.Succeeded || res.Pre != 21 || res.Post != 22 || res.Stats.OptimisticTries != 2 {
		t.Fatalf("an increment whose first try conflicts: %+v, %v; want 21 -> 22 in 2 tries", res, err)
	}
}

// Participants incrementing at once, optimistically and promoted: every
// increment that succeeded counts once (the successes' Post values are
// 1..n, each once) and the node holds their number.
func TestConcurrentIncrementsAddUp(t *testing.T) {
	for _, promoted := range []bool{false, true} {
		t.Run(fmt.Sprint("promoted=", promoted), func(t *testing.T) {
			const participants, increments = 4, 15
			cs := clients(t, participants)
			ctx := ctxT(t)
			var mu sync.Mutex
			var posts []int64
			var promotedTries int
			var wg sync.WaitGroup
			errs := make(chan error, participants)
			for _, c := range cs {
				var opts []atomic.Option
				policy := retry.RetryNTimes(3, time.Millisecond)
				if promoted {
					policy = retry.RetryNTimes(0, 0)
					opts = append(opts, atomic.WithPromotion(atomic.Promotion{LockPath: "/lock", Retry: retry.RetryNTimes(3, time.Millisecond)}))
				}
				l := newInt64(t, c, "/long", policy, opts...)
				wg.Add(1)
				go func() {
					defer wg.Done()
					for range increments {
						res, err := l.Increment(ctx)
						if err != nil {
							errs <- err
							return
						}
						mu.Lock()
						promotedTries += res.Stats.PromotedTries
						if res.Succeeded {
							posts = append(posts, res.Post)
						}
						mu.Unlock()
					}
				}()
			}
			wg.Wait()
			close(errs)
			for err := range errs {
				t.Fatal(err)
			}
			checkPosts(t, posts)
			if v, _ := newInt64(t, cs[0], "/long", few).Get(ctx); v != int64(len(posts)) {
				t.Fatalf("the long is %d after %d successful increments", v, len(posts))
			}
			if promoted && promotedTries == 0 {
				t.Fatal("no increment was promoted to the lock")
			}
			t.Logf("%d of %d increments succeeded, %d promoted tries", len(posts), participants*increments, promotedTries)
		})
	}
}

// checkPosts checks that the successful increments' Post values are
// 1..len(posts), each once: none lost, none counted twice.
func checkPosts(t *testing.T, posts []int64) {
	t.Helper()
	sorted := slices.Sorted(slices.Values(posts))
	for i, p := range sorted {
		if p != int64(i+1) {
			t.Fatalf("the successful increments' values, sorted, have %d at position %d: %v", p, i+1, sorted)
		}
	}
}

// Bad input is refused before anything is sent.
func TestBadInput(t *testing.T) {
	wire := zkharness.NewCounter()
	c := recipestest.NewClient(t, server.ConnectString(), framework.WithDialer(wire.Dialer(nil)))
	before := wire.Requests()
	bad := []struct {
		name string
		err  func() error
	}{
		{"nil client", func() error { _, err := atomic.NewInt64(nil, "/x", few); return err }},
		{"empty path", func() error { _, err := atomic.NewInt64(c, "", few); return err }},
		{"relative path", func() error { _, err := atomic.NewInt32(c, "x", few); return err }},
		{"trailing slash", func() error { _, err := atomic.NewValue(c, "/x/", few); return err }},
		{"root", func() error { _, err := atomic.NewInt64(c, "/", few); return err }},
		{"nil policy", func() error { _, err := atomic.NewInt64(c, "/x", nil); return err }},
		{"nil option", func() error { _, err := atomic.NewInt64(c, "/x", few, nil); return err }},
		{"bad lock path", func() error {
			_, err := atomic.NewInt64(c, "/x", few, atomic.WithPromotion(atomic.Promotion{LockPath: "lock"}))
			return err
		}},
		{"no lock path", func() error {
			_, err := atomic.NewInt64(c, "/x", few, atomic.WithPromotion(atomic.Promotion{}))
			return err
		}},
		{"cached: nil number", func() error { _, err := atomic.NewCached[int64](nil, 10); return err }},
		{"cached: factor 0", func() error { _, err := atomic.NewCached(newInt64(t, c, "/x", few), 0); return err }},
		{"cached: negative factor", func() error {
			n, _ := atomic.NewInt32(c, "/x", few)
			_, err := atomic.NewCached(n, -5)
			return err
		}},
	}
	for _, b := range bad {
		if err := b.err(); !errors.Is(err, atomic.ErrInvalidArg) || !errors.Is(err, framework.ErrInvalidArg) {
			t.Errorf("%s: %v, want ErrInvalidArg (framework.ErrInvalidArg)", b.name, err)
		}
	}
	if n := wire.Requests() - before; n != 0 {
		t.Fatalf("bad input sent %d requests", n)
	}
}
