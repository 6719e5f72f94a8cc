package discovery_test

import (
	"errors"
	"sync"
	"testing"
	"time"

	"github.com/gocurator/curator/discovery"
	"github.com/gocurator/curator/framework"
	"github.com/gocurator/curator/recipestest"
	"github.com/gocurator/curator/zkharness"
)

// Registers of one instance at once all succeed, and what Registered
// reports is what the instance's node holds. Run with -race, this also
// checks that they share the registration without a data race.
func TestConcurrentRegistersOfOneInstance(t *testing.T) {
	recipestest.LeakCheck(t)
	cs := clients(t, server.ConnectString(), recipestest.Namespace(t), 2)
	ctx := ctxT(t)
	d := started[int](t, cs[0])
	other := started[int](t, cs[1])
	const n = 8
	errs := make([]error, n)
	var wg sync.WaitGroup
	for i := range n {
		wg.Go(func() {
			_, errs[i] = d.Register(ctx, discovery.Instance[int]{Name: "svc", ID: "a", Payload: i})
		})
	}
	wg.Wait()
	if err := errors.Join(errs...); err != nil {
		t.Fatalf("concurrent Registers: %v", err)
	}
	reg := d.Registered()
	got, ok, err := other.Instance(ctx, "svc", "a")
	if err != nil || !ok || len(reg) != 1 || reg[0].Payload != got.Payload || !reg[0].RegistrationTime.Equal(got.RegistrationTime) {
		t.Fatalf("Registered %+v; the node holds %+v (%v, %v)", reg, got, ok, err)
	}
}

// Registering an instance again without a registration time keeps the one
// it was registered with, as Update does.
func TestRegisterAgainKeepsTheRegistrationTime(t *testing.T) {
	recipestest.LeakCheck(t)
	cs := clients(t, server.ConnectString(), recipestest.Namespace(t), 2)
	ctx := ctxT(t)
	d := started[string](t, cs[0])
	other := started[string](t, cs[1])
	when := time.Date(2020, 1, 2, 3, 4, 5, 6_000_000, time.UTC)
	if _, err := d.Register(ctx, discovery.Instance[string]{Name: "svc", ID: "a", Payload: "v1", RegistrationTime: when}); err != nil {
		t.Fatal(err)
	}
	again, err := d.Register(ctx, discovery.Instance[string]{Name: "svc", ID: "a", Payload: "v2"})
	if err != nil || !again.RegistrationTime.Equal(when) {
		t.Fatalf("Register again: %v at %v, want %v", err, again.RegistrationTime, when)
	}
	got, ok, err := other.Instance(ctx, "svc", "a")
	if err != nil || !ok || got.Payload != "v2" || !got.RegistrationTime.Equal(when) {
		t.Fatalf("the node holds %+v (%v, %v); want v2 registered at %v", got, ok, err, when)
	}
}

// A Close while a cache's Start waits for its first load ends the Start
// with ErrClosed.
func TestCacheStartEndsWithClose(t *testing.T) {
	recipestest.LeakCheck(t)
	proxy := recipestest.StartProxy(t, server.Addr())
	c := recipestest.NewClient(t, proxy.Addr(), framework.WithNamespace(recipestest.Namespace(t)))
	ctx := ctxT(t)
	sc, err := started[any](t, c).NewCache("svc")
	if err != nil {
		t.Fatal(err)
	}
	if _, _, err := c.Exists(ctx, "/services"); err != nil { // the client makes its namespace's node first
		t.Fatal(err)
	}
	read := proxy.Arrival(zkharness.OpGetData)
	proxy.Blackhole(true) // the load never ends
	t.Cleanup(func() { proxy.Blackhole(false) })
	started := make(chan error, 1)
	go func() { started <- sc.Start(ctx) }()
	select {
	case <-read: // the load is under way
	case <-ctx.Done():
		t.Fatal("the cache sent no read")
	}
	if err := sc.Close(); err != nil {
		t.Fatal(err)
	}
	select {
	case err := <-started:
		if !errors.Is(err, discovery.ErrClosed) {
			t.Fatalf("Start: %v, want ErrClosed", err)
		}
	case <-ctx.Done():
		t.Fatal("Start still waits after Close")
	}
}

// Sticky holds to what its master picks, and neither a nil master nor one
// that picks out of range makes it panic (the Provider refuses such a
// pick).
func TestStickyWithAnUnusualMaster(t *testing.T) {
	keys := []string{"a", "b", "c"}
	s := discovery.Sticky(nil)
	first := s.Pick(keys)
	for range 3 {
		if got := s.Pick(keys); got != first {
			t.Fatalf("Sticky(nil) picked %d, then %d", first, got)
		}
	}
	if got := discovery.Sticky(outOfRange{}).Pick(keys); got != len(keys) {
		t.Fatalf("Sticky over a master that picks %d returned %d", len(keys), got)
	}
}

// outOfRange is a Strategy that picks past the end.
type outOfRange struct{}

func (outOfRange) Pick(keys []string) int { return len(keys) }
