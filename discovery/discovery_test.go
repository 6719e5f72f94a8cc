package discovery_test

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/gocurator/curator/discovery"
	"github.com/gocurator/curator/framework"
	"github.com/gocurator/curator/listener"
	"github.com/gocurator/curator/recipestest"
	"github.com/gocurator/curator/zkharness"
)

// Register, query, update and unregister: the nodes have the mode of their
// service type and hold the instance's JSON; Curator's builder defaults are
// filled in.
func TestRegisterQueryUnregister(t *testing.T) {
	recipestest.LeakCheck(t)
	cs := clients(t, server.ConnectString(), recipestest.Namespace(t), 2)
	ctx := ctxT(t)
	d := started[Details](t, cs[0])
	other := started[Details](t, cs[1])
	a, err := d.Register(ctx, discovery.Instance[Details]{Name: "orders", ID: "a", Address: "10.0.0.1", Port: 8080, Payload: Details{"eu", 1}})
	if err != nil {
		t.Fatal(err)
	}
	if a.ServiceType != discovery.Dynamic || a.RegistrationTime.IsZero() {
		t.Fatalf("defaults not filled in: %+v", a)
	}
	b, err := d.Register(ctx, discovery.Instance[Details]{Name: "orders", Address: "10.0.0.2", ServiceType: discovery.Static})
	if err != nil {
		t.Fatal(err)
	}
	if len(b.ID) != 36 {
		t.Fatalf("generated id %q, want a UUID", b.ID)
	}
	if _, err := d.Register(ctx, discovery.Instance[Details]{Name: "billing", ID: "x"}); err != nil {
		t.Fatal(err)
	}
	if names, err := other.Names(ctx); err != nil || !slices.Equal(names, []string{"billing", "orders"}) {
		t.Fatalf("Names = %v, %v", names, err)
	}
	insts, err := other.Instances(ctx, "orders")
	want := []string{"a", b.ID}
	slices.Sort(want)
	if err != nil || ids(insts) != want[0]+" "+want[1] {
		t.Fatalf("Instances = %v, %v", insts, err)
	}
	got, ok, err := other.Instance(ctx, "orders", "a")
	if err != nil || !ok || got.Payload != (Details{"eu", 1}) || got.Port != 8080 || !got.RegistrationTime.Equal(a.RegistrationTime) {
		t.Fatalf("Instance = %+v, %v, %v", got, ok, err)
	}
	if _, ok, err := other.Instance(ctx, "orders", "nobody"); ok || err != nil {
		t.Fatalf("a missing instance: %v, %v", ok, err)
	}
	for id, ephemeral := range map[string]bool{"a": true, b.ID: false} {
		_, st, err := cs[1].Get(ctx, "/services/orders/"+id)
		if err != nil || (st.EphemeralOwner == cs[0].SessionID()) != ephemeral {
			t.Fatalf("node of %s: %+v, %v; want ephemeral %v", id, st, err, ephemeral)
		}
	}
	a.Payload.Weight = 2
	if err := d.Update(ctx, a); err != nil {
		t.Fatal(err)
	}
	if got, _, _ := other.Instance(ctx, "orders", "a"); got.Payload.Weight != 2 {
		t.Fatalf("after Update: %+v", got)
	}
	if err := d.Unregister(a); err != nil {
		t.Fatal(err)
	}
	if _, ok, _ := other.Instance(ctx, "orders", "a"); ok {
		t.Fatal("still there after Unregister")
	}
	if err := d.Unregister(a); !errors.Is(err, discovery.ErrNotRegistered) {
		t.Fatalf("a second Unregister: %v", err)
	}
	if err := d.Update(ctx, a); !errors.Is(err, discovery.ErrNotRegistered) {
		t.Fatalf("Update after Unregister: %v", err)
	}
	if got := d.Registered(); len(got) != 2 {
		t.Fatalf("Registered = %v", got)
	}
}

