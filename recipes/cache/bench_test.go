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
//   - gocurator: a Cache of the tree, from Start to Initialized. It reports
//     the heap held per node beyond the nodes' data (heapB/node: all the
//     process holds for the cache, go-zookeeper's and the framework's
//     tables of the watches it set included), the part of it the Cache
//     itself holds (cacheB/node: what its Close and collection give back;
//     the watches stay set), and the requests it sent per node. Then its
//     connection is cut (a proxy drops it), and it reports the resync the
//     same way: from the reconnect to Resynced, and the requests it sent.
//   - floor: bare go-zookeeper calls, the same requests (getData and
//     getChildren, each with a watch, for every node) kept
//     $CACHE_BENCH_FLOOR_INFLIGHT (64 by default) in flight on one
//     connection, keeping each node's data.
//   - curator: Curator 5.4's CuratorCache in a Java process
//     (testdata/CacheLoadPeer.java), from start to its initialized event,
//     with the heap its JVM holds after the load (less the data).
//
// Each reports nodes/s; the Go rows also the CPU this process spent per
// node during the load (the server's is not counted). $CACHE_BENCH_HEAPPROF names a file for a heap
// profile taken with the gocurator row's cache loaded.
//
//	go test -run '^$' -bench Load -benchtime 1x ./recipes/cache/
//	CACHE_BENCH_NODES=70000 CACHE_BENCH_PARENTS=1 go test -run '^$' -bench Load -benchtime 1x ./recipes/cache/
func BenchmarkLoad(b *testing.B) {
	nodes := envInt(b, "CACHE_BENCH_NODES", 100_000, 1000, 1<<30)
	parents := envInt(b, "CACHE_BENCH_PARENTS", 100, 1, nodes-1)
	inflight := envInt(b, "CACHE_BENCH_FLOOR_INFLIGHT", 64, 1, 1<<16)
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
	const payload = "config-value-0123456789"
	for i := range nodes - parents - 1 {
		g.Go(func() error {
			_, err := w.Create(ctx, fmt.Sprintf("/big/p%03d/n%06d", i%parents, i), []byte(payload))
			return err
		})
	}
	if err := g.Wait(); err != nil {
		b.Fatal(err)
	}
	dataBytes := float64(len(payload) * (nodes - parents - 1))

	b.Run("gocurator", func(b *testing.B) {
		counter := zkharness.NewCounter()
		proxy := recipestest.StartProxy(b, srv.ConnectString())
		c := recipestest.NewClient(b, proxy.Addr(), framework.WithNamespace(ns), framework.WithDialer(counter.Dialer(nil)))
		var l load
		for range b.N {
			l.add(loadOnce(b, c, counter, proxy, nodes))
		}
		n := float64(b.N) * float64(nodes)
		b.ReportMetric(float64(l.cpu.Microseconds())/n, "cpu-us/node")
		b.ReportMetric((l.heap-float64(b.N)*dataBytes)/n, "heapB/node")
		b.ReportMetric(l.own/n, "cacheB/node")
		b.ReportMetric(float64(l.requests)/n, "requests/node")
		b.ReportMetric(n/l.took.Seconds(), "nodes/s")
		b.ReportMetric(float64(l.resyncRequests)/n, "resync-requests/node")
		b.ReportMetric(n/l.resyncTook.Seconds(), "resync-nodes/s")
	})
	b.Run("floor", func(b *testing.B) {
		conn, events, err := zk.Connect([]string{srv.ConnectString()}, 30*time.Second, zk.WithLogger(quiet{}))
		if err != nil {
			b.Fatal(err)
		}
		defer conn.Close()
		go func() {
			for range events { // drained, so go-zookeeper never blocks on it
			}
		}()
		var took, cpu time.Duration
		for range b.N {
			start, startCPU := time.Now(), processCPU()
			got, err := floorLoad(conn, "/"+ns+"/big", inflight)
			took, cpu = took+time.Since(start), cpu+processCPU()-startCPU
			if err != nil {
				b.Fatal(err)
			}
			if got != nodes {
				b.Fatalf("floor read %d nodes, want %d", got, nodes)
			}
		}
		b.ReportMetric(float64(b.N)*float64(nodes)/took.Seconds(), "nodes/s")
		b.ReportMetric(float64(cpu.Microseconds())/float64(b.N)/float64(nodes), "cpu-us/node")
		b.ReportMetric(float64(inflight), "inflight")
	})
	b.Run("curator", func(b *testing.B) {
		classes := b.TempDir()
		if out, err := exec.Command("javac", "-nowarn", "-cp", curatorJar, "-d", classes, filepath.Join("testdata", "CacheLoadPeer.java")).CombinedOutput(); err != nil {
			b.Fatalf("javac: %v\n%s\n(Curator comes from: apt-get install -y libcurator-recipes-java)", err, out)
		}
		var took time.Duration
		var loaded, heap float64
		for range b.N {
			out, err := exec.CommandContext(ctxT(b), "java", "-cp", classes+":"+curatorJar, "CacheLoadPeer", srv.ConnectString(), "/"+ns+"/big").Output()
			if err != nil {
				b.Fatalf("the Java peer: %v", err)
			}
			var n, ns, held int64
			line, _ := bufio.NewReader(strings.NewReader(string(out))).ReadString('\n')
			if _, err := fmt.Sscanf(line, "LOADED %d %d %d", &n, &ns, &held); err != nil {
				b.Fatalf("the Java peer said %q", out)
			}
			if n != int64(nodes) {
				b.Logf("CuratorCache holds %d nodes of %d (Curator 5.4 loads at most 65,535: CURATOR-690)", n, nodes)
			}
			took += time.Duration(ns)
			loaded += float64(n)
			heap += float64(held) - float64(len(payload))*float64(n)
		}
		b.ReportMetric(loaded/took.Seconds(), "nodes/s")
		b.ReportMetric(heap/loaded, "heapB/node")
		b.ReportMetric(loaded/float64(b.N), "nodes")
	})
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
// sent, and how long it took; then it cuts c's connection at the proxy and
// measures the resync the same way.
func loadOnce(b *testing.B, c *framework.Client, counter *zkharness.Counter, proxy *zkharness.Proxy, nodes int) (m load) {
	runtime.GC()
	var before, loaded, after runtime.MemStats
	runtime.ReadMemStats(&before)
	sent := counter.Requests()
	cc, err := cache.New(c, "/big")
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
	if f := os.Getenv("CACHE_BENCH_HEAPPROF"); f != "" {
		out, err := os.Create(f)
		if err != nil {
			b.Fatal(err)
		}
		_ = pprof.WriteHeapProfile(out)
		out.Close()
	}

	// The resync is timed from the reconnect (the state listener's
	// Reconnected, which the cache's resync starts from) to Resynced.
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
	sent = counter.Requests()
	proxy.DropAll()
	done := <-resynced
	m.resyncRequests = counter.Requests() - sent
	unlisten()
	mu.Lock()
	m.resyncTook = done.Sub(back)
	mu.Unlock()

	cc.Close()
	cc = nil
	runtime.GC()
	runtime.ReadMemStats(&after)
	m.heap = float64(loaded.HeapAlloc) - float64(before.HeapAlloc)
	m.own = float64(loaded.HeapAlloc) - float64(after.HeapAlloc)
	return m
}

// floorLoad reads every node below and at root with bare go-zookeeper
// calls, getData then getChildren, each with a watch, as the cache does,
// keeping inflight requests in flight on conn; it returns the nodes read.
func floorLoad(conn *zk.Conn, root string, inflight int) (int, error) {
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
				d, _, _, err := conn.GetW(path)
				var kids []string
				if err == nil {
					kids, _, _, err = conn.ChildrenW(path)
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
