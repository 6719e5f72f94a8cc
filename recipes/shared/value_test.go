package shared_test

import (
	"errors"
	"fmt"
	"sync"
	"testing"

	"github.com/gocurator/curator/framework"
	"github.com/gocurator/curator/recipes/shared"
	"github.com/gocurator/curator/recipestest"
	"github.com/gocurator/curator/zkharness"
)

// values starts a Value at path on each client, closed when the test ends.
func values(t *testing.T, path string, seed []byte, cs ...*framework.Client) []*shared.Value {
	t.Helper()
	vs := make([]*shared.Value, len(cs))
	for i, c := range cs {
		v, err := shared.NewValue(c, path, seed)
		if err != nil {
			t.Fatal(err)
		}
		if err := v.Start(t.Context()); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { v.Close() })
		vs[i] = v
	}
	return vs
}

// seen collects what a listener is told, and lets a test wait for a value.
type seen struct {
	mu   sync.Mutex
	vals []string
	cond chan struct{}
}

func listen(v *shared.Value) *seen {
	s := &seen{cond: make(chan struct{})}
	v.AddListener(func(b []byte) {
		s.mu.Lock()
		s.vals = append(s.vals, string(b))
		close(s.cond)
		s.cond = make(chan struct{})
		s.mu.Unlock()
	})
	return s
}

// wait waits until the listener has been told want.
func (s *seen) wait(t *testing.T, want string) {
	t.Helper()
	ctx := ctxT(t)
	for {
		s.mu.Lock()
		vals, cond := s.vals, s.cond
		s.mu.Unlock()
		if len(vals) > 0 && vals[len(vals)-1] == want {
			return
		}
		select {
		case <-cond:
		case <-ctx.Done():
			t.Fatalf("listener saw %q, never %q", vals, want)
		}
	}
}

// The seed is used only by the first; a set by one participant reaches the
// other's Get and listener.
func TestValueSharesSets(t *testing.T) {
	cs := clients(t, 2)
	ctx := ctxT(t)
	a := values(t, "/v", []byte("seed-a"), cs[0])[0]
	b := values(t, "/v", []byte("seed-b"), cs[1])[0]
	if got := string(b.Get().Value); got != "seed-a" {
		t.Fatalf("b's value %q, want the first seed", got)
	}
	heard := listen(b)
	if err := a.Set(ctx, []byte("one")); err != nil {
		t.Fatal(err)
	}
	heard.wait(t, "one")
	if got := b.Get(); string(got.Value) != "one" || got.Version != 1 {
		t.Fatalf("b.Get() = %q@%d, want one@1", got.Value, got.Version)
	}
}

// A nil seed is an empty value, not the client's default data.
func TestValueNilSeedIsEmpty(t *testing.T) {
	cs := clients(t, 2, framework.WithDefaultData([]byte("default")))
	ctx := ctxT(t)
	a := values(t, "/v", nil, cs[0])[0]
	if got := a.Get().Value; len(got) != 0 {
		t.Fatalf("the value %q, want empty", got)
	}
	if data, _, err := cs[1].Get(ctx, "/v"); err != nil || len(data) != 0 {
		t.Fatalf("the node holds %q, %v; want nothing", data, err)
	}
}

// TrySet sets only over the value it read: a participant whose read is
// stale is refused, and sees the value that won.
func TestValueTrySetRefusesAStaleRead(t *testing.T) {
	cs := clients(t, 2)
	ctx := ctxT(t)
	vs := values(t, "/v", []byte("0"), cs...)
	a, b := vs[0], vs[1]
	pa, pb := a.Get(), b.Get()
	if ok, err := a.TrySet(ctx, pa, []byte("a")); !ok || err != nil {
		t.Fatalf("a's TrySet over the value it read: %v %v", ok, err)
	}
	if ok, err := b.TrySet(ctx, pb, []byte("b")); ok || err != nil {
		t.Fatalf("b's TrySet over a stale read: %v %v, want false", ok, err)
	}
	if got := string(b.Get().Value); got != "a" {
		t.Fatalf("b after its refused TrySet: %q, want a's value", got)
	}
	if ok, err := b.TrySet(ctx, b.Get(), []byte("b")); !ok || err != nil {
		t.Fatalf("b's TrySet over the fresh value: %v %v", ok, err)
	}
}

// A participant whose session ends, and one whose connection drops, sees
// the sets made meanwhile once it is back; a delete and re-create, which a
// version alone does not tell, is seen too.
func TestValueResyncsAfterSessionLossAndRecreate(t *testing.T) {
	ns := recipestest.Namespace(t)
	killer := zkharness.NewSessionKiller()
	proxy := recipestest.StartProxy(t, server.Addr())
	writer := recipestest.NewClient(t, server.ConnectString(), framework.WithNamespace(ns))
	reader := recipestest.NewClient(t, proxy.Addr(), framework.WithNamespace(ns), framework.WithDialer(killer.Dialer(nil)))
	ctx := ctxT(t)
	w := values(t, "/v", []byte("0"), writer)[0]
	r := values(t, "/v", nil, reader)[0]
	heard := listen(r)

	if err := killer.Kill(ctx); err != nil {
		t.Fatal(err)
	}
	if err := w.Set(ctx, []byte("after expiry")); err != nil {
		t.Fatal(err)
	}
	heard.wait(t, "after expiry")

	proxy.Blackhole(true)
	proxy.DropAll()
	if err := w.Set(ctx, []byte("while away")); err != nil {
		t.Fatal(err)
	}
	proxy.Blackhole(false)
	heard.wait(t, "while away")

	if err := writer.Delete(ctx, "/v"); err != nil {
		t.Fatal(err)
	}
	if _, err := writer.Create(ctx, "/v", []byte("re-created")); err != nil {
		t.Fatal(err)
	}
	heard.wait(t, "re-created")
	if got := r.Get(); got.Version != 0 {
		t.Fatalf("the re-created node's version %d, want 0", got.Version)
	}
}

