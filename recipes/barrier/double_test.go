package barrier_test

import (
	"context"
	"errors"
	"fmt"
	"regexp"
	"slices"
	"sync"
	"testing"

	"github.com/gocurator/curator/framework"
	"github.com/gocurator/curator/recipes/barrier"
	"github.com/gocurator/curator/recipestest"
	"github.com/gocurator/curator/zkharness"
)

// uuidName is a member node's name: Java's UUID.randomUUID() text.
var uuidName = regexp.MustCompile(`^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$`)

// member is one member of a double barrier, on a client of its own.
type member struct {
	c    *framework.Client
	b    *barrier.DoubleBarrier
	wire *zkharness.Counter // c's requests
}

// members makes n members of the double barrier at path for a group of
// size, on clients of their own in namespace ns.
func members(t *testing.T, ns, path string, n, size int, opts ...framework.Option) []member {
	t.Helper()
	ms := make([]member, n)
	for i := range ms {
		wire := zkharness.NewCounter()
		c := recipestest.NewClient(t, server.ConnectString(), append([]framework.Option{framework.WithNamespace(ns), framework.WithDialer(wire.Dialer(nil))}, opts...)...)
		b, err := barrier.NewDoubleBarrier(c, path, size)
		if err != nil {
			t.Fatal(err)
		}
		ms[i] = member{c, b, wire}
	}
	return ms
}

// view lists the barrier's member nodes (sorted) and says whether its
// ready node exists.
func view(t *testing.T, c *framework.Client, path string) (names []string, ready bool) {
	t.Helper()
	kids, _, err := c.Children(ctxT(t), path)
	if err != nil && !errors.Is(err, framework.ErrNoNode) {
		t.Fatal(err)
	}
	for _, k := range kids {
		if k == barrier.ReadyNode {
			ready = true
			continue
		}
		names = append(names, k)
	}
	slices.Sort(names)
	return names, ready
}

// entered is what a member saw as its Enter returned.
type entered struct {
	err     error
	members int
	ready   bool
}

// enter runs m's Enter in a goroutine and reports what the barrier looked
// like as it returned.
func enter(ctx context.Context, t *testing.T, m member, path string, out chan<- entered) {
	go func() {
		err := m.b.Enter(ctx)
		e := entered{err: err}
		if err == nil {
			kids, _, lerr := m.c.Children(ctx, path)
			e.err = lerr
			for _, k := range kids {
				if k == barrier.ReadyNode {
					e.ready = true
				} else {
					e.members++
				}
			}
		}
		out <- e
	}()
}

// Three members, three rounds: the first two wait in Enter until the third
// comes (each Enter returns with all three member nodes there and the ready
// node made), their nodes are ephemeral UUIDs, and once all have left,
// nothing is left under the barrier's path.
func TestDoubleBarrierRounds(t *testing.T) {
	const size = 3
	ns := recipestest.Namespace(t)
	ctx := ctxT(t)
	ms := members(t, ns, "/dbl", size, size)
	for round := range 3 {
		out := make(chan entered, size)
		for _, m := range ms[:size-1] {
			enter(ctx, t, m, "/dbl", out)
		}
		recipestest.Eventually(t, "the first members' nodes", func() (bool, string) {
			names, ready := view(t, ms[0].c, "/dbl")
			return len(names) == size-1 && !ready, fmt.Sprint(names, ready)
		})
		names, _ := view(t, ms[0].c, "/dbl")
		for _, n := range names {
			if !uuidName.MatchString(n) {
				t.Fatalf("member node %q is not a UUID", n)
			}
			if _, stat, err := ms[0].c.Exists(ctx, "/dbl/"+n); err != nil || stat.EphemeralOwner == 0 {
				t.Fatalf("member node %s: %+v, %v; want ephemeral", n, stat, err)
			}
		}
		select {
		case e := <-out:
			t.Fatalf("round %d: a member entered with %d of %d members there: %+v", round, e.members, size, e)
		default:
		}
		enter(ctx, t, ms[size-1], "/dbl", out)
		for range size {
			if e := <-out; e.err != nil || e.members != size || !e.ready {
				t.Fatalf("round %d: a member's Enter returned with %+v; want all %d members and the ready node", round, e, size)
			}
		}
		left := make(chan error, size)
		for _, m := range ms {
			go func() { left <- m.b.Leave(ctx) }()
		}
		for range size {
			if err := <-left; err != nil {
				t.Fatalf("round %d: Leave: %v", round, err)
			}
		}
		if names, ready := view(t, ms[0].c, "/dbl"); len(names) != 0 || ready {
			t.Fatalf("round %d: after every Leave: members %v, ready %v", round, names, ready)
		}
	}
}

