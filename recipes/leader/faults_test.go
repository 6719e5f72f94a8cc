package leader_test

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/gocurator/curator/framework"
	"github.com/gocurator/curator/listener"
	"github.com/gocurator/curator/recipes/leader"
	"github.com/gocurator/curator/recipestest"
	"github.com/gocurator/curator/zkharness"
)

// Issue 19's faults, on both kinds of participant. Each election logs every
// term its participants begin, as they are told of it (a latch's listener, a
// selector's function), and checks at that moment that every term begun
// before has ended (its Done closed, a selector function's context done)
// and that no other participant leads: so no term began while another still
// lasted, which is "leadership ends on the old leader no later than the
// server could let another participant lead", checked on events. After each
// fault the election must come to rest with one node per participant, owned
// by the participant's current session, and one leader, the owner of the
// first node; Close must leave no node, and no goroutine may be left.

const faultPath = "/election"

// faultKind is a kind of participant: a Latch or a Selector.
type faultKind struct {
	name string
	join func(t *testing.T, c *framework.Client, id string, log *faultLog) *faultMember
}

var faultKinds = []faultKind{{"latch", joinFaultLatch}, {"selector", joinFaultSelector}}

// faultMember is one participant of an election under test.
type faultMember struct {
	id      string
	client  *framework.Client
	leading func() bool // HasLeadership
	close   func() error
}

// joinFaultLatch starts a latch on c that logs each term it begins.
func joinFaultLatch(t *testing.T, c *framework.Client, id string, log *faultLog) *faultMember {
	t.Helper()
	l, err := leader.NewLatch(c, faultPath, leader.WithID(id))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := l.AddListener(func(ev leader.Event) {
		if ev.Leader {
			log.begin(id, ev.Leadership, ev.Leadership.Context())
		} else {
			log.end(id, ev.Leadership)
		}
	}); err != nil {
		t.Fatal(err)
	}
	if err := l.Start(context.Background()); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = l.Close() })
	return &faultMember{id: id, client: c, leading: l.HasLeadership, close: l.Close}
}

// joinFaultSelector starts a selector on c, queued again after each term
// (as a latch stays in the election), whose function logs the term and
// returns when its context ends (or the term does: the log then reports a
// context that outlived its term, where waiting on it alone would hang).
func joinFaultSelector(t *testing.T, c *framework.Client, id string, log *faultLog) *faultMember {
	t.Helper()
	s, err := leader.NewSelector(c, faultPath, func(ctx context.Context, l *leader.Leadership) error {
		log.begin(id, l, ctx)
		select {
		case <-ctx.Done():
		case <-l.Done():
		}
		return nil
	}, leader.WithID(id), leader.WithAutoRequeue())
	if err != nil {
		t.Fatal(err)
	}
	if err := s.Start(context.Background()); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = s.Close() })
	return &faultMember{id: id, client: c, leading: s.HasLeadership, close: s.Close}
}

// faultTerm is a term as its participant was told of it.
type faultTerm struct {
	id      string
	l       *leader.Leadership
	ctx     context.Context // a selector function's context; a latch's term's own
	checked bool            // the term was live when logged, and checked for overlaps
}

// faultLog records the terms of one election in the order their
// participants were told of them, and the overlaps it saw.
type faultLog struct {
	mu       sync.Mutex
	members  []*faultMember
	terms    []faultTerm
	changed  chan struct{} // closed and replaced when a term is logged
	exempt   map[*leader.Leadership]bool
	overlaps []string
}

func newFaultLog() *faultLog {
	return &faultLog{changed: make(chan struct{}), exempt: make(map[*leader.Leadership]bool)}
}

func (g *faultLog) add(m *faultMember) {
	g.mu.Lock()
	defer g.mu.Unlock()
	g.members = append(g.members, m)
}

