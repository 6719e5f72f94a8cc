package leader_test

import (
	"context"
	"errors"
	"fmt"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/gocurator/curator/framework"
	"github.com/gocurator/curator/recipestest"
)

// curatorJar is Debian's libcurator-recipes-java (Curator 5.4.0); its
// manifest names the rest of Curator and ZooKeeper's client.
const curatorJar = "/usr/share/java/curator-recipes.jar"

// curatorNodes are the names Curator gives a LeaderLatch's and a
// LeaderSelector's nodes: protected (Java's random UUID), then the lock name
// and a ten-digit sequence number.
var curatorNodes = map[string]*regexp.Regexp{
	"latch":    regexp.MustCompile(`^_c_[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}-latch-\d{10}$`),
	"selector": regexp.MustCompile(`^_c_[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}-lock-\d{10}$`),
}

// departure is how a leader leaves the election in the interop test: close
// (the recipe's Close), kill (SIGKILL of the JVM; its node goes when the
// server expires its session), expire (the Go client's session expired: it
// joins again at the back) or crash (the Go client closed under its recipe).
type departure struct {
	id, how string
}

// One election of three Go and three Curator 5.4 participants (Debian's
// jars), for the Latch against LeaderLatch and the Selector against
// LeaderSelector. They join alternately (a Java peer first for the latch, a
// Go one for the selector); then the leaders leave in turn, by Close, by a
// killed JVM, by an expired Go session (that participant joins again at the
// back) and by a Go client closed under its recipe. Throughout, every leader
// does a marker check (an ephemeral node of its own in a shared directory,
// then a listing) so that two leaders at once are seen. After each change
// every remaining participant, Go's and Java's, must report the same
// participants in the same order (Participants and getParticipants), the
// same leader (Leader and getLeader), and only the leader must say it leads
// and be seen acting; the election's nodes must be Curator's: named as
// Curator names them, holding the participant's id, in the order of their
// sequence numbers, owned by the participant's current session. At the end
// the election's parent, made by the first to join, must be a container.
func TestInteropWithCurator(t *testing.T) {
	classes := t.TempDir()
	if out, err := exec.Command("javac", "-nowarn", "-cp", curatorJar, "-d", classes, filepath.Join("testdata", "LeaderPeer.java")).CombinedOutput(); err != nil {
		t.Fatalf("javac: %v\n%s\n(Curator comes from: apt-get install -y libcurator-recipes-java)", err, out)
	}
	for _, tc := range []interopCase{
		{"latch", true, []departure{
			{"java-0", "close"},
			{"go-0", "expire"},
			{"java-1", "kill"},
			{"go-1", "close"},
			{"java-2", "kill"},
			{"go-2", "crash"},
			{"go-0", "close"}, // back at the head after its session expired
		}},
		{"selector", false, []departure{
			{"go-0", "expire"},
			{"java-0", "close"},
			{"go-1", "close"},
			{"java-1", "kill"},
			{"go-2", "crash"},
			{"java-2", "kill"},
			{"go-0", "close"},
		}},
	} {
		t.Run(tc.kind, func(t *testing.T) {
			t.Parallel() // mostly waiting: for JVMs, for killed peers' sessions to expire
			runInteropElection(t, classes, tc)
		})
	}
	t.Run("latch-stale-node", func(t *testing.T) {
		t.Parallel()
		runStaleLatch(t, classes)
	})
	t.Run("latch-revived-go-session", func(t *testing.T) {
		t.Parallel()
		runRevivedGoSession(t, classes)
	})
}

// interopCase is one election of the interop test: which recipe, which side
// joins first (and so makes the election's parent node, a container), and
// the order in which the leaders leave.
type interopCase struct {
	kind      string
	javaFirst bool
	plan      []departure
}

// interopElection is the test's model of the election: the live
// participants in queue order.
type interopElection struct {
	kind  string
	admin *framework.Client // reads the election from outside it
	queue []interopPeer
	marks map[string]int64 // each participant's marker checks at the last settle
}

