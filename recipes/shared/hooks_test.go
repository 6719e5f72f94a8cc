package shared_test

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"testing"

	"github.com/gocurator/curator/framework"
	"github.com/gocurator/curator/observe"
	"github.com/gocurator/curator/recipes/shared"
	"github.com/gocurator/curator/recipestest"
)

// trySetLog records what a SharedHook hears.
type trySetLog struct {
	mu   sync.Mutex
	sets []observe.TrySet
}

func (l *trySetLog) OnTrySet(e observe.TrySet) {
	l.mu.Lock()
	l.sets = append(l.sets, e)
	l.mu.Unlock()
}

// await waits for n events and returns them.
func (l *trySetLog) await(t *testing.T, n int) []observe.TrySet {
	t.Helper()
	var got []observe.TrySet
	recipestest.Eventually(t, fmt.Sprintf("%d try-sets", n), func() (bool, string) {
		l.mu.Lock()
		defer l.mu.Unlock()
		got = append(got[:0], l.sets...)
		return len(got) >= n, fmt.Sprintf("%+v", got)
	})
	return got
}

// The hooks hear each TrySet whose outcome is known: one applied, one
// refused because another participant's Set came first (a conflict),
// whether the Value had already seen that write or the server refused the
// version; with the recipe's name, the user's label and the path. A
// TrySet that fails for another reason is not a compare-and-set's outcome
// and is not reported.
func TestHooksHearTrySets(t *testing.T) {
	var log trySetLog
	cs := clients(t, 2, framework.WithHooks(&log))
	ctx := ctxT(t)
	a, err := shared.NewCount(cs[0], "/count", 0, shared.WithLabel("jobs"))
	if err != nil {
		t.Fatal(err)
	}
	b, err := shared.NewCount(cs[1], "/count", 0)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []*shared.Count{a, b} {
		if err := c.Start(ctx); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { c.Close() })
	}
	prev := a.Get()
	if ok, err := a.TrySet(ctx, prev, prev.Value+1); !ok || err != nil {
		t.Fatalf("an uncontended TrySet: %v, %v", ok, err)
	}
	stale := a.Get()
	if err := b.Set(ctx, 10); err != nil {
		t.Fatal(err)
	}
	if ok, err := a.TrySet(ctx, stale, stale.Value+1); ok || err != nil {
		t.Fatalf("a TrySet after another's Set: %v, %v; want false", ok, err)
	}
	got := log.await(t, 2)
	want := []observe.TrySet{
		{Recipe: "count", Label: "jobs", Path: "/count", Conflict: false},
		{Recipe: "count", Label: "jobs", Path: "/count", Conflict: true},
	}
	for i := range want {
		got[i].Time = want[i].Time
	}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Fatalf("the hooks heard %+v, want %+v", got, want)
	}

	v, err := shared.NewValue(cs[0], "/value", []byte("a"))
	if err != nil {
		t.Fatal(err)
	}
	if err := v.Start(ctx); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { v.Close() })
	cur := v.Get()
	cancelled, cancel := context.WithCancel(ctx)
	cancel()
	if _, err := v.TrySet(cancelled, cur, []byte("b")); !errors.Is(err, context.Canceled) {
		t.Fatalf("a TrySet with a cancelled context: %v", err)
	}
	if ok, err := v.TrySet(ctx, shared.Versioned[[]byte]{Version: cur.Version + 5}, []byte("c")); ok || err != nil {
		t.Fatalf("a TrySet with a version the Value never saw: %v, %v", ok, err)
	}
	got = log.await(t, 3)
	if len(got) != 3 || got[2].Recipe != "value" || got[2].Label != "" || !got[2].Conflict {
		t.Fatalf("the hooks heard %+v; want a third event, the value's refusal (none for the cancelled TrySet)", got)
	}
}

// A nil option is refused before anything is built.
func TestNilOption(t *testing.T) {
	c := clients(t, 1)[0]
	if _, err := shared.NewValue(c, "/v", nil, nil); !errors.Is(err, framework.ErrInvalidArg) {
		t.Fatalf("NewValue with a nil option: %v", err)
	}
	if _, err := shared.NewCount(c, "/c", 0, nil); !errors.Is(err, framework.ErrInvalidArg) {
		t.Fatalf("NewCount with a nil option: %v", err)
	}
}
