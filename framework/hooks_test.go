package framework_test

import (
	"errors"
	"fmt"
	"slices"
	"sync"
	"testing"

	"github.com/gocurator/curator/framework"
	"github.com/gocurator/curator/listener"
	"github.com/gocurator/curator/observe"
	"github.com/gocurator/curator/recipestest"
	"github.com/gocurator/curator/zkharness"
)

// hookLog records what the client's hooks hear.
type hookLog struct {
	mu         sync.Mutex
	requests   []observe.Request
	operations []observe.Operation
	retries    []observe.Retry
	states     []observe.State
}

func (l *hookLog) OnRequest(e observe.Request) {
	l.mu.Lock()
	l.requests = append(l.requests, e)
	l.mu.Unlock()
}
func (l *hookLog) OnOperation(e observe.Operation) {
	l.mu.Lock()
	l.operations = append(l.operations, e)
	l.mu.Unlock()
}
func (l *hookLog) OnRetry(e observe.Retry) {
	l.mu.Lock()
	l.retries = append(l.retries, e)
	l.mu.Unlock()
}
func (l *hookLog) OnState(e observe.State) {
	l.mu.Lock()
	l.states = append(l.states, e)
	l.mu.Unlock()
}

// await waits until cond holds of the log (hooks are called on a goroutine
// of their own, after the fact).
func (l *hookLog) await(t *testing.T, what string, cond func(l *hookLog) bool) {
	t.Helper()
	recipestest.Eventually(t, what, func() (bool, string) {
		l.mu.Lock()
		defer l.mu.Unlock()
		return cond(l), fmt.Sprintf("%d requests, %d operations, %d retries, states %v", len(l.requests), len(l.operations), len(l.retries), l.stateList())
	})
}

func (l *hookLog) stateList() []listener.ConnectionState {
	var s []listener.ConnectionState
	for _, e := range l.states {
		s = append(s, e.State)
	}
	return s
}

// Every request is heard with its operation, path, outcome and sizes as
// ZooKeeper's wire format counts them; every operation with its attempts.
func TestHooksHearRequestsAndOperations(t *testing.T) {
	var log hookLog
	ns := recipestest.Namespace(t)
	c := newClient(t, framework.WithNamespace(ns), framework.WithHooks(&log))
	ctx := ctxT(t)
	if _, err := c.Create(ctx, "/n", []byte("hello")); err != nil {
		t.Fatal(err)
	}
	if _, _, err := c.Get(ctx, "/n"); err != nil {
		t.Fatal(err)
	}
	if _, _, err := c.Get(ctx, "/missing"); !errors.Is(err, framework.ErrNoNode) {
		t.Fatal(err)
	}
	server := "/" + ns + "/n"
	wantGet := observe.Request{Op: "getData", Path: "/n",
		BytesOut: 4 + 8 + 4 + len(server) + 1,    // frame length, xid and opcode, the path, the watch flag
		BytesIn:  4 + 16 + 4 + len("hello") + 68} // frame length, reply header, the data, the stat
	log.await(t, "the reads' requests and operations", func(l *hookLog) bool {
		return len(l.operations) >= 3 && slices.ContainsFunc(l.requests, func(r observe.Request) bool { return r.Path == "/missing" })
	})
	log.mu.Lock()
	defer log.mu.Unlock()
	var gets []observe.Request
	for _, r := range log.requests {
		if r.Op == "getData" {
			gets = append(gets, r)
		}
	}
	if len(gets) != 2 {
		t.Fatalf("getData requests %+v, want 2", gets)
	}
	if g := gets[0]; g.Path != wantGet.Path || g.BytesOut != wantGet.BytesOut || g.BytesIn != wantGet.BytesIn || g.Err != nil || g.Latency <= 0 {
		t.Errorf("getData /n heard as %+v, want %+v", g, wantGet)
	}
	if g := gets[1]; !errors.Is(g.Err, framework.ErrNoNode) || g.BytesIn != 4+16 {
		t.Errorf("getData /missing heard as %+v, want ErrNoNode and a bare reply header", g)
	}
	ops := log.operations[len(log.operations)-3:]
	for i, want := range []struct {
		op, path string
		err      error
	}{{"create", "/n", nil}, {"get", "/n", nil}, {"get", "/missing", framework.ErrNoNode}} {
		if o := ops[i]; o.Op != want.op || o.Path != want.path || o.Attempts != 1 || !errors.Is(o.Err, want.err) && !(want.err == nil && o.Err == nil) {
			t.Errorf("operation %d: %+v, want %s %s after one attempt (%v)", i, o, want.op, want.path, want.err)
		}
	}
}

