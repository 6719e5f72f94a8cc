package framework

import (
	"context"
	"errors"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/gocurator/curator/internal/zkconn"
	"github.com/gocurator/curator/listener"
	"github.com/gocurator/curator/retry"
)

// These tests (TestLogic...) run the client's own logic (the retry loop,
// protected creates, the janitor, a transaction's undo, the Sessions)
// against a fake connection, with no ZooKeeper and no Java: each arranges
// the fault it is about exactly once. With the state machine's tests they
// run anywhere: go test -run 'TestLogic|TestStateMachine' ./framework. The
// real-server tests of the same behaviour stay.

func fakeCtx(t *testing.T) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	t.Cleanup(cancel)
	return ctx
}

// The retry loop: a connection loss is tried again as the policy allows
// and no more; a refusal of the server's is not tried again; an expired
// session is not tried again under SessionFailedRetryPolicy.
func TestLogicRetryLoopDecisions(t *testing.T) {
	ctx := fakeCtx(t)
	for _, tc := range []struct {
		name     string
		policy   retry.Policy
		losses   int // connection losses before the server answers
		missing  bool
		want     error
		requests int
	}{
		{"losses within the policy", retry.RetryNTimes(3, 0), 3, false, nil, 4},
		{"losses beyond the policy", retry.RetryNTimes(2, 0), 3, false, ErrConnectionLoss, 3},
		{"no policy retries nothing", retry.RetryNTimes(0, 0), 1, false, ErrConnectionLoss, 1},
		{"a refusal is final", retry.RetryNTimes(3, 0), 0, true, ErrNoNode, 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			fc := newFakeConn(t)
			c := fakeClient(t, fc, WithRetryPolicy(tc.policy))
			if !tc.missing {
				fc.nodes["/n"] = &fakeNode{data: []byte("x")}
			}
			fc.inject("get", "/n", refuse, tc.losses)
			data, _, err := c.Get(ctx, "/n")
			if !errors.Is(err, tc.want) || tc.want == nil && string(data) != "x" {
				t.Fatalf("Get: %q, %v; want %v", data, err, tc.want)
			}
			if n := fc.requests("get"); n != tc.requests {
				t.Fatalf("%d requests, want %d", n, tc.requests)
			}
		})
	}
}

// An expired session is retried, but not under SessionFailedRetryPolicy.
func TestLogicRetryLoopSessionFailedPolicy(t *testing.T) {
	ctx := fakeCtx(t)
	for _, tc := range []struct {
		policy   retry.Policy
		attempts int
	}{
		{retry.RetryNTimes(2, 0), 3},
		{retry.SessionFailedRetryPolicy(retry.RetryNTimes(2, 0)), 1},
	} {
		c := fakeClient(t, newFakeConn(t), WithRetryPolicy(tc.policy))
		attempts := 0
		err := c.retrying(ctx, "get", "/n", func(context.Context, conn) error { attempts++; return ErrSessionExpired })
		if !errors.Is(err, ErrSessionExpired) || attempts != tc.attempts {
			t.Fatalf("%T: %v after %d attempts, want ErrSessionExpired after %d", tc.policy, err, attempts, tc.attempts)
		}
	}
}

// A protected create whose reply was lost finds, on its retry, the node it
// made: one node, its path returned, no second create.
func TestLogicProtectedCreateRecoversFromLostReply(t *testing.T) {
	ctx := fakeCtx(t)
	fc := newFakeConn(t)
	c := fakeClient(t, fc)
	fc.nodes["/dir"] = &fakeNode{}
	fc.inject("create", "/dir/", loseReply, 1)
	p, err := c.Create(ctx, "/dir/n-", nil, WithMode(EphemeralSequential), WithProtection())
	if err != nil {
		t.Fatal(err)
	}
	if got := fc.paths("/dir"); len(got) != 1 || got[0] != p {
		t.Fatalf("nodes %v, Create returned %s: want exactly that one", got, p)
	}
	if n := fc.requests("create"); n != 1 {
		t.Fatalf("%d creates sent, want 1: the retry must find the node first", n)
	}
	// Without protection the retry makes a second node: the case protection
	// is for.
	fc.inject("create", "/dir/", loseReply, 1)
	if _, err := c.Create(ctx, "/dir/m-", nil, WithMode(EphemeralSequential)); err != nil {
		t.Fatal(err)
	}
	if got := fc.paths("/dir"); len(got) != 3 {
		t.Fatalf("unprotected create after a lost reply: nodes %v, want the second node Curator warns of", got)
	}
}