// begin logs a term at the moment its participant is told of it, and
// records an overlap if an earlier term has not ended or another
// participant leads. A term that has already ended when its participant
// hears of it (a latch's listener runs after the latch moved on) overlaps
// nothing now and is only logged.
func (g *faultLog) begin(id string, l *leader.Leadership, ctx context.Context) {
	g.mu.Lock()
	defer g.mu.Unlock()
	checked := l.Err() == nil
	if checked {
		for _, o := range g.terms {
			if g.exempt[o.l] {
				continue
			}
			if !isClosed(o.l.Done()) || o.ctx.Err() == nil {
				g.overlaps = append(g.overlaps, fmt.Sprintf("%s's term at %s began while %s's term at %s lasted (done %v, context %v)",
					id, l.Node(), o.id, o.l.Node(), isClosed(o.l.Done()), o.ctx.Err()))
			}
		}
		for _, m := range g.members {
			if m.id != id && m.leading() && !g.latestExemptLocked(m.id) {
				g.overlaps = append(g.overlaps, fmt.Sprintf("%s's term at %s began while %s led", id, l.Node(), m.id))
			}
		}
	}
	g.terms = append(g.terms, faultTerm{id: id, l: l, ctx: ctx, checked: checked})
	close(g.changed)
	g.changed = make(chan struct{})
}

// end checks a latch's "not leader" event: it comes once its term has
// ended.
func (g *faultLog) end(id string, l *leader.Leadership) {
	g.mu.Lock()
	defer g.mu.Unlock()
	if !isClosed(l.Done()) {
		g.overlaps = append(g.overlaps, fmt.Sprintf("%s was told its term at %s ended while it lasted", id, l.Node()))
	}
}

// latestExemptLocked reports whether id's latest logged term is exempt.
func (g *faultLog) latestExemptLocked(id string) bool {
	for i := len(g.terms) - 1; i >= 0; i-- {
		if g.terms[i].id == id {
			return g.exempt[g.terms[i].l]
		}
	}
	return false
}

// exemptTerm exempts a term from the overlap check: one whose session an
// administrator ends (the server deletes its node before its participant
// can hear of it; only its Fence protects a write then), or one the Session
// error policy keeps through a disconnect.
func (g *faultLog) exemptTerm(l *leader.Leadership) {
	g.mu.Lock()
	defer g.mu.Unlock()
	g.exempt[l] = true
}

// await waits until cond holds of the terms logged so far.
func (g *faultLog) await(t *testing.T, what string, cond func([]faultTerm) bool) []faultTerm {
	t.Helper()
	ctx := ctxT(t)
	for {
		g.mu.Lock()
		terms, changed := slices.Clone(g.terms), g.changed
		g.mu.Unlock()
		if cond(terms) {
			return terms
		}
		select {
		case <-changed:
		case <-ctx.Done():
			t.Fatalf("waiting for %s: %v; terms so far: %s", what, ctx.Err(), describeTerms(terms))
		}
	}
}

// term waits for id's n-th term (0 for its first) and returns it.
func (g *faultLog) term(t *testing.T, id string, n int) faultTerm {
	t.Helper()
	var got faultTerm
	g.await(t, fmt.Sprintf("term %d of %s", n, id), func(terms []faultTerm) bool {
		for _, tm := range terms {
			if tm.id != id {
				continue
			}
			if n == 0 {
				got = tm
				return true
			}
			n--
		}
		return false
	})
	return got
}

// checkedTerm is term for a term that must have been checked for overlaps
// as it began: one that was still live when its participant heard of it.
func (g *faultLog) checkedTerm(t *testing.T, id string, n int) faultTerm {
	t.Helper()
	tm := g.term(t, id, n)
	if !tm.checked {
		t.Fatalf("%s's term at %s had ended when its participant heard of it (%v): the overlap check proves nothing", id, tm.l.Node(), tm.l.Err())
	}
	return tm
}

// count returns the number of terms logged.
func (g *faultLog) count() int {
	g.mu.Lock()
	defer g.mu.Unlock()
	return len(g.terms)
}

// verify fails t for every overlap seen (startFaultElection has it run as
// the test ends).
func (g *faultLog) verify(t *testing.T) {
	t.Helper()
	g.mu.Lock()
	defer g.mu.Unlock()
	for _, o := range g.overlaps {
		t.Error(o)
	}
}

