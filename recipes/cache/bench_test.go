package cache_test

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"runtime/pprof"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/go-zookeeper/zk"
	"golang.org/x/sync/errgroup"

	"github.com/gocurator/curator/framework"
	"github.com/gocurator/curator/listener"
	"github.com/gocurator/curator/recipes/cache"
	"github.com/gocurator/curator/recipestest"
	"github.com/gocurator/curator/zkharness"
)

// BenchmarkLoad loads a tree of $CACHE_BENCH_NODES nodes (100,000 by
// default) under $CACHE_BENCH_PARENTS parents (100 by default; 1 makes one
// flat directory), 23 bytes of data each, three ways in one run, on one
// server, one after the other:
//
//   - gocurator: a Cache of the tree, from Start to Initialized, on a
//     direct connection. It reports the heap held per node beyond the
//     nodes' data (heapB/node: all the process holds for the cache,
//     go-zookeeper's and the framework's tables of the watches it set
//     included), the part of it the Cache itself holds (cacheB/node: what
//     its Close and collection give back; the watches stay set), and the
//     requests it sent per node. Then a second client, through a proxy,
//     loads the tree again (proxied-nodes/s), the proxy cuts its
//     connection, and it reports the resync the same way: from the
//     reconnect to Resynced, and the requests it sent.
//   - floor: bare go-zookeeper calls, the same requests (getData for
//     every node and getChildren for each with children; with one-shot
//     watches getChildren for every node, each with a watch) kept
//     $CACHE_BENCH_FLOOR_INFLIGHT (64 by default) in flight on one
//     connection, keeping each node's data.
//   - curator: Curator 5.4's CuratorCache in a Java process
//     (testdata/CacheLoadPeer.java), from start to its initialized event,
//     with the heap its JVM holds after the load (less the data).
//
// Each reports nodes/s; the Go rows also the CPU this process spent per
// node during the load (the server's is not counted) and their requests,
// counted by the same dialer. $CACHE_BENCH_HEAPPROF names a file for a heap
// profile taken with the gocurator row's cache loaded. With
// $CACHE_BENCH_ROUNDS set, it runs that many paired rounds instead (see
// loadRounds), for a verdict on the ratios.
//
//	go test -run '^$' -bench Load -benchtime 1x ./recipes/cache/
//	CACHE_BENCH_NODES=70000 CACHE_BENCH_PARENTS=1 go test -run '^$' -bench Load -benchtime 1x ./recipes/cache/
//
// The cache keeps in sync by its default, one persistent watch, and the
// floor reads without watches; $CACHE_BENCH_ONESHOT=1 loads with
// WithOneShotWatches instead, and the floor sets a watch with each read.
func BenchmarkLoad(b *testing.B) {
	inflight := envInt(b, "CACHE_BENCH_FLOOR_INFLIGHT", 64, 1, 1<<16)
	rounds := envInt(b, "CACHE_BENCH_ROUNDS", 0, 0, 1000)
	t := makeTree(b)
	if rounds > 0 {
		loadRounds(b, t, rounds, inflight)
		return
	}
	srv, ns, nodes := t.srv, t.ns, t.nodes

	// The load is measured on a direct connection, as the floor's and
	// Curator's are, with the same request counter as the floor's; the
	// resync on a second client through a proxy that can cut it, with its
	// own load through that proxy to compare the resync with.
	b.Run("gocurator", func(b *testing.B) {
		counter := zkharness.NewCounter()
		c := recipestest.NewClient(b, srv.ConnectString(), framework.WithNamespace(ns), framework.WithDialer(counter.Dialer(nil)))
		pcounter := zkharness.NewCounter()
		proxy := recipestest.StartProxy(b, srv.ConnectString())
		pc := recipestest.NewClient(b, proxy.Addr(), framework.WithNamespace(ns), framework.WithDialer(pcounter.Dialer(nil)))
		var l, r load
		for range b.N {
			l.add(loadOnce(b, c, counter, nil, nodes))
			r.add(loadOnce(b, pc, pcounter, proxy, nodes))
		}
		n := float64(b.N) * float64(nodes)
		b.ReportMetric(float64(l.cpu.Microseconds())/n, "cpu-us/node")
		b.ReportMetric((l.heap-float64(b.N)*t.dataBytes)/n, "heapB/node")
		b.ReportMetric(l.own/n, "cacheB/node")
		b.ReportMetric(float64(l.requests)/n, "requests/node")
		b.ReportMetric(n/l.took.Seconds(), "nodes/s")
		b.ReportMetric(n/r.took.Seconds(), "proxied-nodes/s")
		b.ReportMetric(float64(r.resyncRequests)/n, "resync-requests/node")
		b.ReportMetric(n/r.resyncTook.Seconds(), "resync-nodes/s")
	})
	b.Run("floor", func(b *testing.B) {
		var f floorLoadResult
		for range b.N {
			f.add(floorOnce(b, srv.ConnectString(), t.root(), nodes, inflight))
		}
		n := float64(b.N) * float64(nodes)
		b.ReportMetric(n/f.took.Seconds(), "nodes/s")
		b.ReportMetric(float64(f.cpu.Microseconds())/n, "cpu-us/node")
		b.ReportMetric(float64(f.requests)/n, "requests/node")
		b.ReportMetric(float64(inflight), "inflight")
	})
	b.Run("curator", func(b *testing.B) {
		classes := compileCacheLoadPeer(b)
		var c curatorLoadResult
		for range b.N {
			c.add(curatorOnce(b, classes, srv.ConnectString(), t.root()))
		}
		logCuratorCap(b, c.loaded, int64(b.N)*int64(nodes))
		b.ReportMetric(float64(c.loaded)/c.took.Seconds(), "nodes/s")
		b.ReportMetric(c.heap/float64(c.loaded), "heapB/node")
		b.ReportMetric(float64(c.loaded)/float64(b.N), "nodes")
	})
}

