package atomic_test

import (
	"fmt"
	"sync"
	"testing"

	"github.com/gocurator/curator/framework"
	"github.com/gocurator/curator/observe"
	"github.com/gocurator/curator/recipes/atomic"
	"github.com/gocurator/curator/recipestest"
	"github.com/gocurator/curator/retry"
)

// setLog records what a SharedHook hears.
type setLog struct {
	mu   sync.Mutex
	sets []observe.TrySet
}

func (l *setLog) OnTrySet(e observe.TrySet) {
	l.mu.Lock()
	l.sets = append(l.sets, e)
	l.mu.Unlock()
}

// await waits for n events and returns their Conflict fields in order.
func (l *setLog) await(t *testing.T, n int) []bool {
	t.Helper()
	var got []bool
	recipestest.Eventually(t, fmt.Sprintf("%d compare-and-sets", n), func() (bool, string) {
		l.mu.Lock()
		defer l.mu.Unlock()
		got = got[:0]
		for _, e := range l.sets {
			got = append(got, e.Conflict)
		}
		return len(l.sets) >= n, fmt.Sprintf("%+v", l.sets)
	})
	return got
}

// Each try of an update reaches the client's SharedHook, as a TrySet of
// the recipe "atomic" at the atomic's path: a conflict for a try that lost
// to another participant's write, none for the one that won; and so does
// CompareAndSet, refused over other bytes. The other participant, on a
// client without hooks, reports nothing.
func TestHooksHearEachTry(t *testing.T) {
	var log setLog
	ns := recipestest.Namespace(t)
	proxy := recipestest.StartProxy(t, server.Addr())
	c := recipestest.NewClient(t, proxy.Addr(), framework.WithNamespace(ns), framework.WithHooks(&log))
	other := newInt64(t, recipestest.NewClient(t, server.ConnectString(), framework.WithNamespace(ns)), "/long", few)
	ctx := ctxT(t)
	l := newInt64(t, c, "/long", retry.RetryNTimes(2, 0))
	if err := l.ForceSet(ctx, 1); err != nil {
		t.Fatal(err)
	}
	res, err := forceConflict(t, proxy, func() (atomic.Result[int64], error) { return l.Increment(ctx) }, func() {
		if _, err := other.Increment(ctx); err != nil {
			t.Error(err)
		}
	})
	if err != nil || !res.Succeeded || res.Stats.OptimisticTries != 2 {
		t.Fatalf("an increment whose first try conflicts: %+v, %v", res, err)
	}
	if got := log.await(t, 2); fmt.Sprint(got) != "[true false]" {
		t.Fatalf("the hook heard conflicts %v, want [true false]: the lost try, then the one that won", got)
	}
	if res, err := l.CompareAndSet(ctx, 2, 9); err != nil || res.Succeeded {
		t.Fatalf("CompareAndSet(2, 9) over 3: %+v, %v", res, err)
	}
	if res, err := l.CompareAndSet(ctx, 3, 4); err != nil || !res.Succeeded {
		t.Fatalf("CompareAndSet(3, 4) over 3: %+v, %v", res, err)
	}
	if got := log.await(t, 4); fmt.Sprint(got) != "[true false true false]" {
		t.Fatalf("the hook heard conflicts %v, want [true false true false]", got)
	}
	log.mu.Lock()
	defer log.mu.Unlock()
	for _, e := range log.sets {
		if e.Recipe != "atomic" || e.Path != "/long" || e.Time.IsZero() {
			t.Fatalf("event %+v; want the recipe atomic at /long, with a time", e)
		}
	}
}