func describeTerms(terms []faultTerm) string {
	var s []string
	for _, tm := range terms {
		s = append(s, fmt.Sprintf("%s@%s(err %v)", tm.id, tm.l.Node(), tm.l.Err()))
	}
	return "[" + strings.Join(s, " ") + "]"
}

func isClosed(ch <-chan struct{}) bool {
	select {
	case <-ch:
		return true
	default:
		return false
	}
}

// faultElection is one election under test: its participants, p0, p1...,
// one per client, and an observer's client in the same namespace.
type faultElection struct {
	log      *faultLog
	members  []*faultMember
	observer *framework.Client
}

// startFaultElection joins one participant of kind per client, in order:
// p0 leads before p1 joins, and each joins once the one before has its
// node. The election's path is made first, so that a participant's first
// create is the create of its node.
func startFaultElection(t *testing.T, kind faultKind, observer *framework.Client, cs ...*framework.Client) *faultElection {
	t.Helper()
	if _, err := observer.Create(ctxT(t), faultPath, nil); err != nil {
		t.Fatal(err)
	}
	e := &faultElection{log: newFaultLog(), observer: observer}
	t.Cleanup(func() { e.log.verify(t) })
	for i, c := range cs {
		m := kind.join(t, c, fmt.Sprintf("p%d", i), e.log)
		e.log.add(m)
		e.members = append(e.members, m)
		if i == 0 {
			e.log.term(t, "p0", 0)
		}
		e.waitNodes(t, i+1)
	}
	return e
}

// waitNodes polls until the election has n nodes: a waiter's node shows up
// on the server with no event of ours to wait on.
func (e *faultElection) waitNodes(t *testing.T, n int) {
	t.Helper()
	recipestest.Eventually(t, fmt.Sprintf("%d nodes", n), func() (bool, string) {
		kids, _, err := e.observer.Children(ctxT(t), faultPath)
		return err == nil && len(kids) == n, fmt.Sprint(kids, err)
	})
}

// settle waits until the election is at rest after a fault: one node per
// participant, carrying its id and owned by its current session, no other
// node, and the owner of the first node leading while no other participant
// does. It polls: the re-joins after a fault announce nothing.
func (e *faultElection) settle(t *testing.T) {
	t.Helper()
	recipestest.Eventually(t, "one node per participant and one leader", func() (bool, string) {
		return e.atRest(ctxT(t))
	})
}

func (e *faultElection) atRest(ctx context.Context) (bool, string) {
	kids, _, err := e.observer.Children(ctx, faultPath)
	if err != nil {
		return false, err.Error()
	}
	// Every node name ends in its ten-digit sequence number.
	slices.SortFunc(kids, func(a, b string) int { return cmp.Compare(a[len(a)-10:], b[len(b)-10:]) })
	nodes := make(map[*faultMember]int)
	var owners []string
	for i, kid := range kids {
		data, st, err := e.observer.Get(ctx, faultPath+"/"+kid)
		if err != nil {
			return false, fmt.Sprintf("%s: %v", kid, err)
		}
		var owner *faultMember
		for _, m := range e.members {
			if m.client.SessionID() == st.EphemeralOwner {
				owner = m
			}
		}
		if owner == nil {
			return false, fmt.Sprintf("node %s of session %#x, no participant's current session", kid, st.EphemeralOwner)
		}
		if string(data) != owner.id {
			return false, fmt.Sprintf("node %s of %s carries %q", kid, owner.id, data)
		}
		nodes[owner]++
		owners = append(owners, owner.id)
		if leads := owner.leading(); leads != (i == 0) {
			return false, fmt.Sprintf("nodes of %v: %s leads: %v", owners, owner.id, leads)
		}
	}
	for _, m := range e.members {
		if !m.client.State().IsConnected() {
			return false, fmt.Sprintf("%s is %v", m.id, m.client.State())
		}
		if nodes[m] != 1 {
			return false, fmt.Sprintf("nodes of %v: %s has %d", owners, m.id, nodes[m])
		}
	}
	return true, ""
}