// Close unregisters everything, whatever its mode, and the service's
// container goes once it is empty.
func TestCloseLeavesNothing(t *testing.T) {
	recipestest.LeakCheck(t)
	cs := clients(t, server.ConnectString(), recipestest.Namespace(t), 2)
	ctx := ctxT(t)
	d := started[any](t, cs[0])
	for i, st := range []discovery.ServiceType{discovery.Dynamic, discovery.DynamicSequential, discovery.Static, discovery.Permanent} {
		if _, err := d.Register(ctx, discovery.Instance[any]{Name: "svc", ID: fmt.Sprint("i", i), ServiceType: st}); err != nil {
			t.Fatal(err)
		}
	}
	if kids, _, _ := cs[1].Children(ctx, "/services/svc"); len(kids) != 4 {
		t.Fatalf("registered %v", kids)
	}
	if err := d.Close(); err != nil {
		t.Fatal(err)
	}
	recipestest.Eventually(t, "nothing left under /services", func() (bool, string) {
		ok, _, err := cs[1].Exists(ctx, "/services")
		return !ok && err == nil, fmt.Sprint(ok, err)
	})
	if _, err := d.Register(ctx, discovery.Instance[any]{Name: "svc"}); !errors.Is(err, discovery.ErrClosed) {
		t.Fatalf("Register after Close: %v", err)
	}
}

// After a session expiry, and after a server restart long enough for the
// client to give its session up, the instance is registered again, once,
// on the new session; a cache sees it go and come back.
func TestInstanceComesBack(t *testing.T) {
	recipestest.LeakCheck(t)
	srv := recipestest.StartServer(t)
	cs := clients(t, srv.ConnectString(), recipestest.Namespace(t), 2)
	ctx := ctxT(t)
	d := started[string](t, cs[0])
	watcher := started[string](t, cs[1])
	c, err := watcher.NewCache("svc")
	if err != nil {
		t.Fatal(err)
	}
	var mu sync.Mutex
	var events []string
	c.AddListener(func(ev discovery.Event[string]) {
		mu.Lock()
		events = append(events, ev.Type.String()+" "+ev.Instance.ID)
		mu.Unlock()
	})
	if err := c.Start(ctx); err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	if _, err := d.Register(ctx, discovery.Instance[string]{Name: "svc", ID: "a", Payload: "p"}); err != nil {
		t.Fatal(err)
	}
	back := func(what string, want ...string) {
		t.Helper()
		recipestest.Eventually(t, what, func() (bool, string) {
			mu.Lock()
			got := slices.Clone(events)
			mu.Unlock()
			kids, _, err := cs[1].Children(ctx, "/services/svc")
			if err != nil || !slices.Equal(kids, []string{"a"}) || !slices.Equal(got, want) || ids(c.Instances()) != "a" {
				return false, fmt.Sprint(kids, err, got, c.Instances())
			}
			_, st, err := cs[1].Get(ctx, "/services/svc/a")
			return err == nil && st.EphemeralOwner == cs[0].SessionID(), fmt.Sprint(st, err)
		})
	}
	back("the registration", "Added a")
	if err := cs[0].InjectSessionExpiration(ctx); err != nil {
		t.Fatal(err)
	}
	back("the instance back after the expiry", "Added a", "Removed a", "Added a")

	lost := make(chan struct{}, 1)
	remove, _ := cs[0].AddConnectionStateListener(func(s listener.ConnectionState) {
		if s == listener.Lost {
			select {
			case lost <- struct{}{}:
			default:
			}
		}
	})
	defer remove()
	if err := srv.Stop(); err != nil {
		t.Fatal(err)
	}
	select {
	case <-lost:
	case <-ctx.Done():
		t.Fatal("the client never reported Lost")
	}
	if err := srv.Restart(); err != nil {
		t.Fatal(err)
	}
	recipestest.Eventually(t, "the instance back after the restart, once, on the new session", func() (bool, string) {
		kids, _, err := cs[1].Children(ctx, "/services/svc")
		if err != nil || !slices.Equal(kids, []string{"a"}) {
			return false, fmt.Sprint(kids, err)
		}
		_, st, err := cs[1].Get(ctx, "/services/svc/a")
		return err == nil && st.EphemeralOwner == cs[0].SessionID() && ids(c.Instances()) == "a", fmt.Sprint(st, err, c.Instances())
	})
}