// A protected ephemeral node another session made under the same name is not
// ours: the retry neither returns it nor deletes it.
func TestLogicProtectedCreateLeavesAnotherSessionsNode(t *testing.T) {
	ctx := fakeCtx(t)
	fc := newFakeConn(t)
	c := fakeClient(t, fc)
	fc.nodes["/dir"] = &fakeNode{}
	fc.nodes["/dir/_c_11111111-2222-4333-8444-555555555555-n"] = &fakeNode{owner: 0x999}
	found, err := c.FindProtected(ctx, "/dir", "11111111-2222-4333-8444-555555555555", Ephemeral)
	if err != nil || found != "" {
		t.Fatalf("FindProtected: %q %v, want nothing: the node is another session's", found, err)
	}
}

// A protected create that fails for good after a lost reply leaves its node
// to the janitor, which deletes it once the connection lets it.
func TestLogicJanitorDeletesNodeOfFailedProtectedCreate(t *testing.T) {
	ctx := fakeCtx(t)
	fc := newFakeConn(t)
	c := fakeClient(t, fc, WithRetryPolicy(retry.RetryNTimes(1, 0)))
	fc.nodes["/dir"] = &fakeNode{}
	fc.inject("create", "/dir/", loseReply, 1)
	fc.inject("sync", "/dir", refuse, 1)    // the retry cannot look for it
	fc.inject("delete", "/dir/", refuse, 2) // nor, at first, can the janitor delete it
	if _, err := c.Create(ctx, "/dir/n", nil, WithProtection()); !errors.Is(err, ErrConnectionLoss) {
		t.Fatalf("Create: %v, want ErrConnectionLoss", err)
	}
	if got := fc.paths("/dir"); len(got) != 1 {
		t.Fatalf("after the failed create: %v, want its node", got)
	}
	waitFor(t, "the janitor to delete the node", func() bool { return len(fc.paths("/dir")) == 0 && c.JanitorPending() == 0 })
	if n := fc.requests("delete"); n < 3 {
		t.Fatalf("%d deletes: the janitor gave up after a refusal", n)
	}
}

// A guaranteed delete that cannot reach the server goes on in the
// background; the caller gets the error.
func TestLogicJanitorFinishesGuaranteedDelete(t *testing.T) {
	ctx := fakeCtx(t)
	fc := newFakeConn(t)
	c := fakeClient(t, fc, WithRetryPolicy(retry.RetryNTimes(0, 0)))
	fc.nodes["/n"] = &fakeNode{}
	fc.inject("delete", "/n", refuse, 2)
	if err := c.Delete(ctx, "/n", Guaranteed()); !errors.Is(err, ErrConnectionLoss) {
		t.Fatalf("Delete: %v", err)
	}
	waitFor(t, "the guaranteed delete", func() bool { return fc.node("/n") == nil })
}

// A create whose caller left before the answer is undone once the answer
// comes: nothing is left behind.
func TestLogicAbandonedCreateIsUndone(t *testing.T) {
	fc := newFakeConn(t)
	c := fakeClient(t, fc)
	fc.nodes["/dir"] = &fakeNode{}
	fc.inject("create", "/dir/", answerLate, 1)
	ctx, cancel := context.WithCancel(fakeCtx(t))
	go func() { <-fc.held; cancel() }()
	if _, err := c.Create(ctx, "/dir/n-", nil, WithMode(EphemeralSequential), WithProtection()); !errors.Is(err, context.Canceled) {
		t.Fatalf("Create: %v, want its context's end", err)
	}
	waitFor(t, "the undo", func() bool { return len(fc.paths("/dir")) == 0 })
}

// WithoutUndo keeps the node of a create whose caller left before the
// answer: no delete follows the late answer. With WithProtection it is
// refused, and nothing is sent.
func TestLogicAbandonedCreateWithoutUndoIsKept(t *testing.T) {
	fc := newFakeConn(t)
	c := fakeClient(t, fc)
	fc.inject("create", "/n", answerLate, 1)
	ctx, cancel := context.WithCancel(fakeCtx(t))
	go func() { <-fc.held; cancel() }()
	if _, err := c.Create(ctx, "/n", nil, WithoutUndo()); !errors.Is(err, context.Canceled) {
		t.Fatalf("Create: %v, want its context's end", err)
	}
	fc.wg.Wait() // the late answer has been applied, and given to the client
	if fc.node("/n") == nil {
		t.Fatalf("requests %v: the node is gone", fc.ops())
	}
	for _, op := range fc.ops() {
		if strings.HasPrefix(op, "delete ") {
			t.Fatalf("requests %v: the node was deleted", fc.ops())
		}
	}
	before := len(fc.ops())
	if _, err := c.Create(fakeCtx(t), "/m", nil, WithoutUndo(), WithProtection()); !errors.Is(err, ErrInvalidArg) {
		t.Fatalf("WithoutUndo with WithProtection: %v, want ErrInvalidArg", err)
	}
	if len(fc.ops()) != before {
		t.Fatalf("requests %v: a refused create sent a request", fc.ops())
	}
}