// closeAll closes every participant and checks that no node is left. It
// polls: a Close that cut short a create under way leaves its node to the
// client's background delete. The clients stay open meanwhile, so a node
// goes only if its client deletes it, not with its session.
func (e *faultElection) closeAll(t *testing.T) {
	t.Helper()
	for _, m := range e.members {
		if err := m.close(); err != nil {
			t.Fatalf("closing %s: %v", m.id, err)
		}
	}
	recipestest.Eventually(t, "no node left after Close", func() (bool, string) {
		kids, _, err := e.observer.Children(ctxT(t), faultPath)
		return errors.Is(err, framework.ErrNoNode) || err == nil && len(kids) == 0, fmt.Sprint(kids, err)
	})
}

// mustEnd waits for a term to end and checks that it ended with a loss
// wrapping want (any loss if want is nil).
func mustEnd(t *testing.T, tm faultTerm, want error) {
	t.Helper()
	select {
	case <-tm.l.Done():
	case <-ctxT(t).Done():
		t.Fatalf("%s's term at %s did not end", tm.id, tm.l.Node())
	}
	if err := tm.l.Err(); !errors.Is(err, leader.ErrLost) || want != nil && !errors.Is(err, want) {
		t.Fatalf("%s's term ended with %v; want ErrLost and %v", tm.id, err, want)
	}
	if tm.ctx.Err() == nil {
		t.Fatalf("%s's term ended, and its context did not", tm.id)
	}
}

// awaitState waits until c's connection is in state s.
func awaitState(t *testing.T, c *framework.Client, s listener.ConnectionState) {
	t.Helper()
	ctx := ctxT(t)
	for {
		now, changed := c.StateChanged()
		if now == s {
			return
		}
		select {
		case <-changed:
		case <-ctx.Done():
			t.Fatalf("waiting for %v: still %v", s, now)
		}
	}
}

// errorStates counts the error states of c's policy that its listeners
// hear from now on.
func errorStates(t *testing.T, c *framework.Client) *atomic.Int64 {
	t.Helper()
	var n atomic.Int64
	remove, err := c.AddConnectionStateListener(func(s listener.ConnectionState) {
		if c.ErrorPolicy().IsErrorState(s) {
			n.Add(1)
		}
	})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(remove)
	return &n
}

// awaitErrorStates waits until count has reached n and c is connected again.
func awaitErrorStates(t *testing.T, c *framework.Client, count *atomic.Int64, n int64) {
	t.Helper()
	recipestest.Eventually(t, fmt.Sprintf("%d error states, then connected", n), func() (bool, string) {
		return count.Load() >= n && c.State().IsConnected(), fmt.Sprintf("%d error states, %v", count.Load(), c.State())
	})
}

