package cache_test

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/gocurator/curator/framework"
	"github.com/gocurator/curator/observe"
	"github.com/gocurator/curator/recipes/cache"
	"github.com/gocurator/curator/recipestest"
)

// cacheHook records what the caches and watchers told the client's hooks,
// one line per event, by label.
type cacheHook struct {
	mu    sync.Mutex
	lines map[string][]string
	stale []observe.CacheStale
	loads []observe.CacheResync
}

func (h *cacheHook) add(label, line string) {
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.lines == nil {
		h.lines = make(map[string][]string)
	}
	h.lines[label] = append(h.lines[label], line)
}

func (h *cacheHook) OnCacheChange(e observe.CacheChange) {
	h.add(e.Label, fmt.Sprintf("%s %s nodes=%d", e.Type, e.Path, e.Nodes))
}

func (h *cacheHook) OnCacheResync(e observe.CacheResync) {
	h.mu.Lock()
	h.loads = append(h.loads, e)
	h.mu.Unlock()
	h.add(e.Label, fmt.Sprintf("resync initial=%v nodes=%d changes=%d", e.Initial, e.Nodes, e.Changes))
}

func (h *cacheHook) OnCacheStale(e observe.CacheStale) {
	h.mu.Lock()
	h.stale = append(h.stale, e)
	h.mu.Unlock()
	h.add(e.Label, "stale")
}

func (h *cacheHook) OnCacheOverflow(e observe.CacheOverflow) {
	h.add(e.Label, fmt.Sprintf("overflow %d", e.Dropped))
}

// of returns the lines of label.
func (h *cacheHook) of(label string) []string {
	h.mu.Lock()
	defer h.mu.Unlock()
	return slices.Clone(h.lines[label])
}

// await waits until label's lines number n, and returns them.
func (h *cacheHook) await(t *testing.T, label string, n int) []string {
	t.Helper()
	recipestest.Eventually(t, fmt.Sprintf("%d hook events of %s", n, label), func() (bool, string) {
		got := h.of(label)
		return len(got) >= n, strings.Join(got, "; ")
	})
	return h.of(label)
}

// expect fails unless got equals want, the lines from the index from on
// compared as a set, without their node counts (their order, which sets
// the counts, is the order of concurrent reads).
func expect(t *testing.T, what string, got, want []string, from int) {
	t.Helper()
	if len(got) == len(want) && from <= len(got) {
		g, w := slices.Clone(got), slices.Clone(want)
		for _, l := range [][]string{g[from:], w[from:]} {
			for i := range l {
				l[i], _, _ = strings.Cut(l[i], " nodes=")
			}
			slices.Sort(l)
		}
		if slices.Equal(g, w) {
			return
		}
	}
	t.Fatalf("%s: the hooks saw\n\t%s\nwant\n\t%s", what, strings.Join(got, "\n\t"), strings.Join(want, "\n\t"))
}