func runInteropElection(t *testing.T, classes string, tc interopCase) {
	kind := tc.kind
	begin := time.Now()
	ctx := ctxT(t)
	rec := newLeaderLog()
	ns := recipestest.Namespace(t)
	e := &interopElection{kind: kind, marks: map[string]int64{}}
	e.admin = recipestest.NewClient(t, server.ConnectString(), framework.WithNamespace(ns))
	if _, err := e.admin.Create(ctx, interopMarkerDir, nil); err != nil {
		t.Fatal(err)
	}

	// The JVMs start together while the Go clients connect.
	javas := make([]*javaMember, 3)
	for i := range javas {
		javas[i] = startJavaMember(t, classes, server.ConnectString(), ns, kind, fmt.Sprintf("java-%d", i), rec)
	}
	gos := make([]*goMember, 3)
	for i := range gos {
		c := recipestest.NewClient(t, server.ConnectString(), framework.WithNamespace(ns))
		gos[i] = newGoMember(t, c, kind, fmt.Sprintf("go-%d", i), rec)
	}
	var wg sync.WaitGroup
	errs := make([]error, len(javas))
	for i, j := range javas {
		wg.Add(1)
		go func() { defer wg.Done(); errs[i] = j.awaitReady(ctx) }()
	}
	wg.Wait()
	for _, err := range errs {
		if err != nil {
			t.Fatal(err)
		}
	}
	t.Logf("%s: JVMs ready after %v", kind, time.Since(begin).Round(time.Millisecond))

	// They join one at a time, alternately.
	for i := range 3 {
		pair := []interopPeer{javas[i], gos[i]}
		if !tc.javaFirst {
			pair[0], pair[1] = pair[1], pair[0]
		}
		for _, m := range pair {
			switch m := m.(type) {
			case *javaMember:
				if _, err := m.call(ctx, "JOIN"); err != nil {
					t.Fatal(err)
				}
			case *goMember:
				m.join(t)
			}
			e.queue = append(e.queue, m)
			recipestest.Eventually(t, m.ID()+"'s node", func() (bool, string) {
				nodes, err := e.nodes(ctx)
				return err == nil && len(nodes) == len(e.queue) && nodes[len(nodes)-1].data == m.ID(), fmt.Sprint(nodes, err)
			})
		}
	}
	e.settle(t, "all six joined")

	for _, d := range tc.plan {
		if len(e.queue) == 0 || e.queue[0].ID() != d.id {
			t.Fatalf("the plan has %s lead, the queue is %v", d.id, e.ids())
		}
		step := time.Now()
		switch m := e.queue[0].(type) {
		case *javaMember:
			// Its claim, which the verdict checks, comes from Curator's
			// listener, after hasLeadership already said so (a kill must
			// not come between).
			if _, err := m.awaitEvent(ctx, "its claim of leadership", func(l string) bool { return strings.HasPrefix(l, "LEADING ") }); err != nil {
				t.Fatal(err)
			}
			switch d.how {
			case "close":
				if err := m.closeRecipe(ctx); err != nil {
					t.Fatal(err)
				}
			case "kill":
				m.kill()
			}
			e.queue = e.queue[1:]
		case *goMember:
			switch d.how {
			case "close":
				m.closeRecipe(t)
				e.queue = e.queue[1:]
			case "expire":
				if err := m.c.InjectSessionExpiration(ctx); err != nil {
					t.Fatal(err)
				}
				e.queue = append(e.queue[1:], m)
			case "crash":
				if err := m.c.Close(); err != nil {
					t.Fatal(err)
				}
				e.queue = e.queue[1:]
			}
		}
		e.settle(t, fmt.Sprintf("the election after %s's %s", d.id, d.how))
		t.Logf("%s: %s's %s settled in %v", kind, d.id, d.how, time.Since(step).Round(time.Millisecond))
	}

	// The election's parent was a container, made by the first to join: the
	// server reaps it now that it is empty.
	recipestest.Eventually(t, "the empty election's container to be reaped", func() (bool, string) {
		ok, _, err := e.admin.Exists(ctx, interopElectionPath)
		return err == nil && !ok, fmt.Sprint(ok, err)
	})

	// Each Java peer led, and said so: its claims were checked for a stale
	// node.
	for _, j := range javas {
		if len(rec.claims()[j.id]) == 0 {
			t.Errorf("%s led without saying so", j.id)
		}
	}
	failures, javaCaused, stale, bad := rec.verdict(func(id string) bool { return strings.HasPrefix(id, "java-") })
	for _, s := range bad {
		t.Errorf("unreadable report: %s", s)
	}
	for _, s := range firstFew(stale) {
		t.Logf("a Curator 5.4 latch claimed leadership with a stale node (CURATOR-696): %s", s)
	}
	for _, s := range firstFew(javaCaused) {
		t.Logf("double leader caused by the Java side (CURATOR-696, or a marker check that outlived its term), counted apart: %s", s)
	}
	for _, s := range firstFew(failures) {
		t.Errorf("double leader %s", s)
	}
	var checks int64
	for _, n := range e.marks {
		checks += n
	}
	t.Logf("%s: at least %d marker checks by the leaders; %d double leaders failing the test, %d of Curator's CURATOR-696 counted apart, %d stale Java claims; %v in all",
		kind, checks, len(failures), len(javaCaused), len(stale), time.Since(begin).Round(time.Millisecond))
}