// The leader's session is ended on the server (an administrator's kill, as
// Curator's KillSession), and so is a waiting participant's: the leader's
// term ends, a write under its fence no longer commits, the next
// participant leads, and both join again with a node of their new session.
// The server deletes the leader's node before the leader can hear of it, so
// that term alone is exempt from the overlap check: its fence is what
// protects a write then. (A session that expires because the server no
// longer hears from its client is the partition test's.)
func TestFaultSessionExpiredOnTheServer(t *testing.T) {
	recipestest.LeakCheck(t)
	for _, kind := range faultKinds {
		t.Run(kind.name, func(t *testing.T) {
			t.Parallel()
			ns := recipestest.Namespace(t)
			killer, waiterKiller := zkharness.NewSessionKiller(), zkharness.NewSessionKiller()
			observer := recipestest.NewClient(t, server.Addr(), framework.WithNamespace(ns))
			c0 := recipestest.NewClient(t, server.Addr(), framework.WithNamespace(ns), framework.WithDialer(killer.Dialer(nil)))
			c2 := recipestest.NewClient(t, server.Addr(), framework.WithNamespace(ns), framework.WithDialer(waiterKiller.Dialer(nil)))
			e := startFaultElection(t, kind, observer, c0, recipestest.NewClient(t, server.Addr(), framework.WithNamespace(ns)), c2)
			ctx := ctxT(t)
			if _, err := observer.Create(ctx, "/resource", nil); err != nil {
				t.Fatal(err)
			}
			first := e.log.term(t, "p0", 0)
			if _, err := c0.Txn(ctx, first.l.Fence(), framework.SetDataOp("/resource", []byte("p0"), -1)); err != nil {
				t.Fatalf("a fenced write while leading: %v", err)
			}
			session, waiterSession := c0.SessionID(), c2.SessionID()
			e.log.exemptTerm(first.l)
			if err := killer.Kill(ctx); err != nil {
				t.Fatal(err)
			}
			if err := waiterKiller.Kill(ctx); err != nil { // p2, waiting behind p1, must queue again
				t.Fatal(err)
			}
			// The server closes the connection and deletes the node: which
			// the client hears of first is a race.
			mustEnd(t, first, nil)
			e.log.checkedTerm(t, "p1", 0)
			if _, err := c0.Txn(ctx, first.l.Fence(), framework.SetDataOp("/resource", []byte("late"), -1)); !errors.Is(err, framework.ErrNoNode) {
				t.Fatalf("a write under the ended term's fence: %v; want ErrNoNode", err)
			}
			e.settle(t)
			if c0.SessionID() == session || c2.SessionID() == waiterSession {
				t.Fatal("a session survived its kill: the test proves nothing")
			}
			e.closeAll(t)
		})
	}
}

// The leader is cut off (its connection silent both ways, as on a network
// that drops packets): it suspends and ends its term before the server
// expires its session, which is the first moment another participant can
// lead; the overlap check at p1's first term says so. Once the network is
// back, the old leader finds its session expired and joins again.
func TestFaultPartitionedLeaderStepsDownBeforeItsSessionExpires(t *testing.T) {
	recipestest.LeakCheck(t)
	for _, kind := range faultKinds {
		t.Run(kind.name, func(t *testing.T) {
			t.Parallel()
			ns := recipestest.Namespace(t)
			proxy := recipestest.StartProxy(t, server.Addr())
			observer := recipestest.NewClient(t, server.Addr(), framework.WithNamespace(ns))
			c0 := recipestest.NewClient(t, proxy.Addr(), framework.WithNamespace(ns))
			e := startFaultElection(t, kind, observer, c0,
				recipestest.NewClient(t, server.Addr(), framework.WithNamespace(ns)),
				recipestest.NewClient(t, server.Addr(), framework.WithNamespace(ns)))
			first := e.log.term(t, "p0", 0)
			session := c0.SessionID()
			proxy.Blackhole(true)
			// p0 can delete nothing now: p1 leads once the server expired
			// p0's session. Its term had ended by then (the log checks it
			// as p1 begins).
			e.log.checkedTerm(t, "p1", 0)
			mustEnd(t, first, framework.ErrConnectionLoss)
			proxy.Blackhole(false)
			e.settle(t)
			if c0.SessionID() == session {
				t.Fatal("p0's session did not expire: the test proves nothing")
			}
			e.closeAll(t)
		})
	}
}

