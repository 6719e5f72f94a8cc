package leader_test

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"os/exec"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/gocurator/curator/framework"
	"github.com/gocurator/curator/recipes/leader"
)

// The participants of the interop test, Go's and Java's, behind one
// interface: each reports its view of the election and, while it leads, does
// the marker check (interopMarkerDir) that catches two leaders at once.

const (
	interopElectionPath = "/election"
	interopMarkerDir    = "/occ"
	// interopMarkPace spaces a leader's marker checks, to spare the machine's CPU
	// (not a synchronisation).
	interopMarkPace = 5 * time.Millisecond
)

// peerView is one participant's view of the election.
type peerView struct {
	leading      bool   // the participant says it leads (hasLeadership)
	leader       string // the id its Leader/getLeader returns
	participants string // its Participants/getParticipants, "id* id id"
	marks        int64  // marker checks it has done as leader, so far
	session      int64  // its client's session now
	nodes        []string
}

// interopPeer is one participant of the interop test.
type interopPeer interface {
	ID() string
	View(ctx context.Context) (peerView, error)
}

// --- Go ---

// goMember is a Latch or a Selector on a client of its own.
type goMember struct {
	id    string
	c     *framework.Client
	latch *leader.Latch
	sel   *leader.Selector
	rec   *leaderLog
	marks atomic.Int64
	stop  func() // stops the latch's marking goroutine
}

func newGoMember(t *testing.T, c *framework.Client, kind, id string, rec *leaderLog) *goMember {
	t.Helper()
	g := &goMember{id: id, c: c, rec: rec, stop: func() {}}
	var err error
	switch kind {
	case "latch":
		g.latch, err = leader.NewLatch(c, interopElectionPath, leader.WithID(id))
	case "selector":
		g.sel, err = leader.NewSelector(c, interopElectionPath, func(ctx context.Context, l *leader.Leadership) error {
			g.lead(ctx, l)
			return nil
		}, leader.WithID(id), leader.WithAutoRequeue())
	}
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		g.stop()
		if g.latch != nil {
			_ = g.latch.Close()
		} else {
			_ = g.sel.Close()
		}
	})
	return g
}

func (g *goMember) ID() string { return g.id }

// join starts the recipe (and, for a latch, a goroutine that does the marker
// check in each of its terms).
func (g *goMember) join(t *testing.T) {
	t.Helper()
	if g.sel != nil {
		if err := g.sel.Start(context.Background()); err != nil {
			t.Fatal(err)
		}
		return
	}
	if err := g.latch.Start(context.Background()); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() {
		defer close(done)
		for ctx.Err() == nil { // Await returns a term under way even once ctx has ended
			l, err := g.latch.Await(ctx)
			if err != nil {
				return
			}
			g.lead(ctx, l)
		}
	}()
	g.stop = func() { cancel(); <-done }
}

// lead does the marker check until the term or ctx ends.
func (g *goMember) lead(ctx context.Context, l *leader.Leadership) {
	for {
		select {
		case <-ctx.Done():
			return
		case <-l.Done():
			return
		case <-time.After(interopMarkPace):
		}
		g.markOnce(l)
	}
}

// markOnce creates the marker under the term's fence, so that it is made only
// while the term's node exists, lists the markers, and deletes its own. It
// ends the check it has begun whatever happens to the term (a marker left
// behind would be a false alarm for the next leader); a marker of a session
// that ends goes with it.
func (g *goMember) markOnce(l *leader.Leadership) {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	res, err := g.c.Txn(ctx, l.Fence(), framework.CreateOp(interopMarkerDir+"/m-"+g.id+"-", []byte(g.id), framework.EphemeralSequential))
	if err != nil {
		return // the fence failed (the term is over) or the client did
	}
	inside, _, err := g.c.Children(ctx, interopMarkerDir)
	if err == nil && len(inside) > 1 {
		g.rec.goSaw(ctx, g.c, g.id, inside)
	}
	_ = g.c.Delete(ctx, res[1].Path) // an error: it went with its session
	g.marks.Add(1)
}

