package harness

import (
	"sync"
	"testing"
	"time"

	"github.com/gocurator/curator/observe"
)

// countingHook counts the acquires and requests it hears.
type countingHook struct {
	mu                 sync.Mutex
	acquires, requests int
}

func (h *countingHook) OnAcquire(observe.Acquire) { h.mu.Lock(); h.acquires++; h.mu.Unlock() }
func (h *countingHook) OnRelease(observe.Release) {}
func (h *countingHook) OnLoss(observe.Loss)       {}
func (h *countingHook) OnRequest(observe.Request) { h.mu.Lock(); h.requests++; h.mu.Unlock() }

// TestHookedRows runs the lock workloads briefly on a gocurator row with a
// hook set: the row is named for it, every client got a hook of its own,
// and the hooks heard the cycles' acquires and requests; the hooked row's
// ratio to the plain one is computed round by round.
func TestHookedRows(t *testing.T) {
	e := serverEnv(t, 300*time.Millisecond)
	var (
		mu    sync.Mutex
		hooks []*countingHook
	)
	set := &HookSet{Name: "counting", New: func() (any, error) {
		mu.Lock()
		defer mu.Unlock()
		h := &countingHook{}
		hooks = append(hooks, h)
		return h, nil
	}}
	hooked, plain := curatorGo{set}, curatorGo{}
	if hooked.name() != "gocurator+counting" || plain.name() != "gocurator" {
		t.Fatalf("rows named %q and %q", hooked.name(), plain.name())
	}
	for _, w := range []struct {
		run     func(env, impl) result
		clients int
	}{{runMutexUncontended, 1}, {runMutexContended, 8}} {
		hooks = nil
		r := w.run(e, hooked)
		if r.Error != "" || r.Cycles <= 0 || r.Violations != 0 || r.Impl != "gocurator+counting" {
			t.Fatalf("%s: %+v", r.Workload, r)
		}
		if len(hooks) != w.clients {
			t.Fatalf("%s: %d hooks for %d clients", r.Workload, len(hooks), w.clients)
		}
		var acquires, requests int
		for _, h := range hooks {
			h.mu.Lock()
			acquires, requests = acquires+h.acquires, requests+h.requests
			h.mu.Unlock()
		}
		// A client's hooks hear a prefix of its events, in order (Close drops
		// what was not delivered yet): each acquire heard came after its
		// node's create and the listing, and no more acquires than the
		// cycles counted and one under way per client.
		if acquires == 0 || int64(acquires) > r.Cycles+int64(w.clients) || requests < 2*acquires {
			t.Fatalf("%s: %d cycles, hooks heard %d acquires and %d requests", r.Workload, r.Cycles, acquires, requests)
		}
	}

	rs := []result{roundsOf("gocurator", 100, 200, 300), roundsOf("gocurator+counting", 95, 190, 285)}
	rs[0].Workload, rs[1].Workload = "w", "w"
	p, ok := pairRounds(&rs[1], &rs[0])
	if !ok || p.Median != 0.95 {
		t.Fatalf("hooked over plain: %+v, %v; want 0.95", p, ok)
	}
}