// The server restarts (killed and started on its data), on one server for
// both kinds:
//
//   - within the sessions' timeout: every connection suspends, which ends
//     the leader's term under the Standard policy; its session and node
//     survive, so the old leader must delete that node before joining
//     again, and p1 leads only then;
//   - after the clients have declared their sessions Lost (Curator's rule:
//     Suspended for the session timeout): the server brings the sessions
//     back with fresh timeouts, and the clients end them, as Curator does,
//     so every participant joins again on a new session, and no stale node
//     of an old session leads (Curator 5.4's CURATOR-696).
func TestFaultServerRestart(t *testing.T) {
	recipestest.LeakCheck(t)
	srv := recipestest.StartServer(t, zkharness.WithSessionTimeouts(400*time.Millisecond, 20*time.Second))
	for _, phase := range []struct {
		name    string
		timeout time.Duration // the clients' session timeout
		lost    bool          // the restart waits until every client has declared its session Lost
	}{
		{"within the session timeout", 20 * time.Second, false}, // the server's maximum: a restart on a loaded machine stays within it,
		{"beyond the session timeout", time.Second, true},
	} {
		t.Run(phase.name, func(t *testing.T) {
			es := make([]*faultElection, len(faultKinds))
			sessions := make([][]int64, len(faultKinds))
			for k, kind := range faultKinds {
				ns := recipestest.Namespace(t) + "-" + kind.name
				var cs []*framework.Client
				for range 3 {
					c := recipestest.NewClient(t, srv.Addr(), framework.WithNamespace(ns), framework.WithSessionTimeout(phase.timeout))
					cs = append(cs, c)
					sessions[k] = append(sessions[k], c.SessionID())
				}
				es[k] = startFaultElection(t, kind, recipestest.NewClient(t, srv.Addr(), framework.WithNamespace(ns)), cs...)
			}
			if err := srv.Stop(); err != nil {
				t.Fatal(err)
			}
			if phase.lost {
				for _, e := range es {
					for _, m := range e.members {
						awaitState(t, m.client, listener.Lost)
					}
				}
			}
			if err := srv.Restart(); err != nil {
				t.Fatal(err)
			}
			for k, kind := range faultKinds {
				t.Run(kind.name, func(t *testing.T) {
					e := es[k]
					first := e.log.term(t, "p0", 0)
					if !phase.lost {
						e.log.checkedTerm(t, "p1", 0)
					} else { // the participants join again in any order
						e.log.await(t, "a second term", func(terms []faultTerm) bool { return len(terms) > 1 && terms[len(terms)-1].checked })
					}
					mustEnd(t, first, framework.ErrConnectionLoss)
					e.settle(t)
					for i, m := range e.members {
						if survived := m.client.SessionID() == sessions[k][i]; survived == phase.lost {
							t.Fatalf("%s's session survived the restart: %v; want %v", m.id, survived, !phase.lost)
						}
					}
					e.closeAll(t)
				})
			}
		})
	}
}

// The leader of a 3-member ensemble is killed: every connection suspends
// while the others elect a new leader, the election's leader's term ends,
// and once the quorum serves again (the sessions survive) it deletes its
// node and joins again; p1 leads only after that. One ensemble for both
// kinds.
func TestFaultEnsembleLeaderKilled(t *testing.T) {
	recipestest.LeakCheck(t)
	ens, err := zkharness.StartEnsemble(3, zkharness.WithSessionTimeouts(400*time.Millisecond, 20*time.Second))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ens.Close() })
	es := make([]*faultElection, len(faultKinds))
	sessions := make([][]int64, len(faultKinds))
	for k, kind := range faultKinds {
		ns := recipestest.Namespace(t) + "-" + kind.name
		var cs []*framework.Client
		for range 3 {
			c := recipestest.NewClient(t, ens.ConnectString(), framework.WithNamespace(ns), framework.WithSessionTimeout(10*time.Second))
			cs = append(cs, c)
			sessions[k] = append(sessions[k], c.SessionID())
		}
		es[k] = startFaultElection(t, kind, recipestest.NewClient(t, ens.ConnectString(), framework.WithNamespace(ns)), cs...)
	}
	zkLeader, err := ens.Leader(ctxT(t))
	if err != nil {
		t.Fatal(err)
	}
	if err := ens.Kill(zkLeader); err != nil {
		t.Fatal(err)
	}
	for k, kind := range faultKinds {
		t.Run(kind.name, func(t *testing.T) {
			e := es[k]
			first := e.log.term(t, "p0", 0)
			e.log.checkedTerm(t, "p1", 0)
			mustEnd(t, first, framework.ErrConnectionLoss)
			e.settle(t)
			for i, m := range e.members {
				if m.client.SessionID() != sessions[k][i] {
					t.Fatalf("%s's session did not survive the failover: the test proves less than it says", m.id)
				}
			}
			e.closeAll(t)
		})
	}
}