// Leave waits for every member: one that has not left yet holds the others
// in Leave, and they all return once it leaves.
func TestDoubleBarrierLeaveWaitsForAll(t *testing.T) {
	const size = 3
	ns := recipestest.Namespace(t)
	ctx := ctxT(t)
	ms := members(t, ns, "/dbl", size, size)
	out := make(chan entered, size)
	for _, m := range ms {
		enter(ctx, t, m, "/dbl", out)
	}
	for range size {
		if e := <-out; e.err != nil {
			t.Fatal(e.err)
		}
	}
	// The member whose node sorts in the middle stays; the first waits for
	// the last, the last for the first.
	names, _ := view(t, ms[0].c, "/dbl")
	var stay member
	for _, m := range ms {
		if kids := kidsOf(t, m); kids == names[1] {
			stay = m
		}
	}
	left := make(chan error, size)
	for _, m := range ms {
		if m != stay {
			go func() { left <- m.b.Leave(ctx) }()
		}
	}
	recipestest.Eventually(t, "the last member's node to go", func() (bool, string) {
		now, _ := view(t, ms[0].c, "/dbl")
		return len(now) == 2, fmt.Sprint(now)
	})
	select {
	case err := <-left:
		t.Fatalf("a Leave returned while a member had not left: %v", err)
	default:
	}
	if err := stay.b.Leave(ctx); err != nil {
		t.Fatal(err)
	}
	for range size - 1 {
		if err := <-left; err != nil {
			t.Fatal(err)
		}
	}
	if names, ready := view(t, ms[0].c, "/dbl"); len(names) != 0 || ready {
		t.Fatalf("after every Leave: members %v, ready %v", names, ready)
	}
}

// kidsOf returns the name of m's node: the one of the barrier's children
// its session owns.
func kidsOf(t *testing.T, m member) string {
	t.Helper()
	names, _ := view(t, m.c, "/dbl")
	for _, n := range names {
		if _, stat, err := m.c.Exists(ctxT(t), "/dbl/"+n); err == nil && stat != nil && stat.EphemeralOwner == m.c.SessionID() {
			return n
		}
	}
	t.Fatal("the member has no node")
	return ""
}