// Counts set by many participants with TrySet add up: no increment is lost.
func TestCountIncrementsAddUp(t *testing.T) {
	const participants, increments = 4, 25
	cs := clients(t, participants)
	ctx := ctxT(t)
	var wg sync.WaitGroup
	errs := make(chan error, participants)
	for _, c := range cs {
		cnt, err := shared.NewCount(c, "/count", 0)
		if err != nil {
			t.Fatal(err)
		}
		if err := cnt.Start(t.Context()); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { cnt.Close() })
		wg.Add(1)
		go func() {
			defer wg.Done()
			for range increments {
				for {
					cur := cnt.Get()
					ok, err := cnt.TrySet(ctx, cur, cur.Value+1)
					if err != nil {
						errs <- err
						return
					}
					if ok {
						break
					}
				}
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}
	data, _, err := cs[0].Get(ctx, "/count")
	if err != nil {
		t.Fatal(err)
	}
	if want := fmt.Sprintf("%x", []byte{0, 0, 0, participants * increments}); fmt.Sprintf("%x", data) != want {
		t.Fatalf("count node %x, want %s", data, want)
	}
}

// Bad input is refused before anything is sent; calls before Start say so;
// a node that is not a count fails the Count's Start.
func TestSharedBadInput(t *testing.T) {
	c := clients(t, 1)[0]
	ctx := ctxT(t)
	for _, p := range []string{"", "/", "x", "/a/"} {
		if _, err := shared.NewValue(c, p, nil); !errors.Is(err, framework.ErrInvalidArg) {
			t.Errorf("NewValue(%q): %v, want ErrInvalidArg", p, err)
		}
	}
	if _, err := shared.NewValue(nil, "/v", nil); !errors.Is(err, framework.ErrInvalidArg) {
		t.Errorf("NewValue with a nil client: %v", err)
	}
	v, _ := shared.NewValue(c, "/v", nil)
	if err := v.Set(ctx, []byte("x")); !errors.Is(err, shared.ErrNotStarted) {
		t.Errorf("Set before Start: %v, want ErrNotStarted", err)
	}
	if _, err := c.Create(ctx, "/notcount", []byte("abc")); err != nil {
		t.Fatal(err)
	}
	cnt, _ := shared.NewCount(c, "/notcount", 0)
	if err := cnt.Start(t.Context()); !errors.Is(err, framework.ErrInvalidArg) {
		t.Errorf("Count.Start on a 3-byte node: %v, want ErrInvalidArg", err)
	}
}

// A Count whose node someone overwrote with something that is not a count
// refuses TrySet with ErrInvalidArg, instead of false for ever (a TrySet
// loop would spin without a request).
func TestCountTrySetRefusesANodeThatIsNotACount(t *testing.T) {
	c := clients(t, 1)[0]
	ctx := ctxT(t)
	cnt, _ := shared.NewCount(c, "/count", 0)
	if err := cnt.Start(t.Context()); err != nil {
		t.Fatal(err)
	}
	defer cnt.Close()
	v := values(t, "/count", nil, c)[0]
	if err := v.Set(ctx, []byte("not a count")); err != nil {
		t.Fatal(err)
	}
	recipestest.Eventually(t, "the count to see the overwrite", func() (bool, string) {
		_, err := cnt.TrySet(ctx, cnt.Get(), 1)
		return errors.Is(err, framework.ErrInvalidArg), fmt.Sprint(err)
	})
}

// The reply to a TrySet's write is lost: the write was applied once, and
// TrySet says its outcome is unknown (the node cannot tell this write from
// another participant's that set the same bytes at the same version); it
// never reports it as refused, which a retry of the write would have made
// it do (the retry finds the version moved on), letting a caller that
// tries again count an increment twice. A Value whose set's reply was lost
// reads the node again, and the next TrySet goes on from there.
func TestTrySetWhoseReplyIsLost(t *testing.T) {
	ns := recipestest.Namespace(t)
	proxy := recipestest.StartProxy(t, server.Addr())
	c := recipestest.NewClient(t, proxy.Addr(), framework.WithNamespace(ns))
	direct := recipestest.NewClient(t, server.ConnectString(), framework.WithNamespace(ns))
	ctx := ctxT(t)
	cnt, err := shared.NewCount(c, "/count", 5)
	if err != nil {
		t.Fatal(err)
	}
	if err := cnt.Start(ctx); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cnt.Close() })
	prev := cnt.Get()
	proxy.DropAfter(zkharness.OpSetData)
	ok, err := cnt.TrySet(ctx, prev, prev.Value+1)
	if ok || !errors.Is(err, framework.ErrOutcomeUnknown) {
		t.Fatalf("a TrySet whose write's reply was lost: %v, %v; want an error wrapping ErrOutcomeUnknown", ok, err)
	}
	data, stat, err := direct.Get(ctx, "/count")
	if err != nil {
		t.Fatal(err)
	}
	if n := int32(data[0])<<24 | int32(data[1])<<16 | int32(data[2])<<8 | int32(data[3]); n != 6 || stat.Version != prev.Version+1 {
		t.Fatalf("the count is %d at version %d after one TrySet from 5 at version %d: want 6, written once", n, stat.Version, prev.Version)
	}
	recipestest.Eventually(t, "the count read again", func() (bool, string) { v := cnt.Get(); return v.Value == 6, fmt.Sprint(v) })
	if ok, err := cnt.TrySet(ctx, cnt.Get(), 7); !ok || err != nil {
		t.Fatalf("the next TrySet: %v, %v", ok, err)
	}
}