func (g *goMember) View(ctx context.Context) (peerView, error) {
	var (
		ps      []leader.Participant
		p       leader.Participant
		leading bool
		err     error
	)
	if g.latch != nil {
		if ps, err = g.latch.Participants(ctx); err == nil {
			p, err = g.latch.Leader(ctx)
		}
		leading = g.latch.HasLeadership()
	} else {
		if ps, err = g.sel.Participants(ctx); err == nil {
			p, err = g.sel.Leader(ctx)
		}
		leading = g.sel.HasLeadership()
	}
	if errors.Is(err, leader.ErrNoLeader) {
		err = nil
	}
	if err != nil {
		return peerView{}, err
	}
	v := peerView{leading: leading, leader: p.ID, participants: ids(ps), marks: g.marks.Load(), session: g.c.SessionID()}
	for _, p := range ps {
		v.nodes = append(v.nodes, p.Node)
	}
	return v, nil
}

// closeRecipe leaves the election as a leader should: it stops acting, then
// closes the recipe (a Selector's Close waits for its function).
func (g *goMember) closeRecipe(t *testing.T) {
	t.Helper()
	g.stop()
	var err error
	if g.latch != nil {
		err = g.latch.Close()
	} else {
		err = g.sel.Close()
	}
	if err != nil {
		t.Fatal(err)
	}
}

// --- Java ---

// javaMember is a LeaderPeer process: Curator 5.4's LeaderLatch or
// LeaderSelector.
type javaMember struct {
	id       string
	cmd      *exec.Cmd
	stdin    io.WriteCloser
	ready    chan string // READY's session
	replies  chan string // answers to commands
	exited   chan struct{}
	quit     chan struct{} // closed by kill: read stops handing lines over
	quitOnce sync.Once
	rec      *leaderLog

	mu     sync.Mutex
	log    strings.Builder // what it printed but its views, stderr too
	events []string        // its lines other than answers
	grew   chan struct{}   // closed and replaced when events grows
}

// javaSession is the Java peers' session timeout: a killed peer's node lasts
// about this long. Short to keep the test quick, long enough that a loaded
// machine does not expire a live peer.
const javaSession = 2 * time.Second

// startJavaMember starts a LeaderPeer with a session of javaSession.
func startJavaMember(t *testing.T, classes, connect, ns, kind, id string, rec *leaderLog) *javaMember {
	t.Helper()
	return startJavaMemberSession(t, classes, connect, ns, kind, id, javaSession, rec)
}

func startJavaMemberSession(t *testing.T, classes, connect, ns, kind, id string, session time.Duration, rec *leaderLog) *javaMember {
	t.Helper()
	cmd := exec.Command("java", "-Xshare:auto", "-XX:TieredStopAtLevel=1", "-cp", classes+":"+curatorJar, "LeaderPeer",
		connect, ns, kind, interopElectionPath, interopMarkerDir, id, strconv.Itoa(int(session.Milliseconds())))
	j := &javaMember{id: id, cmd: cmd, ready: make(chan string, 1), replies: make(chan string, 16), exited: make(chan struct{}), quit: make(chan struct{}), rec: rec, grew: make(chan struct{})}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if j.stdin, err = cmd.StdinPipe(); err != nil {
		t.Fatal(err)
	}
	cmd.Stderr = javaLogWriter{j}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	go j.read(stdout)
	t.Cleanup(func() {
		j.stdin.Close() // the peer exits at the end of its stdin
		j.kill()
		if t.Failed() {
			t.Logf("Java peer %s printed:\n%s", j.id, j.output())
		}
	})
	return j
}

type javaLogWriter struct{ j *javaMember }

func (w javaLogWriter) Write(b []byte) (int, error) {
	w.j.mu.Lock()
	defer w.j.mu.Unlock()
	return w.j.log.Write(b)
}

// reply hands a reply line over to a call waiting for it, or drops it once
// kill has begun: a test that failed stops asking, and the reader must
// still reach the end of the peer's output.
func (j *javaMember) reply(line string) {
	select {
	case j.replies <- line:
	case <-j.quit:
	}
}