// A member that gives up its Enter, or its Leave, returns the context's
// error, and its node goes; the others are not held up by it.
func TestDoubleBarrierCancelLeavesNothing(t *testing.T) {
	ns := recipestest.Namespace(t)
	ctx := ctxT(t)
	ms := members(t, ns, "/dbl", 2, 2)
	cctx, cancel := context.WithCancel(ctx)
	out := make(chan entered, 2)
	enter(cctx, t, ms[0], "/dbl", out)
	recipestest.Eventually(t, "the member's node", func() (bool, string) {
		names, _ := view(t, ms[1].c, "/dbl")
		return len(names) == 1, fmt.Sprint(names)
	})
	cancel()
	if e := <-out; !errors.Is(e.err, context.Canceled) {
		t.Fatalf("a cancelled Enter: %+v", e)
	}
	recipestest.Eventually(t, "the member's node to go (the client deletes it in the background)", func() (bool, string) {
		names, ready := view(t, ms[1].c, "/dbl")
		return len(names) == 0 && !ready, fmt.Sprint(names, ready)
	})

	for _, m := range ms {
		enter(ctx, t, m, "/dbl", out)
	}
	for range 2 {
		if e := <-out; e.err != nil {
			t.Fatal(e.err)
		}
	}
	cctx, cancel = context.WithCancel(ctx)
	left := make(chan error, 1)
	watches := ms[0].wire.RequestsOf(zkharness.OpGetData)
	go func() { left <- ms[0].b.Leave(cctx) }()
	recipestest.Eventually(t, "the Leave to wait on the other's node", func() (bool, string) {
		n := ms[0].wire.RequestsOf(zkharness.OpGetData) - watches
		return n > 0, fmt.Sprint(n, " getData requests")
	})
	cancel()
	if err := <-left; !errors.Is(err, context.Canceled) {
		t.Fatalf("a cancelled Leave: %v", err)
	}
	if err := ms[1].b.Leave(ctx); err != nil {
		t.Fatalf("the other's Leave after a cancelled one: %v", err)
	}
	if names, ready := view(t, ms[1].c, "/dbl"); len(names) != 0 || ready {
		t.Fatalf("after a cancelled Leave and a Leave: members %v, ready %v", names, ready)
	}
	if err := ms[0].b.Leave(ctx); !errors.Is(err, barrier.ErrInvalidArg) {
		t.Fatalf("Leave after a cancelled Leave: %v; want ErrInvalidArg (not entered)", err)
	}
}

// A cancelled Enter, or Leave, returns at once though the connection has
// gone silent: before the client even finds the connection suspended, not
// after waiting on the delete of its node, which the client makes once the
// connection is back.
func TestDoubleBarrierCancelReturnsWhileBlackholed(t *testing.T) {
	for _, call := range []string{"Enter", "Leave"} {
		t.Run(call, func(t *testing.T) {
			ns := recipestest.Namespace(t)
			ctx := ctxT(t)
			proxy := recipestest.StartProxy(t, server.Addr())
			wire := zkharness.NewCounter()
			c := recipestest.NewClient(t, proxy.Addr(), framework.WithNamespace(ns), framework.WithDialer(wire.Dialer(nil)))
			b, err := barrier.NewDoubleBarrier(c, "/dbl", 2)
			if err != nil {
				t.Fatal(err)
			}
			other := members(t, ns, "/dbl", 1, 2)[0]
			cctx, cancel := context.WithCancel(ctx)
			defer cancel()
			done := make(chan error, 1)
			want := 0 // member nodes left once ours went
			if call == "Enter" {
				go func() { done <- b.Enter(cctx) }()
				recipestest.Eventually(t, "the member's node", func() (bool, string) {
					names, _ := view(t, other.c, "/dbl")
					return len(names) == 1, fmt.Sprint(names)
				})
			} else {
				want = 1 // the other's: it has not left
				entered := make(chan error, 1)
				go func() { entered <- other.b.Enter(ctx) }()
				if err := b.Enter(ctx); err != nil {
					t.Fatal(err)
				}
				if err := <-entered; err != nil {
					t.Fatal(err)
				}
				watches := wire.RequestsOf(zkharness.OpGetData)
				go func() { done <- b.Leave(cctx) }() // waits for the other, which does not leave yet
				recipestest.Eventually(t, "the leaving member to watch the other's node", func() (bool, string) {
					n := wire.RequestsOf(zkharness.OpGetData) - watches
					return n > 0, fmt.Sprint(n, " getData requests")
				})
			}
			sess := c.Session() // ends when the client finds the connection suspended
			proxy.Blackhole(true)
			cancel()
			select {
			case err := <-done:
				if !errors.Is(err, context.Canceled) {
					t.Fatalf("a cancelled %s: %v", call, err)
				}
			case <-sess.Done():
				t.Fatalf("the cancelled %s had not returned when the client found the connection suspended", call)
			}
			proxy.Blackhole(false)
			recipestest.Eventually(t, "the member's node to go", func() (bool, string) {
				names, _ := view(t, other.c, "/dbl")
				return len(names) == want, fmt.Sprint(names)
			})
		})
	}
}

