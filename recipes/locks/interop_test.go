package locks_test

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"golang.org/x/sync/errgroup"

	"github.com/gocurator/curator/framework"
	"github.com/gocurator/curator/recipes/locks"
	"github.com/gocurator/curator/recipestest"
)

// curatorJar is Debian's libcurator-recipes-java; its manifest names the
// rest of Curator and ZooKeeper's client.
const curatorJar = "/usr/share/java/curator-recipes.jar"

var (
	peerOnce sync.Once
	peerDir  string
	peerErr  error
)

// compilePeer compiles testdata/CuratorPeer.java once per test binary.
func compilePeer(t *testing.T) string {
	t.Helper()
	peerOnce.Do(func() {
		dir, err := filepath.Abs("testdata")
		if err != nil {
			peerErr = err
			return
		}
		out := filepath.Join(dir, "..", "testdata", ".class")
		peerDir = out
		cmd := exec.Command("javac", "-nowarn", "-cp", curatorJar, "-d", out, filepath.Join(dir, "CuratorPeer.java"))
		if b, err := cmd.CombinedOutput(); err != nil {
			peerErr = fmt.Errorf("javac: %v\n%s\n(Curator comes from: apt-get install -y libcurator-recipes-java)", err, b)
		}
	})
	if peerErr != nil {
		t.Fatal(peerErr)
	}
	return peerDir
}

// javaPeer is a running CuratorPeer.
type javaPeer struct {
	cmd     *exec.Cmd
	holding chan string // the participants it saw on its first hold
	done    chan string // its DONE line
	output  strings.Builder
	mu      sync.Mutex
}

func startJavaPeer(t *testing.T, waitForQueue bool, args ...string) *javaPeer {
	t.Helper()
	dir := compilePeer(t)
	jvm := []string{"-Xshare:auto", "-XX:TieredStopAtLevel=1", fmt.Sprintf("-Dpeer.waitForQueue=%v", waitForQueue), "-cp", dir + ":" + curatorJar, "CuratorPeer"}
	cmd := exec.Command("java", append(jvm, args...)...)
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	p := &javaPeer{cmd: cmd, holding: make(chan string, 1), done: make(chan string, 1)}
	cmd.Stderr = io.Discard
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	reading := make(chan struct{})
	go func() {
		defer close(reading)
		sc := bufio.NewScanner(stdout)
		sc.Buffer(make([]byte, 1<<20), 1<<20)
		for sc.Scan() {
			line := sc.Text()
			p.mu.Lock()
			p.output.WriteString(line + "\n")
			p.mu.Unlock()
			if rest, ok := strings.CutPrefix(line, "HOLDING "); ok {
				p.holding <- rest
			}
			if strings.HasPrefix(line, "DONE ") {
				p.done <- line
			}
		}
	}()
	t.Cleanup(func() {
		cmd.Process.Kill()
		<-reading
		cmd.Wait()
	})
	return p
}

// peerLimit bounds the wait for a Curator peer's cycles: a JVM with the
// C1 compiler alone, on a loaded machine, took over a minute.
const peerLimit = 3 * time.Minute

// wait waits for the peer's DONE line and fails t on a violation.
func (p *javaPeer) wait(t *testing.T) {
	t.Helper()
	timeout := time.NewTimer(peerLimit)
	defer timeout.Stop()
	select {
	case line := <-p.done:
		if line != "DONE violations=0" {
			p.mu.Lock()
			defer p.mu.Unlock()
			t.Fatalf("Curator peer: %s\n%s", line, p.output.String())
		}
	case <-timeout.C:
		p.mu.Lock()
		defer p.mu.Unlock()
		t.Fatalf("Curator peer did not finish in %v; it printed:\n%s", peerLimit, p.output.String())
	}
}

// marked runs the occupancy check the Java peer runs: an ephemeral marker
// under /occ ("r-" for readers, "w-" otherwise), then a listing.
func marked(ctx context.Context, c *framework.Client, reader bool, max int) (violation bool, err error) {
	prefix := "/occ/w-"
	if reader {
		prefix = "/occ/r-"
	}
	mine, err := c.Create(ctx, prefix, nil, framework.WithMode(framework.EphemeralSequential), framework.WithContainerParents())
	if err != nil {
		return false, err
	}
	inside, _, err := c.Children(ctx, "/occ")
	if err != nil {
		return false, err
	}
	writers := 0
	for _, n := range inside {
		if strings.HasPrefix(n, "w-") {
			writers++
		}
	}
	switch {
	case reader:
		violation = writers > 0
	default:
		violation = len(inside) > max
	}
	return violation, c.Delete(ctx, mine)
}