// A call whose reply is lost is retried: the hooks hear the failed
// attempt's retry decision, and the operation's two attempts.
func TestHooksHearARetriedCall(t *testing.T) {
	var log hookLog
	proxy := recipestest.StartProxy(t, server.Addr())
	c := newClientAt(t, proxy.Addr(), framework.WithNamespace(recipestest.Namespace(t)), framework.WithHooks(&log))
	ctx := ctxT(t)
	if _, err := c.Create(ctx, "/n", nil); err != nil {
		t.Fatal(err)
	}
	proxy.DropAfter(zkharness.OpGetData)
	if _, _, err := c.Get(ctx, "/n"); err != nil {
		t.Fatal(err)
	}
	log.await(t, "the get's operation", func(l *hookLog) bool {
		return slices.ContainsFunc(l.operations, func(o observe.Operation) bool { return o.Op == "get" })
	})
	log.mu.Lock()
	defer log.mu.Unlock()
	if len(log.retries) != 1 {
		t.Fatalf("retries heard %+v, want one", log.retries)
	}
	if r := log.retries[0]; r.Op != "get" || r.Path != "/n" || r.Attempt != 1 || r.GaveUp || !errors.Is(r.Err, framework.ErrConnectionLoss) {
		t.Errorf("retry heard as %+v, want get /n's first attempt, a connection loss, retried", r)
	}
	i := slices.IndexFunc(log.operations, func(o observe.Operation) bool { return o.Op == "get" })
	if o := log.operations[i]; o.Attempts != 2 || o.Err != nil {
		t.Errorf("the get heard as %+v, want 2 attempts and success", o)
	}
}

// A session the server ends is heard as Lost, caused by its expiry, then
// Reconnected on a new session, each with how long the state before it
// lasted.
func TestHooksHearASessionExpiry(t *testing.T) {
	var log hookLog
	c := newClient(t, framework.WithNamespace(recipestest.Namespace(t)), framework.WithHooks(&log))
	ctx := ctxT(t)
	old := c.SessionID()
	if err := c.InjectSessionExpiration(ctx); err != nil {
		t.Fatal(err)
	}
	log.await(t, "Reconnected after the expiry", func(l *hookLog) bool {
		return slices.ContainsFunc(l.states, func(s observe.State) bool { return s.State == listener.Reconnected })
	})
	log.mu.Lock()
	defer log.mu.Unlock()
	if got := log.stateList(); !slices.Equal(got, []listener.ConnectionState{C, S, L, R}) {
		t.Fatalf("states heard %v, want CONNECTED SUSPENDED LOST RECONNECTED", got)
	}
	lost, back := log.states[2], log.states[3]
	if lost.Cause != "expired" || lost.Previous != S || lost.SessionID != old {
		t.Errorf("Lost heard as %+v, want it caused by the expiry of session %#x, after Suspended", lost, old)
	}
	if back.SessionID == old || back.SessionID != c.SessionID() || back.InPrevious <= 0 {
		t.Errorf("Reconnected heard as %+v, want the new session %#x and the time spent Lost", back, c.SessionID())
	}
}

// A hook that panics, and one that blocks, neither break nor stall the
// client: its operations go on, the hooks after them still hear, Close
// returns, and the events the blocked hook held up are counted as dropped.
func TestHooksThatPanicOrBlock(t *testing.T) {
	logger, panicked := recipestest.LogSignal("panicked")
	release := make(chan struct{})
	t.Cleanup(func() { close(release) }) // before the leak check: the blocked hook returns
	blocked := make(chan struct{})
	var log hookLog
	c, err := framework.New(server.ConnectString(), append(recipestest.ClientOptions(),
		framework.WithNamespace(recipestest.Namespace(t)), framework.WithLogger(logger),
		framework.WithHooks(panicker{}, &log, blocker{release: release, blocked: blocked}))...)
	if err != nil {
		t.Fatal(err)
	}
	ctx := ctxT(t)
	if err := c.Start(ctx); err != nil {
		t.Fatal(err)
	}
	if err := c.BlockUntilConnected(ctx); err != nil {
		t.Fatal(err)
	}
	for i := range 20 {
		if _, err := c.Create(ctx, fmt.Sprintf("/n%d", i), nil); err != nil {
			t.Fatalf("an operation with a panicking and a blocking hook: %v", err)
		}
	}
	<-panicked // logged once
	<-blocked  // the blocker holds the delivery goroutine now
	c.Close()
	if n := c.Hooks().Dropped(); n == 0 {
		t.Fatal("no event counted dropped behind the blocked hook")
	}
	log.mu.Lock()
	defer log.mu.Unlock()
	if len(log.requests) == 0 {
		t.Fatal("the hook after the panicking one heard nothing")
	}
}

// panicker panics at every request.
type panicker struct{}

func (panicker) OnRequest(observe.Request) { panic("a hook's bug") }

// blocker blocks at its first operation until released.
type blocker struct {
	release <-chan struct{}
	blocked chan struct{}
}

func (b blocker) OnOperation(observe.Operation) {
	select {
	case <-b.blocked:
	default:
		close(b.blocked)
		<-b.release
	}
}

// A value that is not a hook is refused up front.
func TestWithHooksRefusesWhatIsNoHook(t *testing.T) {
	if _, err := framework.New(server.ConnectString(), framework.WithHooks(struct{}{})); !errors.Is(err, framework.ErrInvalidArg) || !errors.Is(err, observe.ErrNotAHook) {
		t.Fatalf("New with a non-hook: %v, want ErrInvalidArg and observe.ErrNotAHook", err)
	}
}