// A member whose session ends while it waits in Enter gets ErrMemberLost;
// one whose session ended after it entered gets it from Leave. Neither
// leaves a node behind.
func TestDoubleBarrierSessionExpiry(t *testing.T) {
	ns := recipestest.Namespace(t)
	ctx := ctxT(t)
	ms := members(t, ns, "/dbl", 2, 2)
	out := make(chan entered, 2)
	enter(ctx, t, ms[0], "/dbl", out)
	recipestest.Eventually(t, "the member's node", func() (bool, string) {
		names, _ := view(t, ms[1].c, "/dbl")
		return len(names) == 1, fmt.Sprint(names)
	})
	if err := ms[0].c.InjectSessionExpiration(ctx); err != nil {
		t.Fatal(err)
	}
	if e := <-out; !errors.Is(e.err, barrier.ErrMemberLost) {
		t.Fatalf("Enter across a session expiry: %v (members %d, ready %v); want ErrMemberLost", e.err, e.members, e.ready)
	}
	if names, _ := view(t, ms[1].c, "/dbl"); len(names) != 0 {
		t.Fatalf("after the expiry: members %v", names)
	}

	for _, m := range ms {
		enter(ctx, t, m, "/dbl", out)
	}
	for range 2 {
		if e := <-out; e.err != nil {
			t.Fatal(e.err)
		}
	}
	if err := ms[0].c.InjectSessionExpiration(ctx); err != nil {
		t.Fatal(err)
	}
	if err := ms[0].b.Leave(ctx); !errors.Is(err, barrier.ErrMemberLost) {
		t.Fatalf("Leave after a session expiry: %v; want ErrMemberLost", err)
	}
	if err := ms[1].b.Leave(ctx); err != nil {
		t.Fatalf("the other's Leave: %v", err)
	}
	if names, ready := view(t, ms[1].c, "/dbl"); len(names) != 0 || ready {
		t.Fatalf("at the end: members %v, ready %v", names, ready)
	}
}

// A member waiting in Enter rides out a dropped connection: the group
// completed meanwhile lets it in.
func TestDoubleBarrierEnterAcrossADisconnect(t *testing.T) {
	ns := recipestest.Namespace(t)
	ctx := ctxT(t)
	proxy := recipestest.StartProxy(t, server.Addr())
	c := recipestest.NewClient(t, proxy.Addr(), framework.WithNamespace(ns))
	a, _ := barrier.NewDoubleBarrier(c, "/dbl", 2)
	other := members(t, ns, "/dbl", 1, 2)[0]
	out := make(chan entered, 2)
	enter(ctx, t, member{c: c, b: a}, "/dbl", out)
	recipestest.Eventually(t, "the member's node", func() (bool, string) {
		names, _ := view(t, other.c, "/dbl")
		return len(names) == 1, fmt.Sprint(names)
	})
	proxy.Blackhole(true)
	proxy.DropAll()
	enter(ctx, t, other, "/dbl", out)
	e := <-out
	proxy.Blackhole(false)
	e2 := <-out
	for _, e := range []entered{e, e2} {
		if e.err != nil {
			t.Fatalf("Enter across a dropped connection: %+v", e)
		}
	}
	for _, b := range []*barrier.DoubleBarrier{a, other.b} {
		go func() { out <- entered{err: b.Leave(ctx)} }()
	}
	for range 2 {
		if e := <-out; e.err != nil {
			t.Fatal(e.err)
		}
	}
}