// TestCacheReportsToHooks: a cache tells the client's hooks, under its
// label, of its first load (a change per node, then the load), of a change,
// of a span the connection was down with the changes made meanwhile (the
// changes, the resync that found them, the stale span), and of a listener
// that fell behind (overflows that count exactly the events it missed).
func TestCacheReportsToHooks(t *testing.T) {
	hook := &cacheHook{}
	ns := recipestest.Namespace(t)
	proxy := recipestest.StartProxy(t, server.ConnectString())
	c := recipestest.NewClient(t, proxy.Addr(), framework.WithNamespace(ns), framework.WithHooks(hook))
	w := recipestest.NewClient(t, server.ConnectString(), framework.WithNamespace(ns))
	ctx := ctxT(t)
	mustCreate(t, w, "/cfg/a", "1")
	mustCreate(t, w, "/cfg/b", "1")

	cc, err := cache.New(c, "/cfg", cache.WithLabel("config"))
	if err != nil {
		t.Fatal(err)
	}
	if err := cc.Start(context.Background()); err != nil {
		t.Fatal(err)
	}
	defer cc.Close()
	<-cc.Initialized()
	want := []string{"created /cfg nodes=1", "created /cfg/a nodes=2", "created /cfg/b nodes=3"}
	got := hook.await(t, "config", len(want)+1)
	expect(t, "the load", got[:len(want)], want, 1)
	want = append(got[:len(want):len(want)], "resync initial=true nodes=3 changes=0")
	expect(t, "the load", got, want, 0)

	if _, err := w.Set(ctx, "/cfg/a", []byte("2"), -1); err != nil {
		t.Fatal(err)
	}
	want = append(want, "changed /cfg/a nodes=3")
	expect(t, "a change", hook.await(t, "config", len(want)), want, 0)

	// The connection goes silent; once the cache knows it is stale, the
	// tree changes, and the connection comes back.
	proxy.Blackhole(true)
	recipestest.Eventually(t, "the cache to go stale", func() (bool, string) { return cc.IsStale(), "" })
	if err := w.Delete(ctx, "/cfg/b"); err != nil {
		t.Fatal(err)
	}
	mustCreate(t, w, "/cfg/c", "1")
	proxy.Blackhole(false)
	n := len(want)
	want = append(want, "deleted /cfg/b nodes=2", "created /cfg/c nodes=3")
	got = hook.await(t, "config", len(want)+2)
	expect(t, "a resync", got[:len(want)], want, n)
	want = append(got[:len(want):len(want)], "resync initial=false nodes=3 changes=2", "stale")
	expect(t, "a resync", got, want, 0)
	hook.mu.Lock()
	if s := hook.stale[0].Duration; s <= 0 {
		t.Errorf("stale span of %v", s)
	}
	if l := hook.loads[len(hook.loads)-1]; l.Duration <= 0 || l.Duration > hook.stale[0].Duration {
		t.Errorf("resync of %v in a stale span of %v", l.Duration, hook.stale[0].Duration)
	}
	hook.mu.Unlock()

	// A listener that falls behind: it holds the first change while more
	// come, in a buffer of 2.
	mustCreate(t, w, "/slow/x", "0")
	slow, err := cache.New(c, "/slow", cache.WithLabel("slow"), cache.WithEventBuffer(2))
	if err != nil {
		t.Fatal(err)
	}
	var (
		mu      sync.Mutex
		heard   int // Changed events the listener took
		gate    = make(chan struct{})
		blocked = make(chan struct{})
		once    sync.Once
	)
	if _, err := slow.AddListener(func(ev cache.Event) {
		if ev.Type != cache.Changed {
			return
		}
		once.Do(func() { close(blocked); <-gate })
		mu.Lock()
		heard++
		mu.Unlock()
	}); err != nil {
		t.Fatal(err)
	}
	if err := slow.Start(context.Background()); err != nil {
		t.Fatal(err)
	}
	defer slow.Close()
	<-slow.Initialized()
	base := len(hook.await(t, "slow", 3)) // created /slow, created /slow/x, the load
	changes := func() (n int) {
		for _, l := range hook.of("slow") {
			if strings.HasPrefix(l, "changed ") {
				n++
			}
		}
		return n
	}
	for i := 1; changes() < 5; i++ {
		before := changes()
		if _, err := w.Set(ctx, "/slow/x", []byte(fmt.Sprint(i)), -1); err != nil {
			t.Fatal(err)
		}
		if i == 1 {
			<-blocked
		}
		recipestest.Eventually(t, "the change to be told", func() (bool, string) { return changes() > before, "" })
	}
	close(gate)
	posted := changes()
	recipestest.Eventually(t, "the listener to catch up", func() (bool, string) {
		mu.Lock()
		defer mu.Unlock()
		dropped := 0
		for _, l := range hook.of("slow")[base:] {
			if d, ok := strings.CutPrefix(l, "overflow "); ok {
				var n int
				fmt.Sscan(d, &n)
				dropped += n
			}
		}
		return dropped > 0 && heard+dropped == posted, fmt.Sprintf("posted %d, heard %d, dropped %d", posted, heard, dropped)
	})
}

// TestWatcherReportsASessionLoss: a watcher's session expires; it reads
// again and tells the hooks of the stale span and the resync.
func TestWatcherReportsASessionLoss(t *testing.T) {
	hook := &cacheHook{}
	cs := clients(t, 2, framework.WithHooks(hook))
	c, w := cs[0], cs[1]
	ctx := ctxT(t)
	mustCreate(t, w, "/cfg/x", "1")
	wd, err := cache.WatchData(context.Background(), c, "/cfg/x", func(cache.Node, bool, int) {}, cache.WithLabel("x"))
	if err != nil {
		t.Fatal(err)
	}
	defer wd.Close()
	if _, err := cache.WatchData(ctx, c, "/cfg/x", func(cache.Node, bool, int) {}, cache.WithMaxDepth(1)); err == nil {
		t.Fatal("a watcher took an option other than WithLabel")
	}
	hook.await(t, "x", 1)
	if err := c.InjectSessionExpiration(ctx); err != nil {
		t.Fatal(err)
	}
	got := hook.await(t, "x", 3)
	expect(t, "a session loss", got, []string{"resync initial=true nodes=1 changes=0", "resync initial=false nodes=1 changes=0", "stale"}, 0)
}