// A create's reply is lost (the node is made, the connection drops before
// the client hears): on the leader's first join, and on its join after a
// flap ended its term. Each time the protected create finds its node, so
// the participant has one node; the first term is not lost to the flap
// during the join, and p1 leads only after p0's first term ended.
func TestFaultDroppedCreateReply(t *testing.T) {
	recipestest.LeakCheck(t)
	for _, kind := range faultKinds {
		t.Run(kind.name, func(t *testing.T) {
			t.Parallel()
			ns := recipestest.Namespace(t)
			proxy := recipestest.StartProxy(t, server.Addr())
			observer := recipestest.NewClient(t, server.Addr(), framework.WithNamespace(ns))
			c0 := recipestest.NewClient(t, proxy.Addr(), framework.WithNamespace(ns))
			errs := errorStates(t, c0)
			proxy.DropAfter(zkharness.OpCreate)
			e := startFaultElection(t, kind, observer, c0)
			first := e.log.term(t, "p0", 0)
			awaitErrorStates(t, c0, errs, 1) // the lost reply's drop
			e.settle(t)
			if err := first.l.Err(); err != nil || e.log.count() != 1 {
				t.Fatalf("p0's first term after a lost create reply: %v, %d terms", err, e.log.count())
			}
			e.members = append(e.members, kind.join(t, recipestest.NewClient(t, server.Addr(), framework.WithNamespace(ns)), "p1", e.log))
			e.log.add(e.members[1])
			e.waitNodes(t, 2)

			proxy.DropAfter(zkharness.OpCreate)
			proxy.DropAll() // ends p0's term; its next join's create reply is lost
			mustEnd(t, first, framework.ErrConnectionLoss)
			e.log.checkedTerm(t, "p1", 0)
			awaitErrorStates(t, c0, errs, 3) // DropAll's, then the lost reply's
			e.settle(t)
			e.closeAll(t)
		})
	}
}

// Under the Session error policy a connection that drops and comes back on
// the same session does not end the term: the term, its node, its fence
// and its context carry on. A term ends when the session is Lost: here the
// leader is cut off, its session is ended on the server meanwhile (so p1
// leads while p0, suspended, still holds its term: that is the policy's
// bet), and p0 ends its term when it reconnects and finds the session
// expired.
func TestFaultSessionErrorPolicy(t *testing.T) {
	recipestest.LeakCheck(t)
	for _, kind := range faultKinds {
		t.Run(kind.name, func(t *testing.T) {
			t.Parallel()
			ns := recipestest.Namespace(t)
			proxy := recipestest.StartProxy(t, server.Addr())
			killer := zkharness.NewSessionKiller()
			policy := framework.WithErrorPolicy(listener.SessionErrorPolicy{})
			observer := recipestest.NewClient(t, server.Addr(), framework.WithNamespace(ns))
			c0 := recipestest.NewClient(t, proxy.Addr(), framework.WithNamespace(ns), policy, framework.WithDialer(killer.Dialer(nil)))
			e := startFaultElection(t, kind, observer, c0, recipestest.NewClient(t, server.Addr(), framework.WithNamespace(ns), policy))
			ctx := ctxT(t)
			if _, err := observer.Create(ctx, "/resource", nil); err != nil {
				t.Fatal(err)
			}
			first := e.log.term(t, "p0", 0)
			session := c0.SessionID()

			_, changed := c0.StateChanged()
			proxy.DropAll()
			<-changed // Suspended
			awaitState(t, c0, listener.Reconnected)
			if _, err := first.l.Token(ctx); err != nil { // a round trip on the session after the flap
				t.Fatalf("the term's node after a flap: %v", err)
			}
			if err := first.l.Err(); err != nil || isClosed(first.l.Done()) || first.ctx.Err() != nil || !e.members[0].leading() {
				t.Fatalf("a flap ended the term under the Session policy: %v (done %v, context %v)", err, isClosed(first.l.Done()), first.ctx.Err())
			}
			if c0.SessionID() != session || e.log.count() != 1 {
				t.Fatalf("after the flap: session %#x (was %#x), %d terms: the test proves nothing", c0.SessionID(), session, e.log.count())
			}
			if _, err := c0.Txn(ctx, first.l.Fence(), framework.SetDataOp("/resource", []byte("p0"), -1)); err != nil {
				t.Fatalf("a fenced write after the flap: %v", err)
			}

			e.log.exemptTerm(first.l)
			proxy.Blackhole(true) // p0's reconnection waits unserved
			_, changed = c0.StateChanged()
			proxy.DropAll()
			<-changed // Suspended
			if err := killer.KillAt(ctx, server.Addr()); err != nil {
				t.Fatal(err)
			}
			e.log.checkedTerm(t, "p1", 0)
			if err := first.l.Err(); err != nil {
				t.Fatalf("p0's term ended while it was suspended: %v", err)
			}
			proxy.Blackhole(false)
			mustEnd(t, first, framework.ErrSessionExpired)
			e.settle(t)
			if c0.SessionID() == session {
				t.Fatal("p0's session survived the kill: the test proves nothing")
			}
			e.closeAll(t)
		})
	}
}