// Enter twice without a Leave is refused.
func TestDoubleBarrierEnterTwice(t *testing.T) {
	ns := recipestest.Namespace(t)
	ctx := ctxT(t)
	m := members(t, ns, "/dbl", 1, 1)[0]
	if err := m.b.Enter(ctx); err != nil {
		t.Fatal(err)
	}
	if err := m.b.Enter(ctx); !errors.Is(err, barrier.ErrInvalidArg) {
		t.Fatalf("a second Enter: %v; want ErrInvalidArg", err)
	}
	if err := m.b.Leave(ctx); err != nil {
		t.Fatal(err)
	}
}

// The member node's create is applied and its reply lost: the client's
// retry finds the node there, and Enter goes on with it.
func TestDoubleBarrierLostCreateReply(t *testing.T) {
	ns := recipestest.Namespace(t)
	ctx := ctxT(t)
	proxy := recipestest.StartProxy(t, server.Addr())
	c := recipestest.NewClient(t, proxy.Addr(), framework.WithNamespace(ns))
	if _, err := c.Create(ctx, "/dbl", nil); err != nil { // so that the member's node is the next create
		t.Fatal(err)
	}
	b, _ := barrier.NewDoubleBarrier(c, "/dbl", 1)
	proxy.DropAfter(zkharness.OpCreate)
	if err := b.Enter(ctx); err != nil {
		t.Fatalf("Enter across a lost create reply: %v", err)
	}
	if names, ready := view(t, c, "/dbl"); len(names) != 1 || !ready {
		t.Fatalf("after Enter: members %v, ready %v", names, ready)
	}
	if err := b.Leave(ctx); err != nil {
		t.Fatal(err)
	}
	if names, ready := view(t, c, "/dbl"); len(names) != 0 || ready {
		t.Fatalf("after Leave: members %v, ready %v", names, ready)
	}
}

// A Leave whose context is already done withdraws the member at once: its
// node goes (the client deletes it in the background), and the other
// member's Leave does not wait for it.
func TestDoubleBarrierLeaveWithADoneContext(t *testing.T) {
	ns := recipestest.Namespace(t)
	ctx := ctxT(t)
	ms := members(t, ns, "/dbl", 2, 2)
	out := make(chan entered, 2)
	for range 10 {
		for _, m := range ms {
			enter(ctx, t, m, "/dbl", out)
		}
		for range 2 {
			if e := <-out; e.err != nil {
				t.Fatal(e.err)
			}
		}
		done, cancel := context.WithCancel(ctx)
		cancel()
		if err := ms[0].b.Leave(done); !errors.Is(err, context.Canceled) {
			t.Fatalf("Leave with a done context: %v", err)
		}
		recipestest.Eventually(t, "the withdrawn member's node to go (the client deletes it in the background)", func() (bool, string) {
			names, _ := view(t, ms[1].c, "/dbl")
			return len(names) == 1, fmt.Sprint(names)
		})
		if err := ms[1].b.Leave(ctx); err != nil {
			t.Fatal(err)
		}
	}
}

// Rounds of a group leave no watch behind on the server: a member that
// waits in Leave for a node gone already sets none (an exists would leave a
// watch for the node's creation, which never comes, until the session
// ends).
func TestDoubleBarrierLeavesNoWatch(t *testing.T) {
	ns := recipestest.Namespace(t)
	ctx := ctxT(t)
	ms := members(t, ns, "/dbl", 3, 3)
	for range 15 {
		var wg sync.WaitGroup
		errs := make([]error, len(ms))
		for i, m := range ms {
			wg.Add(1)
			go func() {
				defer wg.Done()
				if errs[i] = m.b.Enter(ctx); errs[i] == nil {
					errs[i] = m.b.Leave(ctx)
				}
			}()
		}
		wg.Wait()
		if err := errors.Join(errs...); err != nil {
			t.Fatal(err)
		}
	}
	if left := recipestest.WatchedPaths(t, server.Addr(), "/"+ns+"/"); len(left) != 0 {
		t.Fatalf("after 15 rounds, watches left on %v", left)
	}
}