// A Cache tells each change after its first load, with the instance.
func TestCacheEvents(t *testing.T) {
	recipestest.LeakCheck(t)
	cs := clients(t, server.ConnectString(), recipestest.Namespace(t), 2)
	ctx := ctxT(t)
	d := started[int](t, cs[0])
	if _, err := d.Register(ctx, discovery.Instance[int]{Name: "svc", ID: "early", Payload: 1}); err != nil {
		t.Fatal(err)
	}
	c, err := started[int](t, cs[1]).NewCache("svc")
	if err != nil {
		t.Fatal(err)
	}
	got := make(chan string, 10)
	if _, err := c.AddListener(func(ev discovery.Event[int]) {
		got <- fmt.Sprint(ev.Type, " ", ev.Instance.ID, "=", ev.Instance.Payload)
	}); err != nil {
		t.Fatal(err)
	}
	if err := c.Start(ctx); err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	if ids(c.Instances()) != "early" {
		t.Fatalf("after Start: %v", c.Instances())
	}
	next := func(want string) {
		t.Helper()
		select {
		case ev := <-got:
			if ev != want {
				t.Fatalf("event %q, want %q", ev, want)
			}
		case <-ctx.Done():
			t.Fatalf("no event; want %q", want)
		}
	}
	a, _ := d.Register(ctx, discovery.Instance[int]{Name: "svc", ID: "a", Payload: 2})
	next("Added a=2")
	a.Payload = 3
	if err := d.Update(ctx, a); err != nil {
		t.Fatal(err)
	}
	next("Updated a=3")
	d.Unregister(discovery.Instance[int]{Name: "svc", ID: "early"})
	next("Removed early=1")
	if ids(c.Instances()) != "a" {
		t.Fatalf("at the end: %v", c.Instances())
	}
}

