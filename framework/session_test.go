package framework_test

import (
	"context"
	"errors"
	"slices"
	"testing"

	"github.com/gocurator/curator/framework"
	"github.com/gocurator/curator/listener"
	"github.com/gocurator/curator/recipestest"
)

// Listeners run with no framework lock held: one that calls back into the
// client does not deadlock it, and one that blocks holds up neither the
// client's operations nor the end of its Sessions, nor reorders what the
// listeners after it see once it returns.
func TestListenersThatCallBackOrBlock(t *testing.T) {
	proxy := recipestest.StartProxy(t, server.Addr())
	c, err := framework.New(proxy.Addr(), append(recipestest.ClientOptions(), framework.WithNamespace(recipestest.Namespace(t)))...)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	ctx := ctxT(t)

	// The first listener asks the client for its state on every call, and
	// for a node once it is back.
	type seen struct {
		state, asked listener.ConnectionState
		session      int64
		err          error
	}
	calls := make(chan seen, 16)
	if _, err := c.AddConnectionStateListener(func(s listener.ConnectionState) {
		got := seen{state: s, asked: c.State(), session: c.Session().ID()}
		if s.IsConnected() {
			_, _, got.err = c.Exists(ctx, "/")
		}
		calls <- got
	}); err != nil {
		t.Fatal(err)
	}
	// The second blocks on the first Suspended until told to go on.
	blocked := make(chan struct{})
	unblock := make(chan struct{})
	if _, err := c.AddConnectionStateListener(func(s listener.ConnectionState) {
		if s == listener.Suspended {
			select {
			case <-blocked:
			default:
				close(blocked)
				<-unblock
			}
		}
	}); err != nil {
		t.Fatal(err)
	}
	after := watchStates(t, c) // the third only records
	if err := c.Start(context.Background()); err != nil {
		t.Fatal(err)
	}
	after.waitLast(t, C)
	if got := <-calls; got.state != C || got.err != nil {
		t.Fatalf("listener calling back at Connected: %+v", got)
	}

	first := c.Session()
	var second *framework.Session
	for i := range 2 { // two flaps; the second comes while the second listener still blocks
		_, changed := c.StateChanged()
		proxy.DropAll()
		<-changed
		if err := c.BlockUntilConnected(ctx); err != nil {
			t.Fatal(err)
		}
		if _, err := c.Create(ctx, "/n", nil); err != nil && !errors.Is(err, framework.ErrNodeExists) {
			t.Fatalf("an operation while a listener blocks: %v", err)
		}
		<-blocked
		if i == 0 {
			second = c.Session()
		}
	}
	for i, s := range []*framework.Session{first, second} {
		var se *framework.SessionError
		if err := s.Err(); !errors.As(err, &se) || se.State != S || !errors.Is(err, framework.ErrConnectionLoss) {
			t.Fatalf("session %d while a listener blocks: ended with %v, want a Suspended", i, err)
		}
	}
	if c.Session().Err() != nil || c.Session() == second {
		t.Fatalf("the current session %p (%v) after two flaps: want a third, running", c.Session(), c.Session().Err())
	}
	if got := after.snapshot(); len(got) != 1 {
		t.Fatalf("the listener after the blocked one saw %v while it blocked, want only CONNECTED", got)
	}
	close(unblock)
	after.expect(t, C, S, R, S, R)
	for _, want := range []listener.ConnectionState{S, R, S, R} {
		got := <-calls
		if got.state != want || (want == R && got.err != nil) {
			t.Fatalf("listener calling back: %+v, want %v with no error", got, want)
		}
	}
}

// A Session ends at the next error state, with an error that says which;
// its Context ends with it (at once for a Session already ended); a
// Session is ended by Close too. Its ID is the ZooKeeper session's.
func TestSessionEndsAtErrorStates(t *testing.T) {
	proxy := recipestest.StartProxy(t, server.Addr())
	c := newClientAt(t, proxy.Addr(), framework.WithNamespace(recipestest.Namespace(t)))
	ctx := ctxT(t)
	s := c.Session()
	if s.ID() != c.SessionID() || s.ID() == 0 {
		t.Fatalf("session id %#x, client's %#x", s.ID(), c.SessionID())
	}
	sound, cancel := s.Context(ctx)
	defer cancel()
	if sound.Err() != nil || s.Err() != nil {
		t.Fatal("session ended before any error state")
	}
	proxy.DropAll()
	<-s.Done()
	<-sound.Done()
	if cause := context.Cause(sound); !errors.Is(cause, framework.ErrConnectionLoss) || cause != s.Err() {
		t.Fatalf("cause %v, session's error %v, want the Suspended's ErrConnectionLoss", cause, s.Err())
	}
	late, cancelLate := s.Context(ctx)
	defer cancelLate()
	if late.Err() == nil {
		t.Fatal("the context of an ended session is not done at once")
	}
	if err := c.BlockUntilConnected(ctx); err != nil {
		t.Fatal(err)
	}
	next := c.Session()
	if next == s || next.Err() != nil || next.ID() != s.ID() {
		t.Fatalf("after the flap: session %p (%v, id %#x), want a new one on the same ZooKeeper session %#x", next, next.Err(), next.ID(), s.ID())
	}
	c.Close()
	<-next.Done()
	if err := next.Err(); !errors.Is(err, framework.ErrClosed) {
		t.Fatalf("session's error at Close %v, want ErrClosed", err)
	}
}

// InjectSessionExpiration ends a running client's session: its ephemeral
// node goes, the client reports Lost, then Reconnected on a new session.
func TestInjectSessionExpiration(t *testing.T) {
	c, log := startClient(t, server.ConnectString(), framework.WithNamespace(recipestest.Namespace(t)))
	ctx := ctxT(t)
	p, err := c.Create(ctx, "/eph", nil, framework.WithMode(framework.Ephemeral))
	if err != nil {
		t.Fatal(err)
	}
	session := c.SessionID()
	if err := c.InjectSessionExpiration(ctx); err != nil {
		t.Fatal(err)
	}
	log.waitLast(t, R)
	if got := log.snapshot(); !slices.Contains(got, L) {
		t.Fatalf("states %v, want Lost before Reconnected", got)
	}
	if c.SessionID() == session {
		t.Fatal("the session did not change")
	}
	if ok, _, err := c.Exists(ctx, p); ok || err != nil {
		t.Fatalf("the ephemeral node after the expiry: exists %v (%v)", ok, err)
	}
	unstarted, _ := framework.New(server.ConnectString())
	if err := unstarted.InjectSessionExpiration(ctx); !errors.Is(err, framework.ErrNotStarted) {
		t.Fatalf("an unstarted client: %v, want ErrNotStarted", err)
	}
}