type interopCase struct {
	name   string
	java   [][]string // each peer's kind and optional maxLeases
	locker func(c *framework.Client, worker int) (l locks.Locker, reader bool, err error)
	max    int
}

func TestInteropWithCurator(t *testing.T) {
	cases := []interopCase{
		{"mutex", [][]string{{"mutex"}, {"mutex"}}, func(c *framework.Client, _ int) (locks.Locker, bool, error) {
			m, err := locks.NewMutex(c, "/lock")
			return m, false, err
		}, 1},
		{"read-write", [][]string{{"write"}, {"read"}}, func(c *framework.Client, w int) (locks.Locker, bool, error) {
			rw, err := locks.NewReadWriteLock(c, "/lock")
			if err != nil {
				return nil, false, err
			}
			if w%2 == 0 {
				return rw.WriteLock(), false, nil
			}
			return rw.ReadLock(), true, nil
		}, 1},
		{"semaphore", [][]string{{"semaphore", "2"}, {"semaphore", "2"}}, func(c *framework.Client, _ int) (locks.Locker, bool, error) {
			s, err := locks.NewSemaphore(c, "/lock", 2)
			return s, false, err
		}, 2},
		// Curator's InterProcessSemaphoreMutex is an InterProcessSemaphoreV2 of one lease.
		{"semaphore-mutex", [][]string{{"semaphore", "1"}, {"semaphore", "1"}}, func(c *framework.Client, _ int) (locks.Locker, bool, error) {
			s, err := locks.NewSemaphoreMutex(c, "/lock")
			return s, false, err
		}, 1},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) { runInterop(t, tc) })
	}
}

func runInterop(t *testing.T, tc interopCase) {
	const goWorkers, cycles = 2, 15
	ns := recipestest.Namespace(t)
	ctx := ctxT(t)
	cs := make([]*framework.Client, goWorkers)
	for i := range cs {
		cs[i] = newClientAt(t, server.ConnectString(), framework.WithNamespace(ns))
	}
	queue := "/lock"
	if strings.HasPrefix(tc.name, "semaphore") {
		queue = "/lock/leases"
	}
	args := func(java []string) []string {
		a := []string{server.ConnectString(), java[0], "/" + ns + "/lock", "/" + ns + "/occ", fmt.Sprint(cycles)}
		return append(a, java[1:]...)
	}

	// A Curator peer takes the lock first; Go sees its node in the queue.
	first := startJavaPeer(t, true, args(tc.java[0])...)
	var javaNodes []string
	for len(javaNodes) != 1 {
		if ctx.Err() != nil {
			t.Fatalf("the Curator peer's node never showed up: %v", javaNodes)
		}
		javaNodes, _, _ = cs[0].Children(ctx, queue)
	}
	if !curatorNode.MatchString(javaNodes[0]) {
		t.Fatalf("Curator's node %q is not named as ours are", javaNodes[0])
	}

	// Go workers contend; the Curator holder waits until one of them is in
	// its queue and lists the participants.
	var violations atomic.Int32
	g, gctx := errgroup.WithContext(ctx)
	for w, c := range cs {
		l, reader, err := tc.locker(c, w)
		if err != nil {
			t.Fatal(err)
		}
		g.Go(func() error {
			for range cycles {
				h, err := l.Acquire(gctx)
				if err != nil {
					return err
				}
				bad, err := marked(gctx, c, reader, tc.max)
				if bad {
					violations.Add(1)
				}
				if err != nil {
					return err
				}
				if err := h.Release(gctx); err != nil {
					return err
				}
			}
			return nil
		})
	}
	var seen []string
	select {
	case line := <-first.holding:
		seen = strings.Split(line, ",")
	case <-ctx.Done():
		t.Fatal("the Curator peer never reported its queue")
	}
	if !slices.ContainsFunc(seen, func(n string) bool { return !strings.HasSuffix(n, javaNodes[0]) }) {
		t.Fatalf("the Curator holder saw no Go node in its queue: %v", seen)
	}
	second := startJavaPeer(t, false, args(tc.java[1])...)
	if err := g.Wait(); err != nil {
		t.Fatal(err)
	}
	first.wait(t)
	second.wait(t)
	if n := violations.Load(); n != 0 {
		t.Fatalf("the Go side saw %d violations", n)
	}
}

// curatorNode is the name both Curator and this package give lock nodes.
var curatorNode = regexp.MustCompile(`^_c_[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}-(lock-|lease-|__READ__|__WRIT__)\d{10}$`)