// Providers pick as Curator's strategies do, leave out disabled and
// filtered instances and, after the threshold of noted errors, down ones.
func TestProvider(t *testing.T) {
	recipestest.LeakCheck(t)
	cs := clients(t, server.ConnectString(), recipestest.Namespace(t), 2)
	ctx := ctxT(t)
	d := started[string](t, cs[0])
	for _, id := range []string{"a", "b", "c"} {
		if _, err := d.Register(ctx, discovery.Instance[string]{Name: "svc", ID: id, Payload: "p-" + id}); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := d.Register(ctx, discovery.Instance[string]{Name: "svc", ID: "off", Disabled: true}); err != nil {
		t.Fatal(err)
	}
	consumer := started[string](t, cs[1])
	provider := func(cfg discovery.ProviderConfig[string]) *discovery.Provider[string] {
		p, err := consumer.NewProvider("svc", cfg)
		if err != nil {
			t.Fatal(err)
		}
		if err := p.Start(ctx); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { p.Close() })
		return p
	}
	picks := func(p *discovery.Provider[string], n int) string {
		var s []string
		for range n {
			i, ok := p.Instance()
			if !ok {
				s = append(s, "-")
				continue
			}
			s = append(s, i.ID)
		}
		return fmt.Sprint(s)
	}
	rr := provider(discovery.ProviderConfig[string]{})
	if got := picks(rr, 7); got != "[a b c a b c a]" {
		t.Fatalf("round robin: %s", got)
	}
	sticky := provider(discovery.ProviderConfig[string]{Strategy: discovery.Sticky(discovery.RoundRobin())})
	if got := picks(sticky, 3); got != "[a a a]" {
		t.Fatalf("sticky: %s", got)
	}
	random := provider(discovery.ProviderConfig[string]{Strategy: discovery.Random()})
	seen := map[string]bool{}
	for range 300 {
		i, _ := random.Instance()
		seen[i.ID] = true
	}
	if len(seen) != 3 || seen["off"] {
		t.Fatalf("random picked %v", seen)
	}
	filtered := provider(discovery.ProviderConfig[string]{Filter: func(i discovery.Instance[string]) bool { return i.Payload != "p-b" }})
	if got := ids(filtered.Instances()); got != "a c" {
		t.Fatalf("filtered: %s", got)
	}
	// Two noted errors put an instance down; one does not.
	a, _, _ := consumer.Instance(ctx, "svc", "a")
	rr.NoteError(a)
	if got := ids(rr.Instances()); got != "a b c" {
		t.Fatalf("after one error: %s", got)
	}
	rr.NoteError(a)
	if got := ids(rr.Instances()); got != "b c" {
		t.Fatalf("after two errors: %s", got)
	}
	// The sticky provider moves on when its instance goes.
	if err := d.Unregister(a); err != nil {
		t.Fatal(err)
	}
	recipestest.Eventually(t, "the sticky provider to move on", func() (bool, string) {
		got := picks(sticky, 2)
		return got == "[b b]" || got == "[c c]", got
	})
	empty, err := consumer.NewProvider("nothing", discovery.ProviderConfig[string]{})
	if err != nil {
		t.Fatal(err)
	}
	if err := empty.Start(ctx); err != nil {
		t.Fatal(err)
	}
	defer empty.Close()
	if _, ok := empty.Instance(); ok {
		t.Fatal("an instance of a service with none")
	}
	if ok, _, _ := cs[1].Exists(ctx, "/services/nothing"); ok {
		t.Fatal("a provider made the service's node")
	}
}

// Bad input returns a clear error and sends nothing.
func TestBadInputSendsNothing(t *testing.T) {
	recipestest.LeakCheck(t)
	counter := zkharness.NewCounter()
	c := recipestest.NewClient(t, server.ConnectString(), framework.WithNamespace(recipestest.Namespace(t)), framework.WithDialer(counter.Dialer(nil)))
	ctx := ctxT(t)
	before := counter.Requests()
	for _, base := range []string{"", "services", "/a//b", "/a/"} {
		if _, err := discovery.New[any](c, base); !errors.Is(err, discovery.ErrInvalidArg) {
			t.Errorf("New(%q) = %v", base, err)
		}
	}
	if _, err := discovery.New[any](nil, "/s"); !errors.Is(err, discovery.ErrInvalidArg) {
		t.Errorf("nil client: %v", err)
	}
	if _, err := discovery.New[any](c, "/s", nil); !errors.Is(err, discovery.ErrInvalidArg) {
		t.Errorf("nil option: %v", err)
	}
	d, _ := discovery.New[any](c, "/s")
	if _, err := d.Register(ctx, discovery.Instance[any]{Name: "svc"}); !errors.Is(err, discovery.ErrNotStarted) {
		t.Errorf("Register before Start: %v", err)
	}
	if err := d.Start(context.Background()); err != nil {
		t.Fatal(err)
	}
	defer d.Close()
	if err := d.Start(context.Background()); !errors.Is(err, discovery.ErrAlreadyStarted) {
		t.Errorf("second Start: %v", err)
	}
	for name, inst := range map[string]discovery.Instance[any]{
		"empty name":                  {},
		"name with a slash":           {Name: "a/b"},
		"name ..":                     {Name: ".."},
		"id with a slash":             {Name: "svc", ID: "a/b"},
		"unknown service type":        {Name: "svc", ServiceType: "EPHEMERAL"},
		"port out of range":           {Name: "svc", Port: 70000},
		"payload that cannot marshal": {Name: "svc", Payload: make(chan int)},
	} {
		if _, err := d.Register(ctx, inst); !errors.Is(err, discovery.ErrInvalidArg) {
			t.Errorf("Register, %s: %v", name, err)
		}
	}
	if err := d.Update(ctx, discovery.Instance[any]{Name: "svc", ID: "x", Payload: make(chan int)}); !errors.Is(err, discovery.ErrNotRegistered) {
		t.Errorf("Update of an unregistered instance: %v", err)
	}
	if _, err := d.Instances(ctx, ""); !errors.Is(err, discovery.ErrInvalidArg) {
		t.Errorf("Instances of no name: %v", err)
	}
	if _, _, err := d.Instance(ctx, "svc", ""); !errors.Is(err, discovery.ErrInvalidArg) {
		t.Errorf("Instance with no id: %v", err)
	}
	if _, err := d.NewCache("a/b"); !errors.Is(err, discovery.ErrInvalidArg) {
		t.Errorf("NewCache(a/b): %v", err)
	}
	if _, err := d.NewProvider("svc", discovery.ProviderConfig[any]{DownThreshold: -1}); !errors.Is(err, discovery.ErrInvalidArg) {
		t.Errorf("negative threshold: %v", err)
	}
	cache, _ := d.NewCache("svc")
	if _, err := cache.AddListener(nil); !errors.Is(err, discovery.ErrInvalidArg) {
		t.Errorf("nil listener: %v", err)
	}
	if err := cache.Close(); err != nil {
		t.Errorf("Close before Start: %v", err)
	}
	if err := cache.Start(ctx); !errors.Is(err, discovery.ErrClosed) || !errors.Is(err, framework.ErrClosed) {
		t.Errorf("Start after Close: %v", err)
	}
	if got := counter.Requests() - before; got != 0 {
		t.Fatalf("bad input sent %d requests", got)
	}
	_ = time.Second
}