// logCuratorCap logs that CuratorCache held fewer nodes than the tree's,
// if it did: its rate is then of the nodes it held.
func logCuratorCap(b *testing.B, held, nodes int64) {
	if held != nodes {
		b.Logf("CuratorCache held %d nodes of %d (Curator 5.4 loads at most 65,535: CURATOR-690); its rate is of the nodes it held", held, nodes)
	}
}

// floorLoadResult is what floorOnce measured.
type floorLoadResult struct {
	took, cpu time.Duration
	requests  int64
}

func (f *floorLoadResult) add(g floorLoadResult) {
	f.took, f.cpu, f.requests = f.took+g.took, f.cpu+g.cpu, f.requests+g.requests
}

// floorOnce loads the tree at root with bare go-zookeeper calls on a new
// connection (see floorLoad), counting its requests, and closes it.
func floorOnce(b *testing.B, connect, root string, nodes, inflight int) (f floorLoadResult) {
	counter := zkharness.NewCounter()
	conn, events, err := zk.Connect([]string{connect}, 30*time.Second, zk.WithLogger(quiet{}), zk.WithDialer(zk.Dialer(counter.Dialer(nil))))
	if err != nil {
		b.Fatal(err)
	}
	defer conn.Close()
	go func() {
		for range events { // drained, so go-zookeeper never blocks on it
		}
	}()
	sent := counter.Requests()
	start, startCPU := time.Now(), processCPU()
	got, err := floorLoad(conn, root, inflight, !persistentMode(b))
	f.took, f.cpu = time.Since(start), processCPU()-startCPU
	f.requests = counter.Requests() - sent
	if err != nil {
		b.Fatal(err)
	}
	if got != nodes {
		b.Fatalf("floor read %d nodes, want %d", got, nodes)
	}
	return f
}

// curatorLoadResult is what curatorOnce measured.
type curatorLoadResult struct {
	took   time.Duration
	loaded int64
	heap   float64 // bytes beyond the data
}

func (c *curatorLoadResult) add(d curatorLoadResult) {
	c.took, c.loaded, c.heap = c.took+d.took, c.loaded+d.loaded, c.heap+d.heap
}

// compileCacheLoadPeer compiles testdata/CacheLoadPeer.java and returns the
// directory of its classes.
func compileCacheLoadPeer(b *testing.B) string {
	classes := b.TempDir()
	if out, err := exec.Command("javac", "-nowarn", "-cp", curatorJar, "-d", classes, filepath.Join("testdata", "CacheLoadPeer.java")).CombinedOutput(); err != nil {
		b.Fatalf("javac: %v\n%s\n(Curator comes from: apt-get install -y libcurator-recipes-java)", err, out)
	}
	return classes
}

