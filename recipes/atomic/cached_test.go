package atomic_test

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"testing"

	"github.com/gocurator/curator/framework"
	"github.com/gocurator/curator/recipes/atomic"
	"github.com/gocurator/curator/retry"
	"github.com/gocurator/curator/zkharness"
)

func newCached[T int32 | int64](t *testing.T, n *atomic.Number[T], factor T) *atomic.Cached[T] {
	t.Helper()
	c, err := atomic.NewCached(n, factor)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// A Cached hands out its range's values in order, as increments would
// report them, and reserves the next range with one Add when the first is
// used up; the node holds the end of the last range reserved, in the
// number's bytes.
func TestCachedHandsOutARange(t *testing.T) {
	c := clients(t, 1)[0]
	ctx := ctxT(t)
	i, err := atomic.NewInt32(c, "/int", few)
	if err != nil {
		t.Fatal(err)
	}
	if err := i.ForceSet(ctx, 10); err != nil {
		t.Fatal(err)
	}
	cached := newCached(t, i, 3)
	for k := range int32(7) {
		res, err := cached.Next(ctx)
		if err != nil || !res.Succeeded || res.Pre != 10+k || res.Post != 11+k {
			t.Fatalf("value %d: %+v, %v; want %d -> %d", k, res, err, 10+k, 11+k)
		}
		if reserved := k%3 == 0; reserved != (res.Stats.OptimisticTries == 1) {
			t.Fatalf("value %d: %d tries; want one only where a range is reserved", k, res.Stats.OptimisticTries)
		}
		want := fmt.Sprintf("%08x", 10+3*(k/3+1))
		if got := fmt.Sprintf("%x", nodeBytes(t, c, "/int")); got != want {
			t.Fatalf("after value %d the node holds %s, want %s", k, got, want)
		}
	}
}

// Cached and plain participants on one node at once, each on a session of
// its own: no value is handed out twice, and each is at most the node's
// final value.
func TestCachedParticipantsNeverShareAValue(t *testing.T) {
	const participants, count = 4, 25
	cs := clients(t, participants)
	ctx := ctxT(t)
	var mu sync.Mutex
	seen := make(map[int64]int)
	var wg sync.WaitGroup
	errs := make(chan error, participants)
	for i, c := range cs {
		l := newInt64(t, c, "/long", retry.RetryNTimes(1000, 0))
		next := l.Increment
		if i > 0 {
			next = newCached(t, l, int64(i+1)).Next
		}
		wg.Go(func() {
			for range count {
				res, err := next(ctx)
				if err != nil || !res.Succeeded {
					errs <- fmt.Errorf("participant %d: %+v, %v", i, res, err)
					return
				}
				mu.Lock()
				seen[res.Post]++
				mu.Unlock()
			}
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}
	final, err := newInt64(t, cs[0], "/long", few).Get(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if len(seen) != participants*count {
		t.Fatalf("%d distinct values for %d handed out: %v", len(seen), participants*count, seen)
	}
	for v := range seen {
		if v < 1 || v > final {
			t.Fatalf("value %d is outside 1..%d, the node's final value", v, final)
		}
	}
}

// A reservation whose write's reply was lost hands out nothing: in
// "applied", the write went through and the range is lost to everyone; in
// "other's", the write was refused for another Cached's reservation from
// the same value (the same bytes at the same version, which nothing can
// tell from ours), whose values it would share. Either way the next Next
// reserves a new range, and no value is handed out twice.
func TestCachedLostReplyNeverHandsOutAValueTwice(t *testing.T) {
	for _, applied := range []bool{true, false} {
		name := map[bool]string{true: "applied", false: "other's"}[applied]
		t.Run(name, func(t *testing.T) {
			proxy, c, direct := proxied(t)
			ctx := ctxT(t)
			l := newInt64(t, c, "/long", retry.RetryNTimes(0, 0))
			if err := l.ForceSet(ctx, 10); err != nil {
				t.Fatal(err)
			}
			mine := newCached(t, l, 4)
			theirs := newCached(t, newInt64(t, direct, "/long", few), 4)
			seen := make(map[int64]string)
			take := func(who string, cached *atomic.CachedInt64, n int) {
				t.Helper()
				for range n {
					res, err := cached.Next(ctx)
					if err != nil || !res.Succeeded {
						t.Fatalf("%s: %+v, %v", who, res, err)
					}
					if other, ok := seen[res.Post]; ok {
						t.Fatalf("value %d handed out by %s and by %s", res.Post, other, who)
					}
					seen[res.Post] = who
				}
			}
			var res atomic.Result[int64]
			var err error
			if applied {
				proxy.DropAfter(zkharness.OpSetData)
				res, err = mine.Next(ctx)
			} else {
				res, err = forceConflict(t, proxy, func() (atomic.Result[int64], error) { return mine.Next(ctx) }, func() {
					take("theirs", theirs, 1)            // reserves 11..14 from 10
					proxy.DropAfter(zkharness.OpSetData) // the reply to our refused reservation from 10
				})
			}
			if !errors.Is(err, framework.ErrOutcomeUnknown) || res.Succeeded || res.Post != 0 {
				t.Fatalf("a reservation whose reply was lost: %+v, %v; want ErrOutcomeUnknown and no value", res, err)
			}
			take("theirs", theirs, 4)
			take("mine", mine, 5)
			v, _ := newInt64(t, direct, "/long", few).Get(ctx)
			t.Logf("values handed out: %v; the node holds %d", seen, v)
		})
	}
}

// A Next that waits for another's reservation returns when its context
// ends.
func TestCachedNextWaitsWithItsContext(t *testing.T) {
	proxy, c, _ := proxied(t)
	ctx := ctxT(t)
	cached := newCached(t, newInt64(t, c, "/long", few), 2)
	held := proxy.HoldReply(zkharness.OpGetData)
	first := make(chan error, 1)
	go func() {
		_, err := cached.Next(ctx)
		first <- err
	}()
	<-held.Arrived()
	cctx, cancel := context.WithCancel(ctx)
	cancel()
	if _, err := cached.Next(cctx); !errors.Is(err, context.Canceled) {
		t.Fatalf("Next with an ended context behind a reservation: %v", err)
	}
	held.Deliver()
	if err := <-first; err != nil {
		t.Fatal(err)
	}
	if res, err := cached.Next(ctx); err != nil || res.Post != 2 {
		t.Fatalf("the second value: %+v, %v; want 2", res, err)
	}
}