// A transaction whose caller left before the answer, and which committed
// after all, has its sequential and protected nodes deleted; its fence
// checks the undo of a persistent node.
func TestLogicAbandonedTxnIsUndone(t *testing.T) {
	fc := newFakeConn(t)
	c := fakeClient(t, fc)
	fc.nodes["/dir"] = &fakeNode{}
	fc.nodes["/fence"] = &fakeNode{}
	fc.inject("multi", "/fence", answerLate, 1)
	ctx, cancel := context.WithCancel(fakeCtx(t))
	go func() { <-fc.held; cancel() }()
	_, err := c.Txn(ctx, CheckOp("/fence", -1),
		CreateOp("/dir/p-", nil, PersistentSequential, WithProtection()),
		CreateOp("/dir/e-", nil, EphemeralSequential, WithProtection()))
	if !errors.Is(err, context.Canceled) || !errors.Is(err, ErrOutcomeUnknown) {
		t.Fatalf("Txn: %v, want its context's end and an unknown outcome", err)
	}
	waitFor(t, "the undo", func() bool { return len(fc.paths("/dir")) == 0 })
	for _, op := range fc.ops() {
		if strings.HasPrefix(op, "delete ") && strings.HasSuffix(op, "-p-0000000001") {
			t.Fatalf("requests %v: the persistent node was deleted without the fence", fc.ops())
		}
	}
	if n := fc.requests("multi"); n < 2 {
		t.Fatalf("requests %v: the persistent node's undo must go under the fence, in a transaction", fc.ops())
	}
}

// A transaction with a protected create whose reply was lost is not applied
// twice: the retry finds that it committed, and returns its results.
func TestLogicTxnLostReplySettledByProtectedNode(t *testing.T) {
	ctx := fakeCtx(t)
	fc := newFakeConn(t)
	c := fakeClient(t, fc)
	fc.nodes["/dir"] = &fakeNode{}
	fc.nodes["/counter"] = &fakeNode{}
	fc.inject("multi", "/counter", loseReply, 1)
	res, err := c.Txn(ctx, SetDataOp("/counter", []byte("1"), 0), CreateOp("/dir/n-", nil, PersistentSequential, WithProtection()))
	if err != nil {
		t.Fatal(err)
	}
	if got := fc.paths("/dir"); len(got) != 1 || res[1].Path != got[0] {
		t.Fatalf("nodes %v, results %+v: want the one node, found", got, res)
	}
	if n, v := fc.requests("multi"), fc.node("/counter").version; n != 1 || v != 1 {
		t.Fatalf("%d transactions sent, counter at version %d: want it applied once", n, v)
	}
	// Without a protected create nothing can settle it: the outcome is
	// unknown, not a refusal of the retry.
	fc.inject("multi", "/counter", loseReply, 1)
	_, err = c.Txn(ctx, SetDataOp("/counter", []byte("2"), 1))
	if !errors.Is(err, ErrOutcomeUnknown) {
		t.Fatalf("unprotected transaction after a lost reply: %v, want ErrOutcomeUnknown", err)
	}
	var te *TxnError
	if errors.As(err, &te) {
		t.Fatalf("the retry's refusal reported as the transaction's: %v", err)
	}
}

// Sessions end at the error states of the client's policy, Standard's
// (Suspended and Lost) or Session's (Lost only), and at Close.
func TestLogicSessionsFollowTheErrorPolicy(t *testing.T) {
	for _, tc := range []struct {
		policy listener.ErrorPolicy
		ends   []listener.ConnectionState // at an expiry: Suspended, then Lost
	}{
		{listener.StandardErrorPolicy{}, []listener.ConnectionState{listener.Suspended, listener.Lost}},
		{listener.SessionErrorPolicy{}, []listener.ConnectionState{listener.Lost}},
	} {
		fc := newFakeConn(t)
		c := fakeClient(t, fc, WithErrorPolicy(tc.policy))
		first := c.Session()
		if first.ID() != 0x100 || first.Err() != nil {
			t.Fatalf("first session: id %#x, %v", first.ID(), first.Err())
		}
		var ended []listener.ConnectionState
		s := first
		for _, ev := range []zkconn.SessionEvent{{State: zkconn.Disconnected}, {State: zkconn.Expired}} {
			fc.cfg.OnSession(ev)
			if err := s.Err(); err != nil {
				var se *SessionError
				if !errors.As(err, &se) {
					t.Fatalf("%T: session ended with %v", tc.policy, err)
				}
				ended = append(ended, se.State)
				s = c.Session()
			}
		}
		if !slices.Equal(ended, tc.ends) {
			t.Fatalf("%T: sessions ended at %v, want %v", tc.policy, ended, tc.ends)
		}
		fc.connect() // a new ZooKeeper session: Reconnected, not an error state
		if s.Err() != nil || s.ID() != 0x100 {
			t.Fatalf("%T: the session after the expiry: %v, id %#x", tc.policy, s.Err(), s.ID())
		}
		c.Close()
		if !errors.Is(s.Err(), ErrClosed) {
			t.Fatalf("%T: at Close: %v", tc.policy, s.Err())
		}
	}
}