// curatorOnce loads the tree at root into Curator's CuratorCache in a new
// Java process, which reports the nodes it holds, the time from start to
// its initialized event, and its used heap after a collection. See
// logCuratorCap for a load that stopped short.
func curatorOnce(b *testing.B, classes, connect, root string) curatorLoadResult {
	out, err := exec.CommandContext(ctxT(b), "java", "-cp", classes+":"+curatorJar, "CacheLoadPeer", connect, root).Output()
	if err != nil {
		b.Fatalf("the Java peer: %v", err)
	}
	var n, ns, held int64
	line, _ := bufio.NewReader(strings.NewReader(string(out))).ReadString('\n')
	if _, err := fmt.Sscanf(line, "LOADED %d %d %d", &n, &ns, &held); err != nil {
		b.Fatalf("the Java peer said %q", out)
	}
	return curatorLoadResult{took: time.Duration(ns), loaded: n, heap: float64(held) - float64(len(treePayload))*float64(n)}
}

// treePayload is each leaf's data.
const treePayload = "config-value-0123456789"

// tree is the tree BenchmarkLoad loads, on a server of its own.
type tree struct {
	srv       *zkharness.Server
	ns        string
	nodes     int     // the tree's nodes, its root included
	dataBytes float64 // the leaves' data
}

// root is the tree's root as the server names it.
func (t tree) root() string { return "/" + t.ns + "/big" }

// makeTree starts a server and makes a tree of $CACHE_BENCH_NODES nodes
// under $CACHE_BENCH_PARENTS parents on it.
func makeTree(b *testing.B) tree {
	nodes := envInt(b, "CACHE_BENCH_NODES", 100_000, 1000, 1<<30)
	parents := envInt(b, "CACHE_BENCH_PARENTS", 100, 1, nodes-1)
	srv := recipestest.StartServer(b, zkharness.WithoutFsync())
	ns := recipestest.Namespace(b)
	w := recipestest.NewClient(b, srv.ConnectString(), framework.WithNamespace(ns))
	g, ctx := errgroup.WithContext(ctxT(b))
	g.SetLimit(64)
	for i := range parents {
		if _, err := w.Create(ctx, fmt.Sprintf("/big/p%03d", i), nil, framework.WithParents()); err != nil && !errors.Is(err, framework.ErrNodeExists) {
			b.Fatal(err)
		}
	}
	for i := range nodes - parents - 1 {
		g.Go(func() error {
			_, err := w.Create(ctx, fmt.Sprintf("/big/p%03d/n%06d", i%parents, i), []byte(treePayload))
			return err
		})
	}
	if err := g.Wait(); err != nil {
		b.Fatal(err)
	}
	return tree{srv: srv, ns: ns, nodes: nodes, dataBytes: float64(len(treePayload) * (nodes - parents - 1))}
}

// curatorJar is Debian's libcurator-recipes-java; its manifest names the
// rest of Curator and ZooKeeper's client.
const curatorJar = "/usr/share/java/curator-recipes.jar"

// load is what loadOnce measured.
type load struct {
	heap, own                float64 // bytes
	requests, resyncRequests int64
	took, resyncTook         time.Duration
	cpu                      time.Duration // the process's, during the load
}

func (l *load) add(m load) {
	l.cpu += m.cpu
	l.heap, l.own = l.heap+m.heap, l.own+m.own
	l.requests, l.resyncRequests = l.requests+m.requests, l.resyncRequests+m.resyncRequests
	l.took, l.resyncTook = l.took+m.took, l.resyncTook+m.resyncTook
}

// loadOnce loads the tree into a new cache on c and measures the heap the
// process holds for it, the part the cache itself holds, the requests it
// sent, and how long it took; then, given a proxy, it cuts c's connection
// there and measures the resync the same way.
func loadOnce(b *testing.B, c *framework.Client, counter *zkharness.Counter, proxy *zkharness.Proxy, nodes int) (m load) {
	runtime.GC()
	var before, loaded, after runtime.MemStats
	runtime.ReadMemStats(&before)
	sent := counter.Requests()
	var opts []cache.Option
	if !persistentMode(b) {
		opts = append(opts, cache.WithOneShotWatches())
	}
	cc, err := cache.New(c, "/big", opts...)
	if err != nil {
		b.Fatal(err)
	}
	start, startCPU := time.Now(), processCPU()
	if err := cc.Start(context.Background()); err != nil {
		b.Fatal(err)
	}
	<-cc.Initialized()
	m.took, m.cpu = time.Since(start), processCPU()-startCPU
	m.requests = counter.Requests() - sent
	runtime.GC()
	runtime.ReadMemStats(&loaded)
	if n := cc.Len(); n != nodes {
		b.Fatalf("cache holds %d nodes, want %d", n, nodes)
	}
	if f := os.Getenv("CACHE_BENCH_HEAPPROF"); f != "" && proxy == nil { // the direct load's
		out, err := os.Create(f)
		if err != nil {
			b.Fatal(err)
		}
		_ = pprof.WriteHeapProfile(out)
		out.Close()
	}

	if proxy != nil {
		m.resyncRequests, m.resyncTook = resync(b, c, cc, counter, proxy)
	}
	cc.Close()
	cc = nil
	runtime.GC()
	runtime.ReadMemStats(&after)
	m.heap = float64(loaded.HeapAlloc) - float64(before.HeapAlloc)
	m.own = float64(loaded.HeapAlloc) - float64(after.HeapAlloc)
	return m
}