// firstFew keeps a failure's log short: one double leader is usually seen
// by both leaders, and again at each marker check while it lasts.
func firstFew(s []string) []string {
	if len(s) > 4 {
		return append(s[:4:4], fmt.Sprintf("... and %d more", len(s)-4))
	}
	return s
}

func (e *interopElection) ids() []string {
	var s []string
	for _, m := range e.queue {
		s = append(s, m.ID())
	}
	return s
}

// electionNode is one of the election's nodes, read from outside.
type electionNode struct {
	name, data string
	owner      int64
}

func (n electionNode) String() string { return fmt.Sprintf("%s=%s@%#x", n.name, n.data, n.owner) }

// nodes reads the election's nodes in Curator's order.
func (e *interopElection) nodes(ctx context.Context) ([]electionNode, error) {
	names, _, err := e.admin.Children(ctx, interopElectionPath)
	if errors.Is(err, framework.ErrNoNode) {
		return nil, nil // the container, reaped once empty
	}
	if err != nil {
		return nil, err
	}
	var out []electionNode
	for _, n := range sortCuratorNodes(names) {
		data, st, err := e.admin.Get(ctx, framework.JoinPath(interopElectionPath, n))
		if err != nil {
			return nil, err // one left between the listing and the read: look again
		}
		out = append(out, electionNode{name: n, data: string(data), owner: st.EphemeralOwner})
	}
	return out, nil
}

// settle waits until every live participant reports the model's election:
// the same participants in the same order, the same leader, only the leader
// leading, and the leader seen acting (its marker checks have grown); and the
// election's nodes are Curator's and match. It is polled: the participants
// learn of a change each on its own watch.
func (e *interopElection) settle(t *testing.T, what string) {
	t.Helper()
	var want []string
	for i, m := range e.queue {
		id := m.ID()
		if i == 0 {
			id += "*"
		}
		want = append(want, id)
	}
	wantList := strings.Join(want, " ")
	leaderID := ""
	if len(e.queue) > 0 {
		leaderID = e.queue[0].ID()
	}
	var views map[string]peerView
	recipestest.Eventually(t, what+" to be "+fmt.Sprintf("%q", wantList)+" everywhere", func() (bool, string) {
		// Each look has a bound of its own, so that the last one, which
		// the failure message shows, saw the election, not an ended ctx.
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		nodes, err := e.nodes(ctx)
		if err != nil {
			return false, "reading the election: " + err.Error()
		}
		views = map[string]peerView{}
		var problems []string
		for _, m := range e.queue {
			v, err := m.View(ctx)
			if err != nil {
				problems = append(problems, err.Error())
				continue
			}
			views[m.ID()] = v
			if v.participants != wantList || v.leader != leaderID || v.leading != (m.ID() == leaderID) {
				problems = append(problems, fmt.Sprintf("%s sees %q, leader %q, leading %v", m.ID(), v.participants, v.leader, v.leading))
			}
			if m.ID() == leaderID && v.marks <= e.marks[leaderID] {
				problems = append(problems, fmt.Sprintf("leader %s has not acted yet (%d marker checks)", leaderID, v.marks))
			}
		}
		if len(problems) > 0 {
			return false, strings.Join(problems, "; ")
		}
		if len(nodes) != len(e.queue) {
			return false, fmt.Sprintf("nodes %v for participants %v", nodes, e.ids())
		}
		var paths []string
		for i, n := range nodes {
			m := e.queue[i]
			if !curatorNodes[e.kind].MatchString(n.name) || n.data != m.ID() || n.owner != views[m.ID()].session {
				return false, fmt.Sprintf("node %v for %s of session %#x: want Curator's name, its id, its session", n, m.ID(), views[m.ID()].session)
			}
			paths = append(paths, framework.JoinPath(interopElectionPath, n.name))
		}
		for _, m := range e.queue {
			if g, ok := m.(*goMember); ok && !slices.Equal(views[g.id].nodes, paths) {
				return false, fmt.Sprintf("%s's participants are the nodes %v, the election's %v", g.id, views[g.id].nodes, paths)
			}
		}
		return true, ""
	})
	for id, v := range views {
		e.marks[id] = v.marks
	}
}
