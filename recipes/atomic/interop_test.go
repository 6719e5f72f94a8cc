package atomic_test

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/gocurator/curator/framework"
	"github.com/gocurator/curator/recipes/atomic"
	"github.com/gocurator/curator/recipestest"
	"github.com/gocurator/curator/retry"
	"github.com/gocurator/curator/zkharness"
)

// curatorJar is Debian's libcurator-recipes-java; its manifest names the
// rest of Curator and ZooKeeper's client.
const curatorJar = "/usr/share/java/curator-recipes.jar"

// javaPeer is testdata/AtomicPeer.java running in a JVM of its own: it
// obeys commands on stdin and answers one line each.
type javaPeer struct {
	t     *testing.T
	stdin io.WriteCloser
	lines chan string
}

// startJava compiles and starts the Java peer, which the test's cleanup
// stops.
func startJava(t *testing.T) *javaPeer {
	t.Helper()
	classes := t.TempDir()
	if out, err := exec.Command("javac", "-J-XX:TieredStopAtLevel=1", "-J-Xshare:auto", "-nowarn", "-cp", curatorJar, "-d", classes, filepath.Join("testdata", "AtomicPeer.java")).CombinedOutput(); err != nil {
		t.Fatalf("javac: %v\n%s\n(Curator comes from: apt-get install -y libcurator-recipes-java)", err, out)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cmd := exec.CommandContext(ctx, "java", "-Xshare:auto", "-XX:TieredStopAtLevel=1", "-cp", classes+":"+curatorJar, "AtomicPeer", server.ConnectString())
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	p := &javaPeer{t: t, stdin: stdin, lines: make(chan string, 16)}
	done := make(chan struct{})
	go func() {
		defer close(done)
		defer close(p.lines)
		sc := bufio.NewScanner(stdout)
		sc.Buffer(make([]byte, 0, 64<<10), 4<<20)
		for sc.Scan() {
			p.lines <- sc.Text()
		}
	}()
	t.Cleanup(func() {
		stdin.Close() // the peer exits at the end of stdin
		wait := time.AfterFunc(30*time.Second, cancel)
		for range p.lines {
		}
		<-done
		cmd.Wait()
		wait.Stop()
		cancel()
	})
	p.expect("READY")
	return p
}

// send writes a command line.
func (p *javaPeer) send(line string) {
	p.t.Helper()
	if _, err := fmt.Fprintln(p.stdin, line); err != nil {
		p.t.Fatalf("the Java peer: %v", err)
	}
}

// expect waits for the peer's next line, which must start with prefix,
// and returns its fields after the prefix.
func (p *javaPeer) expect(prefix string) []string {
	p.t.Helper()
	select {
	case line, ok := <-p.lines:
		if !ok {
			p.t.Fatalf("the Java peer ended; want %s", prefix)
		}
		if !strings.HasPrefix(line, prefix) {
			p.t.Fatalf("the Java peer said %q; want %s", line, prefix)
		}
		return strings.Fields(strings.TrimPrefix(line, prefix))
	case <-time.After(2 * time.Minute):
		p.t.Fatalf("the Java peer said nothing for 2 minutes; want %s", prefix)
	}
	return nil
}

// Curator 5.4 and Go on one DistributedAtomicLong: 8 Java and 8 Go clients
// increment it at once, optimistically and then promoted to the same lock.
// Every increment that succeeded, on either side, counts once: the
// successes' values are 1..n, each once, and the node holds n as 8
// big-endian bytes. In the promoted run both sides take the lock.
func TestInt64InteropWithCurator(t *testing.T) {
	const perSide, increments = 8, 15
	java := startJava(t)
	for _, promoted := range []bool{false, true} {
		t.Run(fmt.Sprint("promoted=", promoted), func(t *testing.T) {
			java.t = t
			ns := recipestest.Namespace(t)
			ctx := ctxT(t)
			path, lockPath, retries := "/long", "-", 3
			var opts []atomic.Option
			if promoted { // one optimistic try each: the lock is taken often
				lockPath, retries = "/"+ns+"/lock", 0
				opts = append(opts, atomic.WithPromotion(atomic.Promotion{LockPath: "/lock", Retry: retry.RetryNTimes(3, 5*time.Millisecond)}))
			}
			policy := retry.RetryNTimes(retries, 5*time.Millisecond)
			java.send(fmt.Sprintf("RUN %d /%s%s %s %d %d", perSide, ns, path, lockPath, increments, retries))
			java.expect("SET")
			longs := make([]*atomic.Int64, perSide)
			for i := range longs {
				c := recipestest.NewClient(t, server.ConnectString(), framework.WithNamespace(ns))
				longs[i] = newInt64(t, c, path, policy, opts...)
			}
			java.send("GO")
			var mu sync.Mutex
			var posts []int64
			var goFailed, goPromoted int
			var wg sync.WaitGroup
			errs := make(chan error, perSide)
			for _, l := range longs {
				wg.Add(1)
				go func() {
					defer wg.Done()
					for range increments {
						res, err := l.Increment(ctx)
						if err != nil {
							errs <- err
							return
						}
						mu.Lock()
						goPromoted += res.Stats.PromotedTries
						if res.Succeeded {
							posts = append(posts, res.Post)
						} else {
							goFailed++
						}
						mu.Unlock()
					}
				}()
			}
			wg.Wait()
			close(errs)
			for err := range errs {
				t.Fatal(err)
			}
			f := java.expect("DONE ")
			if len(f) != 5 {
				t.Fatalf("the Java peer said DONE %v", f)
			}
			javaSucceeded, _ := strconv.Atoi(f[0])
			javaPromoted, _ := strconv.Atoi(f[3])
			goSucceeded := len(posts)
			if f[4] != "-" {
				for _, s := range strings.Split(f[4], ",") {
					n, err := strconv.ParseInt(s, 10, 64)
					if err != nil {
						t.Fatalf("the Java peer's posts: %v", err)
					}
					posts = append(posts, n)
				}
			}
			if len(posts) != goSucceeded+javaSucceeded {
				t.Fatalf("the Java peer listed %d values for %d successes", len(posts)-goSucceeded, javaSucceeded)
			}
			checkPosts(t, posts)
			data, err := longs[0].Get(ctx)
			if err != nil {
				t.Fatal(err)
			}
			raw := nodeBytes(t, recipestest.NewClient(t, server.ConnectString(), framework.WithNamespace(ns)), path)
			if want := fmt.Sprintf("%016x", len(posts)); fmt.Sprintf("%x", raw) != want || data != int64(len(posts)) {
				t.Fatalf("the node holds %x (%d), want %s: the %d successful increments", raw, data, want, len(posts))
			}
			if promoted && (goPromoted == 0 || javaPromoted == 0) {
				t.Fatalf("promoted tries: Go %d, Java %d; want both sides to take the lock", goPromoted, javaPromoted)
			}
			t.Logf("successes: Go %d, Java %d; failures: Go %d, Java %s; promoted tries: Go %d, Java %d",
				goSucceeded, javaSucceeded, goFailed, f[1], goPromoted, javaPromoted)
		})
	}

	// Curator 5.4's CachedAtomicLong and Go's CachedInt64 (and plain
	// increments) on one node at once: no value is handed out twice, and
	// every value handed out is at most the node's final value (each came
	// from a range reserved in it).
	t.Run("cached", func(t *testing.T) {
		const perSide, count = 4, 20
		java.t = t
		ns := recipestest.Namespace(t)
		ctx := ctxT(t)
		java.send(fmt.Sprintf("CACHED %d /%s/long %d %d", perSide, ns, 5, count))
		java.expect("SET")
		next := make([]func(context.Context) (atomic.Result[int64], error), perSide)
		for i := range next {
			c := recipestest.NewClient(t, server.ConnectString(), framework.WithNamespace(ns))
			l := newInt64(t, c, "/long", retry.RetryNTimes(1000, 0))
			next[i] = l.Increment
			if i > 0 { // one plain incrementer; the others cached, with factors of 3 and 4
				cached, err := atomic.NewCached(l, int64(3+i%2))
				if err != nil {
					t.Fatal(err)
				}
				next[i] = cached.Next
			}
		}
		java.send("GO")
		var mu sync.Mutex
		var posts []int64
		by := make(map[int64]string)
		var wg sync.WaitGroup
		errs := make(chan error, perSide)
		for i, n := range next {
			wg.Go(func() {
				for range count {
					res, err := n(ctx)
					if err != nil || !res.Succeeded {
						errs <- fmt.Errorf("Go participant %d: %+v, %v", i, res, err)
						return
					}
					mu.Lock()
					posts = append(posts, res.Post)
					by[res.Post] = fmt.Sprint("go", i)
					mu.Unlock()
				}
			})
		}
		wg.Wait()
		close(errs)
		for err := range errs {
			t.Fatal(err)
		}
		f := java.expect("CACHED ")
		if len(f) != 3 || f[1] != "0" {
			t.Fatalf("the Java peer said CACHED %v; want no failure", f)
		}
		for _, s := range strings.Split(f[2], ",") {
			n, err := strconv.ParseInt(s, 10, 64)
			if err != nil {
				t.Fatalf("the Java peer's posts: %v", err)
			}
			if who, ok := by[n]; ok {
				t.Fatalf("value %d was handed out by Java and by %s", n, who)
			}
			posts = append(posts, n)
			by[n] = "java"
		}
		if len(posts) != 2*perSide*count {
			t.Fatalf("%d values handed out, want %d", len(posts), 2*perSide*count)
		}
		final, err := newInt64(t, recipestest.NewClient(t, server.ConnectString(), framework.WithNamespace(ns)), "/long", few).Get(ctx)
		if err != nil {
			t.Fatal(err)
		}
		seen := make(map[int64]bool)
		for _, p := range posts {
			if seen[p] || p < 1 || p > final {
				t.Fatalf("value %d handed out twice, or outside 1..%d (the node's final value)", p, final)
			}
			seen[p] = true
		}
		t.Logf("%d values handed out, each once, from a node that ended at %d", len(posts), final)
	})

	// A Go update promoted to the lock waits for Curator's holder of it:
	// with a timeout, it times out while Java holds the lock (it cannot get
	// it, however long it takes) and leaves no lock node; without one, it
	// queues behind Java's node, is still waiting while Java holds the lock,
	// and succeeds under it once Java let go.
	t.Run("promotion-waits-for-java", func(t *testing.T) {
		java.t = t
		ns := recipestest.Namespace(t)
		ctx := ctxT(t)
		proxy := recipestest.StartProxy(t, server.Addr())
		c := recipestest.NewClient(t, proxy.Addr(), framework.WithNamespace(ns))
		direct := recipestest.NewClient(t, server.ConnectString(), framework.WithNamespace(ns))
		timed := newInt64(t, c, "/long", retry.RetryNTimes(0, 0),
			atomic.WithPromotion(atomic.Promotion{LockPath: "/lock", Timeout: 300 * time.Millisecond}))
		waiting := newInt64(t, c, "/long", retry.RetryNTimes(0, 0), atomic.WithPromotion(atomic.Promotion{LockPath: "/lock"}))
		other := newInt64(t, direct, "/long", few)
		lockNodes := func() ([]string, error) {
			kids, _, err := direct.Children(ctx, "/lock")
			if errors.Is(err, framework.ErrNoNode) { // the container, empty, was reaped
				err = nil
			}
			return kids, err
		}
		java.send("LOCK /" + ns + "/lock")
		java.expect("LOCKED")
		bump := func() {
			if _, err := other.Increment(ctx); err != nil {
				t.Error(err)
			}
		}
		res, err := forceConflict(t, proxy, func() (atomic.Result[int64], error) { return timed.Increment(ctx) }, bump)
		if err != nil || res.Succeeded || res.Stats.OptimisticTries != 1 || res.Stats.PromotedTries != 0 {
			t.Fatalf("a promoted increment while Java holds the lock: %+v, %v; want a failure without a promoted try", res, err)
		}
		recipestest.Eventually(t, "Java's lock node alone", func() (bool, string) {
			kids, err := lockNodes()
			return len(kids) == 1 && err == nil, fmt.Sprint(kids, err)
		})

		type outcome struct {
			res atomic.Result[int64]
			err error
		}
		done := make(chan outcome, 1)
		held := proxy.HoldReply(zkharness.OpGetData)
		go func() {
			res, err := waiting.Increment(ctx)
			done <- outcome{res, err}
		}()
		<-held.Arrived()
		bump()
		held.Deliver() // the optimistic try fails: the update is promoted
		recipestest.Eventually(t, "the Go update's lock node behind Java's", func() (bool, string) {
			kids, err := lockNodes()
			return len(kids) == 2 && err == nil, fmt.Sprint(kids, err)
		})
		select {
		case o := <-done:
			t.Fatalf("a promoted increment returned while Java holds the lock: %+v, %v", o.res, o.err)
		default:
		}
		java.send("UNLOCK")
		java.expect("UNLOCKED")
		o := <-done
		if o.err != nil || !o.res.Succeeded || o.res.Stats.PromotedTries != 1 || o.res.Pre != 2 || o.res.Post != 3 {
			t.Fatalf("a promoted increment once Java let go: %+v, %v; want 2 -> 3 in one promoted try", o.res, o.err)
		}
		recipestest.Eventually(t, "no lock node", func() (bool, string) {
			kids, err := lockNodes()
			return len(kids) == 0 && err == nil, fmt.Sprint(kids, err)
		})
	})

	// What Curator 5.4 does with a lost reply, for the documentation's
	// claim: its client sends the set again, the retry is refused for its
	// version, and the increment is made a second time and reported once.
	// (Go's answer to the same fault: TestLostReplyIsNotAppliedTwice.)
	t.Run("curator-applies-a-lost-reply-twice", func(t *testing.T) {
		java.t = t
		ns := recipestest.Namespace(t)
		ctx := ctxT(t)
		proxy := recipestest.StartProxy(t, server.Addr())
		direct := recipestest.NewClient(t, server.ConnectString(), framework.WithNamespace(ns))
		l := newInt64(t, direct, "/long", few)
		if err := l.ForceSet(ctx, 5); err != nil {
			t.Fatal(err)
		}
		proxy.DropAfter(zkharness.OpSetData)
		java.send(fmt.Sprintf("ONCE %s /%s/long", proxy.Addr(), ns))
		f := java.expect("ONCE ")
		v, err := l.Get(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if len(f) != 4 || f[0] != "true" || f[2] != "7" || v != 7 {
			t.Fatalf("Curator's increment of 5 across a lost reply: %v, and the node holds %d; want a success reported as 6 -> 7 and 7 in the node (if Curator no longer applies it twice, update doc.go and docs/recipes/atomic.md)", f, v)
		}
		t.Logf("Curator reported one increment (succeeded=%s, %s -> %s, %s optimistic tries); the node went from 5 to %d", f[0], f[1], f[2], f[3], v)
	})
}