// resync cuts c's connection at the proxy and measures cc's resync: its
// requests, and its time from the reconnect (the state listener's
// Reconnected, which the cache's resync starts from) to Resynced.
func resync(b *testing.B, c *framework.Client, cc *cache.Cache, counter *zkharness.Counter, proxy *zkharness.Proxy) (int64, time.Duration) {
	var mu sync.Mutex
	var back time.Time
	unlisten, err := c.AddConnectionStateListener(func(s listener.ConnectionState) {
		if s == listener.Reconnected {
			mu.Lock()
			back = time.Now()
			mu.Unlock()
		}
	})
	if err != nil {
		b.Fatal(err)
	}
	resynced := make(chan time.Time, 1)
	if _, err := cc.AddListener(func(ev cache.Event) {
		if ev.Type == cache.Resynced {
			resynced <- time.Now()
		}
	}); err != nil {
		b.Fatal(err)
	}
	sent := counter.Requests()
	proxy.DropAll()
	done := <-resynced
	requests := counter.Requests() - sent
	unlisten()
	mu.Lock()
	defer mu.Unlock()
	return requests, done.Sub(back)
}

// floorLoad reads every node below and at root with bare go-zookeeper
// calls, keeping inflight requests in flight on conn, and returns the
// nodes read. With watches (as the cache's one-shot mode reads) it sends
// getData then getChildren for every node; without (the persistent mode's
// reads) it lists only a node whose stat shows children, as the cache
// then does.
func floorLoad(conn *zk.Conn, root string, inflight int, watch bool) (int, error) {
	var (
		mu      sync.Mutex
		cond    = sync.NewCond(&mu)
		queue   = []string{root}
		busy    int
		data    = make(map[string][]byte)
		failure error
	)
	var wg sync.WaitGroup
	for range inflight {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				mu.Lock()
				for len(queue) == 0 && busy > 0 && failure == nil {
					cond.Wait()
				}
				if len(queue) == 0 || failure != nil {
					cond.Broadcast()
					mu.Unlock()
					return
				}
				path := queue[len(queue)-1]
				queue = queue[:len(queue)-1]
				busy++
				mu.Unlock()
				var d []byte
				var kids []string
				var err error
				if watch {
					d, _, _, err = conn.GetW(path)
					if err == nil {
						kids, _, _, err = conn.ChildrenW(path)
					}
				} else {
					var st *zk.Stat
					d, st, err = conn.Get(path)
					if err == nil && st.NumChildren > 0 {
						kids, _, err = conn.Children(path)
					}
				}
				mu.Lock()
				busy--
				if err != nil && failure == nil {
					failure = err
				}
				data[path] = d
				for _, k := range kids {
					queue = append(queue, path+"/"+k)
					cond.Signal()
				}
				if busy == 0 && len(queue) == 0 || failure != nil {
					cond.Broadcast() // done
				}
				mu.Unlock()
			}
		}()
	}
	wg.Wait()
	return len(data), failure
}

// persistentMode reports whether the cache loads in its default,
// persistent mode, and the floor reads without watches to match (the one
// addWatch it would add left out): unless $CACHE_BENCH_ONESHOT=1 asks for
// the one-shot mode (WithOneShotWatches) and watching reads.
func persistentMode(b *testing.B) bool { return envInt(b, "CACHE_BENCH_ONESHOT", 0, 0, 1) == 0 }

// quiet is a go-zookeeper logger that says nothing.
type quiet struct{}

func (quiet) Printf(string, ...any) {}

// envInt returns the environment variable name as a number from lo to hi,
// or def if it is not set.
func envInt(b *testing.B, name string, def, lo, hi int) int {
	s := os.Getenv(name)
	if s == "" {
		return def
	}
	n, err := strconv.Atoi(s)
	if err != nil || n < lo || n > hi {
		b.Fatalf("%s=%q: want a number from %d to %d", name, s, lo, hi)
	}
	return n
}