// waitFor polls cond; the fake's background work (the janitor, late
// answers) has no event to wait on.
func waitFor(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("waited 20s for %s", what)
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// OrSetData sets the data of a node that exists, creates one that does not,
// and creates it again if it is deleted between the create and the set.
func TestLogicCreateOrSetData(t *testing.T) {
	ctx := fakeCtx(t)
	fc := newFakeConn(t)
	c := fakeClient(t, fc)
	if p, err := c.Create(ctx, "/cfg", []byte("v1"), OrSetData()); err != nil || p != "/cfg" {
		t.Fatalf("create-or-set of a new node: %q %v", p, err)
	}
	if p, err := c.Create(ctx, "/cfg", []byte("v2"), OrSetData()); err != nil || p != "/cfg" || string(fc.node("/cfg").data) != "v2" {
		t.Fatalf("create-or-set of an existing node: %q %v, data %q", p, err, fc.node("/cfg").data)
	}
	deletes := 0
	fc.before = func(op, path string) {
		if op == "set" && deletes == 0 { // someone deletes the node between the create and the set
			deletes++
			delete(fc.nodes, path)
		}
	}
	if _, err := c.Create(ctx, "/cfg", []byte("v3"), OrSetData()); err != nil || string(fc.node("/cfg").data) != "v3" {
		t.Fatalf("create-or-set racing a delete: %v, data %v", err, fc.node("/cfg"))
	}
	if got := fc.ops()[len(fc.ops())-3:]; !slices.Equal(got, []string{"create /cfg", "set /cfg", "create /cfg"}) {
		t.Fatalf("requests %v: want create, set (the node gone), create", got)
	}
	for _, bad := range [][]CreateOption{{OrSetData(), WithProtection()}, {OrSetData(), WithMode(PersistentSequential)}} {
		if _, err := c.Create(ctx, "/x", nil, bad...); !errors.Is(err, ErrInvalidArg) {
			t.Fatalf("OrSetData with a name that is new every time: %v, want ErrInvalidArg", err)
		}
	}
}

// A create with container parents whose parent the server deletes again
// between the parent's create and the node's (a lock's directory reaped
// while empty) makes the parent and the node again, instead of failing with
// ErrNoNode; a parent that goes every time is not chased for ever.
func TestLogicCreateMakesAReapedParentAgain(t *testing.T) {
	ctx := fakeCtx(t)
	fc := newFakeConn(t)
	c := fakeClient(t, fc)
	reaps := 2
	fc.before = func(op, path string) {
		if op == "create" && strings.HasPrefix(path, "/dir/n-") && reaps > 0 {
			reaps--
			delete(fc.nodes, "/dir")
		}
	}
	p, err := c.Create(ctx, "/dir/n-", nil, WithMode(EphemeralSequential), WithContainerParents())
	if err != nil {
		t.Fatalf("a create whose parent was reaped twice: %v", err)
	}
	if got := fc.paths("/dir"); len(got) != 1 || got[0] != p {
		t.Fatalf("nodes %v, Create returned %s", got, p)
	}
	if n := fc.requests("create"); n != 5 {
		t.Fatalf("%d creates, want 5: the node's three and the parent's two", n)
	}

	reaps = 100
	if _, err := c.Create(ctx, "/dir/n-", nil, WithMode(EphemeralSequential), WithContainerParents()); !errors.Is(err, ErrNoNode) {
		t.Fatalf("a create whose parent goes every time: %v, want ErrNoNode", err)
	}
	if n := fc.requests("create"); n-5 != 2*parentAttempts-1 {
		t.Fatalf("%d creates after a parent that always goes, want %d", n-5, 2*parentAttempts-1)
	}
}