// On a 3-member ensemble the member the registering client is on is
// killed: the client moves to another member, the instance stays
// registered, once, on its session, and a cache elsewhere still has it;
// Update goes through on the new member.
func TestInstanceSurvivesMemberKill(t *testing.T) {
	recipestest.LeakCheck(t)
	ens, err := zkharness.StartEnsemble(3)
	if err != nil {
		t.Fatal(err)
	}
	defer ens.Close()
	cs := clients(t, ens.ConnectString(), recipestest.Namespace(t), 2)
	ctx := ctxT(t)
	d := started[string](t, cs[0])
	inst, err := d.Register(ctx, discovery.Instance[string]{Name: "svc", ID: "a", Payload: "v1"})
	if err != nil {
		t.Fatal(err)
	}
	c, _ := started[string](t, cs[1]).NewCache("svc")
	if err := c.Start(ctx); err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	on := -1
	for i := range ens.Size() {
		if ens.Member(i) == cs[0].CurrentServer() {
			on = i
		}
	}
	if on < 0 {
		t.Fatalf("the client is on %q, no member", cs[0].CurrentServer())
	}
	session := cs[0].SessionID()
	if err := ens.Kill(on); err != nil {
		t.Fatal(err)
	}
	inst.Payload = "v2"
	if err := d.Update(ctx, inst); err != nil { // through another member
		t.Fatal(err)
	}
	recipestest.Eventually(t, "the cache to have the update", func() (bool, string) {
		insts := c.Instances()
		return len(insts) == 1 && insts[0].Payload == "v2", fmt.Sprint(insts)
	})
	kids, _, err := cs[1].Children(ctx, "/services/svc")
	_, st, err2 := cs[1].Get(ctx, "/services/svc/a")
	if err != nil || err2 != nil || !slices.Equal(kids, []string{"a"}) || st.EphemeralOwner != cs[0].SessionID() || cs[0].SessionID() != session {
		t.Fatalf("after the kill: %v %v, %+v %v; session %#x then %#x", kids, err, st, err2, session, cs[0].SessionID())
	}
	if err := ens.Restart(on); err != nil {
		t.Fatal(err)
	}
}