func (j *javaMember) read(stdout io.Reader) {
	defer close(j.exited)
	sc := bufio.NewScanner(stdout)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for sc.Scan() {
		line := sc.Text()
		word, rest, _ := strings.Cut(line, " ")
		if strings.HasPrefix(line, "VIEW\t") { // many: not logged
			j.reply(line)
			continue
		}
		j.mu.Lock()
		j.log.WriteString(line + "\n")
		j.mu.Unlock()
		if line == "JOINED" || line == "CLOSED" || (word == "ERR" && !strings.HasPrefix(rest, "marker ")) {
			j.reply(line)
			continue
		}
		j.mu.Lock()
		j.events = append(j.events, line)
		close(j.grew)
		j.grew = make(chan struct{})
		j.mu.Unlock()
		switch word {
		case "READY":
			j.ready <- rest
		case "VIOLATION":
			j.rec.javaSaw(line)
		case "LEADING":
			j.rec.javaLeading(j.id, rest)
		case "SPANNED":
			j.rec.javaSpanned(rest)
		}
	}
	_ = j.cmd.Wait()
}

// awaitEvent waits for a line of the peer's, other than an answer, that
// matches, and returns it.
func (j *javaMember) awaitEvent(ctx context.Context, what string, match func(line string) bool) (string, error) {
	for seen := 0; ; {
		j.mu.Lock()
		events, grew := j.events, j.grew
		j.mu.Unlock()
		for ; seen < len(events); seen++ {
			if match(events[seen]) {
				return events[seen], nil
			}
		}
		select {
		case <-grew:
		case <-j.exited:
			return "", fmt.Errorf("Java peer %s exited before %s", j.id, what)
		case <-ctx.Done():
			return "", fmt.Errorf("Java peer %s: no %s: %w", j.id, what, ctx.Err())
		}
	}
}

func (j *javaMember) output() string {
	j.mu.Lock()
	defer j.mu.Unlock()
	return j.log.String()
}

func (j *javaMember) ID() string { return j.id }

// awaitReady waits for the peer's client to connect.
func (j *javaMember) awaitReady(ctx context.Context) error {
	select {
	case <-j.ready:
		return nil
	case <-j.exited:
		return fmt.Errorf("Java peer %s exited before it was ready:\n%s", j.id, j.output())
	case <-ctx.Done():
		return fmt.Errorf("Java peer %s not ready: %w", j.id, ctx.Err())
	}
}

// call sends one command and returns its answer.
func (j *javaMember) call(ctx context.Context, command string) (string, error) {
	if _, err := io.WriteString(j.stdin, command+"\n"); err != nil {
		return "", fmt.Errorf("Java peer %s: %s: %w", j.id, command, err)
	}
	select {
	case line := <-j.replies:
		if strings.HasPrefix(line, "ERR ") {
			return "", fmt.Errorf("Java peer %s: %s", j.id, line)
		}
		return line, nil
	case <-j.exited:
		return "", fmt.Errorf("Java peer %s exited during %s", j.id, command)
	case <-ctx.Done():
		return "", fmt.Errorf("Java peer %s: %s: %w", j.id, command, ctx.Err())
	}
}

func (j *javaMember) View(ctx context.Context) (peerView, error) {
	line, err := j.call(ctx, "VIEW")
	if err != nil {
		return peerView{}, err
	}
	f := strings.Split(line, "\t")
	if len(f) != 6 || f[0] != "VIEW" {
		return peerView{}, fmt.Errorf("Java peer %s answered %q", j.id, line)
	}
	marks, err1 := strconv.ParseInt(f[4], 10, 64)
	session, err2 := parseJavaSession(f[3])
	if err := errors.Join(err1, err2); err != nil {
		return peerView{}, fmt.Errorf("Java peer %s answered %q: %w", j.id, line, err)
	}
	return peerView{leading: f[1] == "true", leader: f[2], participants: f[5], marks: marks, session: session}, nil
}

// parseJavaSession reads a session id as Java's Long.toHexString writes it.
func parseJavaSession(s string) (int64, error) {
	u, err := strconv.ParseUint(s, 16, 64)
	return int64(u), err
}

// closeRecipe has the peer stop acting, close its recipe and its client, and
// exit.
func (j *javaMember) closeRecipe(ctx context.Context) error {
	if _, err := j.call(ctx, "CLOSE"); err != nil {
		return err
	}
	select {
	case <-j.exited:
		return nil
	case <-ctx.Done():
		return fmt.Errorf("Java peer %s did not exit after CLOSE", j.id)
	}
}

// kill kills the JVM (SIGKILL): its session lives on until the server
// expires it.
func (j *javaMember) kill() {
	j.quitOnce.Do(func() { close(j.quit) })
	_ = j.cmd.Process.Kill()
	<-j.exited
}