// The leader is closed while its connection is down: Close ends the term
// if the connection's loss has not (under the Session policy it lasts
// through a disconnect), returns without waiting for the connection, and
// once it is back the client deletes the node (its session lives on: the
// node goes by the client's delete, not with the session); then p1 leads.
func TestFaultCloseWhileDisconnected(t *testing.T) {
	recipestest.LeakCheck(t)
	for _, kind := range faultKinds {
		for _, pc := range []struct {
			name   string
			policy listener.ErrorPolicy
			ended  error // the term's Err once Close has returned
		}{
			{"standard", listener.StandardErrorPolicy{}, framework.ErrConnectionLoss},
			{"session", listener.SessionErrorPolicy{}, leader.ErrClosed},
		} {
			t.Run(kind.name+"/"+pc.name, func(t *testing.T) {
				t.Parallel()
				ns := recipestest.Namespace(t)
				proxy := recipestest.StartProxy(t, server.Addr())
				observer := recipestest.NewClient(t, server.Addr(), framework.WithNamespace(ns))
				c0 := recipestest.NewClient(t, proxy.Addr(), framework.WithNamespace(ns), framework.WithErrorPolicy(pc.policy))
				e := startFaultElection(t, kind, observer, c0, recipestest.NewClient(t, server.Addr(), framework.WithNamespace(ns)))
				first := e.log.term(t, "p0", 0)
				session := c0.SessionID()
				proxy.Blackhole(true) // p0's reconnection waits unserved
				_, changed := c0.StateChanged()
				proxy.DropAll()
				<-changed // Suspended
				// Under the Standard policy the term ended at Suspended: a
				// Close that comes after must not change why it ended. (Err
				// is not asked before Close here: asking it records the loss
				// at once, and the race this looks for would be gone.)
				if _, lasts := pc.policy.(listener.SessionErrorPolicy); lasts {
					if err := first.l.Err(); err != nil {
						t.Fatalf("the term's Err once Suspended, under the Session policy: %v", err)
					}
				}
				closed := make(chan error, 1)
				go func() { closed <- e.members[0].close() }()
				select {
				case err := <-closed:
					if err != nil {
						t.Fatal(err)
					}
				case <-ctxT(t).Done():
					t.Fatal("Close waited for a connection that stays down")
				}
				if s := c0.State(); s != listener.Suspended {
					t.Fatalf("state %v when Close returned: the test proves nothing", s)
				}
				if err := first.l.Err(); !isClosed(first.l.Done()) || first.ctx.Err() == nil || !errors.Is(err, pc.ended) {
					t.Fatalf("the term after Close: %v (done %v, context %v); want %v", err, isClosed(first.l.Done()), first.ctx.Err(), pc.ended)
				}
				proxy.Blackhole(false)
				e.log.checkedTerm(t, "p1", 0)
				e.members = e.members[1:]
				e.settle(t)
				if c0.SessionID() != session {
					t.Fatal("p0's session expired: its node went with it, and the test proves nothing")
				}
				e.closeAll(t)
			})
		}
	}
}
