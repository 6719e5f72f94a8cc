package group_test

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"testing"

	"github.com/gocurator/curator/framework"
	"github.com/gocurator/curator/listener"
	"github.com/gocurator/curator/recipes/group"
	"github.com/gocurator/curator/recipestest"
	"github.com/gocurator/curator/zkharness"
)

// Members see each other join, change their data and leave, in their
// views and as events.
func TestMembership(t *testing.T) {
	recipestest.LeakCheck(t)
	cs := clients(t, server.ConnectString(), recipestest.Namespace(t), 3)
	ctx := ctxT(t)
	a := member(t, cs[0], "a", "A")
	la := listen(t, a)
	start(t, a)
	select {
	case <-a.Initialized():
	case <-ctx.Done():
		t.Fatal("never initialized")
	}
	sees(t, a, "a=A")
	b := start(t, member(t, cs[1], "b", "B"))
	c := start(t, member(t, cs[2], "c", "C"))
	sees(t, a, "a=A b=B c=C")
	sees(t, b, "a=A b=B c=C")
	if err := b.SetData(ctx, []byte("B2")); err != nil {
		t.Fatal(err)
	}
	sees(t, a, "a=A b=B2 c=C")
	if err := c.Close(); err != nil {
		t.Fatal(err)
	}
	sees(t, a, "a=A b=B2")
	sees(t, b, "a=A b=B2")
	recipestest.Eventually(t, "a's events", func() (bool, string) {
		got := la.all()
		return inOrder(got, []string{"Joined b=B", "Changed b=B2", "Left c=C"}) &&
			inOrder(got, []string{"Joined c=C", "Left c=C"}) && inOrder(got, []string{"Joined a=A"}) &&
			slices.Contains(got, "Initialized"), fmt.Sprint(got)
	})
	kids, _, err := cs[0].Children(ctx, "/group")
	if err != nil || len(kids) != 2 {
		t.Fatalf("group nodes %v, %v", kids, err)
	}
}

// A member whose session expires is back in the group, once, on its new
// session; the others see it leave and join again.
func TestMemberBackAfterSessionExpiry(t *testing.T) {
	recipestest.LeakCheck(t)
	cs := clients(t, server.ConnectString(), recipestest.Namespace(t), 2)
	ctx := ctxT(t)
	a := member(t, cs[0], "a", "A")
	la := listen(t, a)
	start(t, a)
	b := start(t, member(t, cs[1], "b", "B"))
	sees(t, a, "a=A b=B")
	if err := cs[1].InjectSessionExpiration(ctx); err != nil {
		t.Fatal(err)
	}
	recipestest.Eventually(t, "b to leave and join again", func() (bool, string) {
		got := la.all()
		return inOrder(got, []string{"Joined b=B", "Left b=B", "Joined b=B"}), fmt.Sprint(got)
	})
	sees(t, a, "a=A b=B")
	sees(t, b, "a=A b=B")
	ok, st, err := cs[0].Exists(ctx, "/group/b")
	if !ok || err != nil || st.EphemeralOwner != cs[1].SessionID() {
		t.Fatalf("b's node: %v %+v %v; want owned by %#x", ok, st, err, cs[1].SessionID())
	}
	if kids, _, _ := cs[0].Children(ctx, "/group"); len(kids) != 2 {
		t.Fatalf("group nodes %v", kids)
	}
}

// Across a server restart long enough for the clients to give their
// sessions up, the group comes back whole, each member once.
func TestServerRestart(t *testing.T) {
	recipestest.LeakCheck(t)
	srv := recipestest.StartServer(t)
	cs := clients(t, srv.ConnectString(), recipestest.Namespace(t), 2)
	ctx := ctxT(t)
	a := start(t, member(t, cs[0], "a", "A"))
	b := start(t, member(t, cs[1], "b", "B"))
	sees(t, a, "a=A b=B")
	lost := make(chan struct{}, 1)
	remove, _ := cs[1].AddConnectionStateListener(func(s listener.ConnectionState) {
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
	sees(t, a, "a=A b=B")
	sees(t, b, "a=A b=B")
	recipestest.Eventually(t, "each member's node once, on its client's session", func() (bool, string) {
		kids, _, err := cs[0].Children(ctx, "/group")
		if err != nil || len(kids) != 2 {
			return false, fmt.Sprint(kids, err)
		}
		for i, id := range []string{"a", "b"} {
			ok, st, err := cs[0].Exists(ctx, "/group/"+id)
			if !ok || err != nil || st.EphemeralOwner != cs[i].SessionID() {
				return false, fmt.Sprint(id, ok, st, err)
			}
		}
		return true, ""
	})
}

// Bad paths, ids and listeners, and calls out of order, return clear
// errors and send no request.
func TestBadInputSendsNothing(t *testing.T) {
	recipestest.LeakCheck(t)
	counter := zkharness.NewCounter()
	c := recipestest.NewClient(t, server.ConnectString(), framework.WithNamespace(recipestest.Namespace(t)), framework.WithDialer(counter.Dialer(nil)))
	ctx := ctxT(t)
	before := counter.Requests()
	for _, tt := range []struct{ path, id string }{
		{"", "a"}, {"group", "a"}, {"/g//x", "a"}, {"/g/", "a"},
		{"/g", ""}, {"/g", "a/b"}, {"/g", "."}, {"/g", ".."}, {"/g", "a\x00"},
	} {
		if _, err := group.New(c, tt.path, tt.id, nil); !errors.Is(err, group.ErrInvalidArg) {
			t.Errorf("New(%q, %q) = %v, want ErrInvalidArg", tt.path, tt.id, err)
		}
	}
	if _, err := group.New(nil, "/g", "a", nil); !errors.Is(err, group.ErrInvalidArg) {
		t.Errorf("nil client: %v", err)
	}
	m, err := group.New(c, "/g", "a", nil)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := m.AddListener(nil); !errors.Is(err, group.ErrInvalidArg) {
		t.Errorf("AddListener(nil) = %v", err)
	}
	if err := m.SetData(ctx, []byte("x")); !errors.Is(err, group.ErrNotStarted) {
		t.Errorf("SetData before Start = %v", err)
	}
	if got := m.Members(); show(got) != "a=" {
		t.Errorf("Members before Start = %v", got)
	}
	if err := m.Close(); err != nil {
		t.Errorf("Close before Start = %v", err)
	}
	if err := m.Start(ctx); !errors.Is(err, group.ErrClosed) || !errors.Is(err, framework.ErrClosed) {
		t.Errorf("Start after Close = %v, want ErrClosed", err)
	}
	if got := counter.Requests() - before; got != 0 {
		t.Fatalf("bad input sent %d requests", got)
	}
	m2 := start(t, member(t, c, "b", "B"))
	if err := m2.Start(context.Background()); !errors.Is(err, group.ErrAlreadyStarted) {
		t.Errorf("second Start = %v", err)
	}
}
