package queue_test

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"math/rand/v2"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/gocurator/curator/framework"
	"github.com/gocurator/curator/recipes/queue"
	"github.com/gocurator/curator/recipestest"
)

// curatorJar is Debian's libcurator-recipes-java; its manifest names the
// rest of Curator and ZooKeeper's client.
const curatorJar = "/usr/share/java/curator-recipes.jar"

// javaPeer is testdata/QueuePeer.java, Curator 5.4's own queues, in one JVM
// for every interop test (a JVM is slow to start).
type javaPeer struct {
	t       *testing.T
	cmd     *exec.Cmd
	stdin   io.WriteCloser
	replies chan string
	items   *record[delivery]
	holding *record[string] // items a Java consumer holds, waiting for "release"
	done    chan struct{}
}

// delivery is one item given to a consumer: which consumer ("g1" for a Go
// one, "j1" for a Java one), the item, and when (epoch ms, the consumer's
// clock).
type delivery struct {
	by     string
	item   string
	at     int64
	failed bool // the consumer failed it
}

// startJava compiles and starts the Java peer in namespace ns.
func startJava(t *testing.T, ns string) *javaPeer {
	classes := t.TempDir()
	if out, err := exec.Command("javac", "-J-XX:TieredStopAtLevel=1", "-J-Xshare:auto", "-nowarn", "-cp", curatorJar, "-d", classes, filepath.Join("testdata", "QueuePeer.java")).CombinedOutput(); err != nil {
		t.Fatalf("javac: %v\n%s\n(Curator comes from: apt-get install -y libcurator-recipes-java)", err, out)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cmd := exec.CommandContext(ctx, "java", "-Xshare:auto", "-XX:TieredStopAtLevel=1", "-cp", classes+":"+curatorJar,
		"QueuePeer", server.ConnectString(), ns)
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
	p := &javaPeer{t: t, cmd: cmd, stdin: stdin, replies: make(chan string, 1), items: newRecord[delivery](), holding: newRecord[string](), done: make(chan struct{})}
	ready := make(chan string, 1)
	go func() {
		defer close(p.done)
		lines := bufio.NewScanner(stdout)
		first := true
		for lines.Scan() {
			line := lines.Text()
			switch {
			case first:
				ready <- line
				first = false
			case strings.HasPrefix(line, "holding "):
				p.holding.add(strings.Fields(line)[2])
			case strings.HasPrefix(line, "item "):
				f := strings.Fields(line)
				at, _ := strconv.ParseInt(f[3], 10, 64)
				p.items.add(delivery{by: "j" + f[1], item: f[2], at: at, failed: f[4] == "fail"})
			default:
				p.replies <- line
			}
		}
	}()
	t.Cleanup(func() {
		fmt.Fprintln(stdin, "quit")
		stdin.Close()
		select {
		case <-p.done:
		case <-time.After(30 * time.Second):
			t.Error("the Java peer did not quit")
		}
		cancel()
		cmd.Wait()
	})
	select {
	case line := <-ready:
		if line != "READY" {
			t.Fatalf("the Java peer said %q", line)
		}
	case <-time.After(60 * time.Second):
		t.Fatal("the Java peer did not start")
	}
	return p
}

// do sends one command and returns its answer after "ok".
func (p *javaPeer) do(t *testing.T, format string, args ...any) string {
	t.Helper()
	cmd := fmt.Sprintf(format, args...)
	if _, err := fmt.Fprintln(p.stdin, cmd); err != nil {
		t.Fatal(err)
	}
	select {
	case line := <-p.replies:
		if line != "ok" && !strings.HasPrefix(line, "ok ") {
			t.Fatalf("Java: %s: %s", cmd, line)
		}
		return strings.TrimSpace(strings.TrimPrefix(line, "ok"))
	case <-p.done:
		t.Fatalf("the Java peer ended during %s", cmd)
	case <-time.After(60 * time.Second):
		t.Fatalf("Java: %s: no answer", cmd)
	}
	return ""
}

// Go's queues and Curator 5.4's on the same paths, in both directions:
// each queue type fed by one language and drained by the other, and mixed
// producers and consumers on one lock-safe queue; items taken once (at
// least once for one whose consumer failed), in the type's order.
func TestInteropWithCurator(t *testing.T) {
	recipestest.LeakCheck(t)
	ns := recipestest.Namespace(t)
	java := startJava(t, ns)
	newGo := func(t *testing.T) *framework.Client {
		return recipestest.NewClient(t, server.ConnectString(), framework.WithNamespace(ns))
	}
	// goConsumer records into java's record too, so that one record holds
	// every delivery, whichever the language. It fails an item of
	// failFirst (which its caller may share between consumers) the first
	// time it is given it.
	var mu sync.Mutex
	goConsumer := func(name string, failFirst map[string]bool) queue.Consumer[string] {
		return func(_ context.Context, item string) error {
			mu.Lock()
			fail := failFirst[item]
			delete(failFirst, item)
			mu.Unlock()
			java.items.add(delivery{by: name, item: item, at: time.Now().UnixMilli(), failed: fail})
			if fail {
				return fmt.Errorf("failing %s once", item)
			}
			return nil
		}
	}
	// since returns the deliveries recorded from the n-th on.
	since := func(n int) []delivery { return java.items.got()[n:] }
	itemsOf := func(ds []delivery) []string {
		var out []string
		for _, d := range ds {
			out = append(out, d.item)
		}
		return out
	}

	t.Run("simple", func(t *testing.T) {
		c := newGo(t)
		ctx := ctxT(t)
		s, _ := queue.NewSimple(c, "/simple")
		var want []string
		for i := range 10 {
			want = append(want, fmt.Sprint("g", i))
			if err := s.Offer(ctx, []byte(want[i])); err != nil {
				t.Fatal(err)
			}
		}
		if got := strings.Fields(java.do(t, "simple-take /simple 10")); !slices.Equal(got, want) {
			t.Fatalf("Java took %v, want %v", got, want)
		}
		want = want[:0]
		for i := range 10 {
			want = append(want, fmt.Sprint("j", i))
			java.do(t, "simple-offer /simple %s", want[i])
		}
		for i := range 10 {
			b, err := s.Take(ctx)
			if err != nil || string(b) != want[i] {
				t.Fatalf("Go took %q, %v; want %s", b, err, want[i])
			}
		}
	})

	// Go feeds, Java drains (a PutMulti among the puts), then the
	// reverse; then Go and Java producers and consumers at once, each side
	// failing one item of its own once. Lock-safe throughout.
	t.Run("queue-lock-safe", func(t *testing.T) {
		c1, c2 := newGo(t), newGo(t)
		ctx := ctxT(t)
		prod := startQueue(t, c1, "/q", nil)
		var want []string
		for i := range 10 {
			want = append(want, fmt.Sprint("g", i))
			if err := prod.Put(ctx, want[i]); err != nil {
				t.Fatal(err)
			}
		}
		if err := prod.PutMulti(ctx, []string{"gm0", "gm1", "gm2"}); err != nil {
			t.Fatal(err)
		}
		want = append(want, "gm0", "gm1", "gm2")
		n := len(java.items.got())
		java.do(t, "consume 1 queue /q /locks -")
		java.items.wait(t, n+len(want))
		if got := itemsOf(since(n)); !slices.Equal(got, want) {
			t.Fatalf("Java consumed %v, want %v", got, want)
		}
		java.do(t, "stop 1")

		want = want[:0]
		for i := range 10 {
			want = append(want, fmt.Sprint("j", i))
			java.do(t, "put queue /q - %s", want[i])
		}
		java.do(t, "putmulti queue /q - jm0,jm1,jm2")
		want = append(want, "jm0", "jm1", "jm2")
		n = len(java.items.got())
		cons := startQueue(t, c2, "/q", goConsumer("g1", nil), queue.WithLockPath("/locks"))
		java.items.wait(t, n+len(want))
		if got := itemsOf(since(n)); !slices.Equal(got, want) {
			t.Fatalf("Go consumed %v, want %v", got, want)
		}

		// Mixed: two Go consumers and two Java ones, items from both
		// languages, a batch queued before they start and the rest put
		// while they consume.
		cons.Close()
		n = len(java.items.got())
		want = []string{"g-fail", "j-fail", "gm-a", "gm-b", "jm-a", "jm-b"}
		if err := prod.Put(ctx, "g-fail"); err != nil {
			t.Fatal(err)
		}
		java.do(t, "put queue /q - j-fail")
		for i := range 10 {
			if err := prod.Put(ctx, fmt.Sprint("gb", i)); err != nil {
				t.Fatal(err)
			}
			java.do(t, "put queue /q - jb%d", i)
			want = append(want, fmt.Sprint("gb", i), fmt.Sprint("jb", i))
		}
		// Each consumer fails each of the two -fail items the first time it
		// is given it (the Go ones share that memory): the item is
		// requeued, and comes again, to either side.
		goFails := map[string]bool{"g-fail": true, "j-fail": true}
		java.do(t, "consume 2 queue /q /locks g-fail,j-fail")
		java.do(t, "consume 3 queue /q /locks g-fail,j-fail")
		startQueue(t, c2, "/q", goConsumer("g2", goFails), queue.WithLockPath("/locks"))
		startQueue(t, newGo(t), "/q", goConsumer("g3", goFails), queue.WithLockPath("/locks"))
		for i := range 25 {
			if err := prod.Put(ctx, fmt.Sprint("gx", i)); err != nil {
				t.Fatal(err)
			}
			java.do(t, "put queue /q - jx%d", i)
			want = append(want, fmt.Sprint("gx", i), fmt.Sprint("jx", i))
		}
		if err := prod.PutMulti(ctx, []string{"gm-a", "gm-b"}); err != nil {
			t.Fatal(err)
		}
		java.do(t, "putmulti queue /q - jm-a,jm-b")
		// Every item ends consumed once without failing; only the two
		// failing items come more than once (failed once by the Go side
		// and by each Java consumer at most).
		java.items.waitFor(t, "every item consumed", func(ds []delivery) bool {
			ok := map[string]bool{}
			for _, d := range ds[n:] {
				ok[d.item] = ok[d.item] || !d.failed
			}
			for _, item := range want {
				if !ok[item] {
					return false
				}
			}
			return true
		})
		recipestest.Eventually(t, "the queue and its locks to be empty", func() (bool, string) {
			q, l := children(t, c1, "/q"), children(t, c1, "/locks")
			return len(q) == 0 && len(l) == 0, fmt.Sprint(q, l)
		})
		java.do(t, "stop 2")
		java.do(t, "stop 3")
		got := since(n)
		ok, failed := map[string]int{}, map[string]int{}
		by := map[string]bool{}
		for _, d := range got {
			if d.failed {
				failed[d.item]++
			} else {
				ok[d.item]++
			}
			by[d.by] = true
		}
		for _, item := range want {
			if ok[item] != 1 {
				t.Errorf("%s consumed %d times, want once", item, ok[item])
			}
			if f := failed[item]; (f < 1 || f > 3) && strings.HasSuffix(item, "-fail") || f > 0 && !strings.HasSuffix(item, "-fail") {
				t.Errorf("%s failed %d times", item, f)
			}
		}
		if len(ok) != len(want) {
			t.Errorf("%d items consumed, want %d: %v", len(ok), len(want), got)
		}
		t.Logf("consumers that took items: %v", slices.Sorted(func(yield func(string) bool) {
			for k := range by {
				if !yield(k) {
					return
				}
			}
		}))
	})

	// Lock nodes exclude across languages, told apart from timing: while a
	// Go consumer holds an item, a Java consumer takes the item behind it
	// and never that one; then the reverse.
	t.Run("lock-exclusion", func(t *testing.T) {
		c1, c2 := newGo(t), newGo(t)
		ctx := ctxT(t)
		prod := startQueue(t, c1, "/excl", nil)
		inside, release := make(chan struct{}), make(chan struct{})
		holder := startQueue(t, c2, "/excl", func(ctx context.Context, item string) error {
			if item == "g-held" {
				close(inside)
				<-release
			}
			java.items.add(delivery{by: "g8", item: item, at: time.Now().UnixMilli()})
			return nil
		}, queue.WithLockPath("/excl-locks"))
		if err := prod.Put(ctx, "g-held"); err != nil {
			t.Fatal(err)
		}
		<-inside // the Go consumer holds g-held (its lock node exists)
		if err := prod.Put(ctx, "g-next"); err != nil {
			t.Fatal(err)
		}
		n := len(java.items.got())
		java.do(t, "consume 8 queue /excl /excl-locks -")
		java.items.waitFor(t, "Java to take g-next", func(ds []delivery) bool {
			return slices.ContainsFunc(ds[n:], func(d delivery) bool { return d.item == "g-next" })
		})
		java.do(t, "stop 8")
		close(release)
		java.items.waitFor(t, "the Go consumer to finish g-held", func(ds []delivery) bool {
			return slices.ContainsFunc(ds[n:], func(d delivery) bool { return d.item == "g-held" })
		})
		for _, d := range since(n) {
			if d.item == "g-held" && d.by != "g8" {
				t.Errorf("%s took g-held while the Go consumer held it", d.by)
			}
		}
		waitEmpty(t, c1, "/excl", "/excl-locks")
		holder.Close()

		// The reverse: a Java consumer holds j-held.
		n = len(java.items.got())
		java.do(t, "consume 9 queue /excl /excl-locks - j-held")
		java.do(t, "put queue /excl - j-held")
		java.holding.waitFor(t, "the Java consumer to hold j-held", func(h []string) bool { return slices.Contains(h, "j-held") })
		java.do(t, "put queue /excl - j-next")
		goSaw := newRecord[string]()
		gq := startQueue(t, newGo(t), "/excl", recorder(goSaw), queue.WithLockPath("/excl-locks"))
		if got := goSaw.wait(t, 1); got[0] != "j-next" {
			t.Fatalf("the Go consumer took %v while Java held j-held", got)
		}
		gq.Close()
		java.do(t, "release j-held")
		java.items.waitFor(t, "Java to finish j-held", func(ds []delivery) bool {
			return slices.ContainsFunc(ds[n:], func(d delivery) bool { return d.item == "j-held" })
		})
		java.do(t, "stop 9")
		if got := goSaw.got(); len(got) != 1 {
			t.Fatalf("the Go consumer took %v, want j-next only", got)
		}
		waitEmpty(t, c1, "/excl", "/excl-locks")
	})

	// No lock: Go and Java consumers on one queue never deliver an item
	// twice; with nothing failing, every item comes.
	t.Run("queue-plain", func(t *testing.T) {
		c1 := newGo(t)
		ctx := ctxT(t)
		prod := startQueue(t, c1, "/plain", nil)
		n := len(java.items.got())
		startQueue(t, newGo(t), "/plain", goConsumer("g4", nil))
		java.do(t, "consume 4 queue /plain - -")
		var want []string
		for i := range 20 {
			if err := prod.Put(ctx, fmt.Sprint("gp", i)); err != nil {
				t.Fatal(err)
			}
			java.do(t, "put queue /plain - jp%d", i)
			want = append(want, fmt.Sprint("gp", i), fmt.Sprint("jp", i))
		}
		java.items.wait(t, n+len(want))
		java.do(t, "stop 4")
		got := itemsOf(since(n))
		slices.Sort(got)
		slices.Sort(want)
		if !slices.Equal(got, want) {
			t.Fatalf("delivered %v, want each of %v once", got, want)
		}
	})

	// Ids: Go puts with ids, Curator removes one id (fixed the same way)
	// and drains the rest in order; then the reverse.
	t.Run("id", func(t *testing.T) {
		c1, c2 := newGo(t), newGo(t)
		ctx := ctxT(t)
		prod, _ := queue.NewID(c1, "/ids", queue.String{}, nil)
		if err := prod.Start(ctx); err != nil {
			t.Fatal(err)
		}
		defer prod.Close()
		for i, id := range []string{"x", "a_b", "y", "x", "z"} {
			if err := prod.Put(ctx, fmt.Sprintf("g%d-%s", i, id), id); err != nil {
				t.Fatal(err)
			}
		}
		if got := java.do(t, "remove /ids - x"); got != "2" {
			t.Fatalf("Curator removed %s items with id x, want 2", got)
		}
		n := len(java.items.got())
		java.do(t, "consume 5 id /ids - -")
		java.items.wait(t, n+3)
		java.do(t, "stop 5")
		if got := itemsOf(since(n)); !slices.Equal(got, []string{"g1-a_b", "g2-y", "g4-z"}) {
			t.Fatalf("Curator consumed %v", got)
		}
		for i, id := range []string{"q", "r", "q", "s/t"} {
			java.do(t, "put id /ids %s j%d", id, i)
		}
		if kids := children(t, c1, "/ids"); !slices.Contains(kids, "queue-|s_t|0000000008") {
			t.Fatalf("Curator's nodes: %v", kids)
		}
		if n, err := prod.Remove(ctx, "q"); err != nil || n != 2 {
			t.Fatalf("Go removed %d items with id q, %v; want 2", n, err)
		}
		n = len(java.items.got())
		cons, _ := queue.NewID(c2, "/ids", queue.String{}, goConsumer("g5", nil))
		if err := cons.Start(ctx); err != nil {
			t.Fatal(err)
		}
		defer cons.Close()
		java.items.wait(t, n+2)
		if got := itemsOf(since(n)); !slices.Equal(got, []string{"j1", "j3"}) {
			t.Fatalf("Go consumed %v", got)
		}
	})

	// Priorities: every item queued before the consumer starts comes out in
	// (priority, put order), whichever language put and consumed it.
	t.Run("priority", func(t *testing.T) {
		c1, c2 := newGo(t), newGo(t)
		ctx := ctxT(t)
		rng := rand.New(rand.NewPCG(3, 4))
		type put struct {
			item string
			p    int
		}
		order := func(puts []put) []string {
			puts = slices.Clone(puts)
			slices.SortStableFunc(puts, func(a, b put) int { return a.p - b.p })
			var out []string
			for _, p := range puts {
				out = append(out, p.item)
			}
			return out
		}
		prod, _ := queue.NewPriority(c1, "/prio", queue.String{}, nil)
		if err := prod.Start(ctx); err != nil {
			t.Fatal(err)
		}
		defer prod.Close()
		var puts []put
		for i := range 15 {
			p := rng.IntN(9) - 4
			if i == 3 {
				p = -1 << 31
			}
			if i == 4 {
				p = 1<<31 - 1
			}
			puts = append(puts, put{fmt.Sprint("g", i), p})
			if err := prod.Put(ctx, puts[i].item, int32(p)); err != nil {
				t.Fatal(err)
			}
		}
		n := len(java.items.got())
		java.do(t, "consume 6 priority /prio /prio-locks -")
		java.items.wait(t, n+len(puts))
		java.do(t, "stop 6")
		if got, want := itemsOf(since(n)), order(puts); !slices.Equal(got, want) {
			t.Fatalf("Curator consumed %v, want %v", got, want)
		}
		puts = puts[:0]
		for i := range 15 {
			p := rng.IntN(9) - 4
			puts = append(puts, put{fmt.Sprint("j", i), p})
			java.do(t, "put priority /prio %d j%d", p, i)
		}
		java.do(t, "putmulti priority /prio -5 jm0,jm1")
		puts = append(puts, put{"jm0", -5}, put{"jm1", -5})
		n = len(java.items.got())
		cons, _ := queue.NewPriority(c2, "/prio", queue.String{}, goConsumer("g6", nil), queue.WithLockPath("/prio-locks"))
		if err := cons.Start(ctx); err != nil {
			t.Fatal(err)
		}
		defer cons.Close()
		java.items.wait(t, n+len(puts))
		if got, want := itemsOf(since(n)), order(puts); !slices.Equal(got, want) {
			t.Fatalf("Go consumed %v, want %v", got, want)
		}
	})

	// Delays: items come out in due order, none before it is due by the
	// consumer's clock (one machine's here), whichever language put them.
	t.Run("delay", func(t *testing.T) {
		c1, c2 := newGo(t), newGo(t)
		ctx := ctxT(t)
		check := func(t *testing.T, got []delivery, due map[string]int64) {
			t.Helper()
			if len(got) != len(due) {
				t.Fatalf("consumed %v, want %d items", got, len(due))
			}
			for i, d := range got {
				if d.at < due[d.item] {
					t.Errorf("%s consumed at %d, before it was due at %d", d.item, d.at, due[d.item])
				}
				if i > 0 && due[d.item] < due[got[i-1].item] {
					t.Errorf("%s (due %d) came after %s (due %d)", d.item, due[d.item], got[i-1].item, due[got[i-1].item])
				}
			}
		}
		// Each consumer starts once every item is in: on a loaded machine
		// the puts may outlast the first delays, and an item put after
		// another was consumed would come out of due order.
		n := len(java.items.got())
		prod, _ := queue.NewDelay(c1, "/delay", queue.String{}, nil)
		if err := prod.Start(ctx); err != nil {
			t.Fatal(err)
		}
		defer prod.Close()
		due := map[string]int64{}
		base := time.Now().UnixMilli()
		for i, ms := range []int64{500, 150, 350, 250, 450, 200} {
			item := fmt.Sprint("g", i)
			due[item] = base + ms
			if err := prod.Put(ctx, item, time.UnixMilli(due[item])); err != nil {
				t.Fatal(err)
			}
		}
		if err := prod.PutMulti(ctx, []string{"gm0", "gm1"}, time.UnixMilli(base+300)); err != nil {
			t.Fatal(err)
		}
		due["gm0"], due["gm1"] = base+300, base+300
		java.do(t, "consume 7 delay /delay /delay-locks -")
		java.items.wait(t, n+len(due))
		java.do(t, "stop 7")
		check(t, since(n), due)

		n = len(java.items.got())
		due = map[string]int64{}
		base = time.Now().UnixMilli()
		for i, ms := range []int64{400, 100, 300, 200, 50} {
			item := fmt.Sprint("j", i)
			due[item] = base + ms
			java.do(t, "put delay /delay %d %s", due[item], item)
		}
		cons, _ := queue.NewDelay(c2, "/delay", queue.String{}, goConsumer("g7", nil), queue.WithLockPath("/delay-locks"))
		if err := cons.Start(ctx); err != nil {
			t.Fatal(err)
		}
		defer cons.Close()
		java.items.wait(t, n+len(due))
		check(t, since(n), due)
	})

	// Sharders: a Go and a Java QueueSharder on one path, with lock-safe
	// shards whose consumers wait until the end. Go leads first and adds a
	// shard (its maximum is 2) once Java's items fill the first; then Java
	// leads and adds a third (its maximum is 3). Java's items go into the
	// shard Go made and Go's into the one Java made; both run a queue on
	// every shard; every item is consumed once, by either side.
	t.Run("sharder", func(t *testing.T) {
		const path, leaderPath, lockRoot = "/sq", "/sq-leader", "/sq-locks"
		open := make(chan struct{})
		var once sync.Once
		defer once.Do(func() { close(open) })
		record := func(item string) { java.items.add(delivery{by: "g", item: item}) }
		newSharder := func(max int) (*framework.Client, *queue.Sharder[*queue.Queue[string]]) {
			c := newGo(t)
			return c, startSharder(t, c, path, leaderPath, queue.SharderPolicies{Threshold: 3, CheckInterval: 50 * time.Millisecond, MaxShards: max},
				shardAllocator(c, lockRoot, open, record))
		}
		javaPaths := func() []string { return strings.Fields(java.do(t, "sharder-paths 9")) }
		samePaths := func(what string, s *queue.Sharder[*queue.Queue[string]], n int) []string {
			t.Helper()
			var paths []string
			recipestest.Eventually(t, what, func() (bool, string) {
				paths = s.Paths()
				j := javaPaths()
				return len(paths) == n && slices.Equal(paths, j), fmt.Sprintf("Go %v, Java %v", paths, j)
			})
			return paths
		}
		n := len(java.items.got())

		c, g1 := newSharder(2)
		recipestest.Eventually(t, "the Go sharder's latch node", func() (bool, string) {
			return len(children(t, c, path+"-leader")) == 1, "" // Go joins first: it leads
		})
		java.do(t, "sharder 9 %s %s %s 3 50 3", path, leaderPath, lockRoot)
		first := samePaths("Java taking up the Go sharder's shard", g1, 1)[0]
		for _, it := range []string{"j0", "j1", "j2"} { // into the only shard
			java.do(t, "sharder-put 9 %s", it)
		}
		paths := samePaths("the Go leader's second shard", g1, 2)
		goMade := slices.DeleteFunc(slices.Clone(paths), func(p string) bool { return p == first })[0]
		// Java's puts go to the shard Go made, once Java's count found the
		// first full.
		javaItems := []string{"j0", "j1", "j2"}
		for i := 3; !slices.ContainsFunc(itemsIn(t, c, goMade), func(s string) bool { return strings.HasPrefix(s, "j") }); i++ {
			if i == 23 {
				t.Fatalf("20 Java puts, none in the shard Go made: %v", itemsIn(t, c, goMade))
			}
			javaItems = append(javaItems, fmt.Sprint("j", i))
			java.do(t, "sharder-put 9 %s", javaItems[i])
		}
		if err := g1.Close(); err != nil { // Java leads now
			t.Fatal(err)
		}
		c, g2 := newSharder(2)
		paths = samePaths("the Java leader's third shard", g2, 3)
		if got := children(t, c, path); len(got) != 3 {
			t.Fatalf("shards %v, want 3", got)
		}
		javaMade := slices.DeleteFunc(slices.Clone(paths), func(p string) bool { return p == first || p == goMade })[0]
		for _, p := range paths {
			if _, name := framework.SplitPath(p); !shardName.MatchString(name) {
				t.Fatalf("shard %s: want queue-<uuid>", p)
			}
		}
		var goItems []string
		for i := 0; !slices.ContainsFunc(itemsIn(t, c, javaMade), func(s string) bool { return strings.HasPrefix(s, "g") }); i++ {
			if i == 20 {
				t.Fatalf("20 Go puts, none in the shard Java made: %v", itemsIn(t, c, javaMade))
			}
			goItems = append(goItems, fmt.Sprint("g", i))
			put(t, g2, goItems[i])
		}

		once.Do(func() { close(open) })
		java.do(t, "open 9")
		want := len(javaItems) + len(goItems)
		got := java.items.wait(t, n+want)[n:]
		java.do(t, "sharder-stop 9")
		counts := make(map[string]int)
		for _, d := range got {
			counts[strings.Split(d.item, "@")[0]]++
		}
		for _, it := range append(javaItems, goItems...) {
			if counts[it] != 1 {
				t.Errorf("%s consumed %d times", it, counts[it])
			}
		}
		if len(counts) != want {
			t.Errorf("consumed %v, want %d items", got, want)
		}
		for _, p := range paths {
			recipestest.Eventually(t, "the shards emptied", func() (bool, string) {
				kids := children(t, c, p)
				return len(kids) == 0, fmt.Sprint(p, kids)
			})
		}
		t.Logf("shards: %s (Go's), %s (Go's), %s (Java's); consumed: %v", first, goMade, javaMade, got)
	})

}
