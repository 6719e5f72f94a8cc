package cache_test

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"sync"
	"testing"

	"golang.org/x/sync/errgroup"

	"github.com/gocurator/curator/framework"
	"github.com/gocurator/curator/recipes/cache"
	"github.com/gocurator/curator/recipestest"
	"github.com/gocurator/curator/retry"
	"github.com/gocurator/curator/zkharness"
)

// universe is the tree the writers work on: /t/aI/bJ/cK, 2,110 paths.
func universe() []string {
	var ps []string
	for i := range 10 {
		a := fmt.Sprintf("/t/a%d", i)
		ps = append(ps, a)
		for j := range 10 {
			b := fmt.Sprintf("%s/b%d", a, j)
			ps = append(ps, b)
			for k := range 20 {
				ps = append(ps, fmt.Sprintf("%s/c%d", b, k))
			}
		}
	}
	return ps
}

// replica applies a cache's events to a map of its own, to check that the
// events are exactly the differences: after every change and resync, the
// replica equals the cache.
type replica struct {
	mu       sync.Mutex
	nodes    map[string]cache.Node
	bad      []string
	recreate int // Deleted directly followed by Created of the same path
	last     cache.Event
}

func (r *replica) apply(ev cache.Event) {
	r.mu.Lock()
	defer r.mu.Unlock()
	switch ev.Type {
	case cache.Created:
		if _, ok := r.nodes[ev.Path]; ok {
			r.bad = append(r.bad, "Created for a cached node: "+ev.Path)
		}
		if r.last.Type == cache.Deleted && r.last.Path == ev.Path {
			r.recreate++
		}
		r.nodes[ev.Path] = ev.Node
	case cache.Changed:
		old, ok := r.nodes[ev.Path]
		if !ok || old.Stat.Mzxid != ev.Old.Stat.Mzxid || ev.Node.Stat.Mzxid <= old.Stat.Mzxid {
			r.bad = append(r.bad, fmt.Sprintf("Changed %s out of order: had %v, event %d->%d", ev.Path, ok, ev.Old.Stat.Mzxid, ev.Node.Stat.Mzxid))
		}
		r.nodes[ev.Path] = ev.Node
	case cache.Deleted:
		if _, ok := r.nodes[ev.Path]; !ok {
			r.bad = append(r.bad, "Deleted for a node not cached: "+ev.Path)
		}
		delete(r.nodes, ev.Path)
	case cache.Overflowed:
		r.bad = append(r.bad, "Overflowed")
	}
	r.last = ev
}

// serverTree reads the tree under root from the server: data, stat and the
// depth limit of a cache shape.
func serverTree(ctx context.Context, c *framework.Client, root string, maxDepth int) (map[string]cache.Node, error) {
	out := make(map[string]cache.Node)
	var walk func(path string, depth int) error
	walk = func(path string, depth int) error {
		data, stat, err := c.Get(ctx, path)
		if errors.Is(err, framework.ErrNoNode) {
			return nil
		}
		if err != nil {
			return err
		}
		if depth < maxDepth {
			kids, st2, err := c.Children(ctx, path)
			if errors.Is(err, framework.ErrNoNode) {
				return nil
			}
			if err != nil {
				return err
			}
			if st2.Mzxid == stat.Mzxid {
				stat = st2 // the later of the two, for the children's fields
			}
			for _, k := range kids {
				if err := walk(framework.JoinPath(path, k), depth+1); err != nil {
					return err
				}
			}
		}
		out[path] = cache.Node{Path: path, Data: data, Stat: *stat}
		return nil
	}
	return out, walk(root, 0)
}

// diff describes how the cache differs from want ("" if it does not).
func diff(want map[string]cache.Node, got []cache.Node) string {
	var d []string
	seen := make(map[string]bool)
	for _, n := range got {
		seen[n.Path] = true
		w, ok := want[n.Path]
		switch {
		case !ok:
			d = append(d, "extra "+n.Path)
		case string(w.Data) != string(n.Data) || w.Stat.Czxid != n.Stat.Czxid || w.Stat.Mzxid != n.Stat.Mzxid || w.Stat.Version != n.Stat.Version:
			d = append(d, fmt.Sprintf("%s: cache %q czxid %d mzxid %d, server %q czxid %d mzxid %d", n.Path, n.Data, n.Stat.Czxid, n.Stat.Mzxid, w.Data, w.Stat.Czxid, w.Stat.Mzxid))
		}
	}
	for p := range want {
		if !seen[p] {
			d = append(d, "missing "+p)
		}
	}
	slices.Sort(d)
	if len(d) > 10 {
		d = append(d[:10], fmt.Sprintf("... %d in all", len(d)))
	}
	return strings.Join(d, "; ")
}

// TestCachesConvergeThroughFaults: writers create, set, delete and
// re-create nodes of a 2,110-node tree while the caches' connection is cut,
// their session expired and the server restarted; once the writers stop,
// every cache shape equals a fresh read of the server, node for node, and
// each cache's events, applied in order, give exactly its content.
func TestCachesConvergeThroughFaults(t *testing.T) {
	srv := recipestest.StartServer(t)
	proxy := recipestest.StartProxy(t, srv.ConnectString())
	ns := recipestest.Namespace(t)
	opts := []framework.Option{framework.WithNamespace(ns), framework.WithRetryPolicy(retry.ExponentialBackoffRetry(20*1e6, 20))}
	cc := recipestest.NewClient(t, proxy.Addr(), opts...)
	// The caches with a persistent watch are on a client of their own: a
	// server before 3.9 holds one watch per path and connection.
	cp := recipestest.NewClient(t, proxy.Addr(), opts...)
	writers := make([]*framework.Client, 3)
	for i := range writers {
		writers[i] = recipestest.NewClient(t, srv.ConnectString(), opts...)
	}
	ctx := ctxT(t)
	paths := universe()
	g, gctx := errgroup.WithContext(ctx)
	g.SetLimit(32)
	for _, p := range paths[:len(paths)*2/3] {
		g.Go(func() error {
			_, err := writers[0].Create(gctx, p, []byte("init"), framework.WithParents())
			if errors.Is(err, framework.ErrNodeExists) {
				err = nil
			}
			return err
		})
	}
	if err := g.Wait(); err != nil {
		t.Fatal(err)
	}

	shapes := []struct {
		name string
		root string
		opts []cache.Option
	}{
		{"tree", "/t", []cache.Option{cache.WithOneShotWatches()}},
		{"children", "/t/a1", []cache.Option{cache.WithMaxDepth(1)}},
		{"children only", "/t/a3", []cache.Option{cache.WithChildrenOnly()}},
		{"node", "/t/a2/b2", []cache.Option{cache.WithMaxDepth(0), cache.WithOneShotWatches()}},
		{"depth 2", "/t", []cache.Option{cache.WithMaxDepth(2)}},
		{"tree persistent", "/t", nil}, // the default
		{"children only persistent", "/t/a3", []cache.Option{cache.WithChildrenOnly(), cache.WithPersistentWatch()}},
		{"node persistent", "/t/a2/b2", []cache.Option{cache.WithMaxDepth(0)}}, // the default
	}
	caches := make([]*cache.Cache, len(shapes))
	replicas := make([]*replica, len(shapes))
	for i, s := range shapes {
		client := cc
		if strings.HasSuffix(s.name, " persistent") {
			client = cp
		}
		c, err := cache.New(client, s.root, s.opts...)
		if err != nil {
			t.Fatal(err)
		}
		replicas[i] = &replica{nodes: make(map[string]cache.Node)}
		if _, err := c.AddListener(replicas[i].apply); err != nil {
			t.Fatal(err)
		}
		if err := c.Start(context.Background()); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { _ = c.Close() })
		caches[i] = c
	}

	// The writers: random creates, sets, deletes and re-creates (a delete
	// and a create in one transaction), errors ignored: the tree is shared
	// and the server goes away.
	stop := make(chan struct{})
	var wg sync.WaitGroup
	var recreates sync.Map
	for w, c := range writers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			rnd := rand.New(rand.NewPCG(uint64(w), 7))
			for n := 0; ; n++ {
				select {
				case <-stop:
					return
				default:
				}
				p := paths[rnd.IntN(len(paths))]
				data := []byte(fmt.Sprint(w, "-", n))
				switch rnd.IntN(8) {
				case 0, 1:
					c.Create(ctx, p, data, framework.WithParents())
				case 2, 3, 4:
					c.Set(ctx, p, data, -1)
				case 5:
					c.Delete(ctx, p)
				default:
					if _, err := c.Txn(ctx, framework.DeleteOp(p, -1), framework.CreateOp(p, []byte("same"), framework.Persistent)); err == nil {
						recreates.Store(p, true)
					}
				}
			}
		}()
	}
	// The faults, each once the caches have seen writes since the last.
	changes := func() int {
		r := replicas[0]
		r.mu.Lock()
		defer r.mu.Unlock()
		return len(r.nodes) + r.recreate
	}
	settle := func(what string) {
		before := changes()
		recipestest.Eventually(t, "the tree cache to follow writes after "+what, func() (bool, string) {
			return changes() != before, fmt.Sprint(changes())
		})
	}
	<-caches[0].Initialized()
	settle("the load")
	proxy.DropAll()
	settle("a connection cut")
	for _, c := range []*framework.Client{cc, cp} {
		if err := c.InjectSessionExpiration(ctx); err != nil {
			t.Fatal(err)
		}
	}
	settle("a session expiry")
	if err := srv.Stop(); err != nil {
		t.Fatal(err)
	}
	if err := srv.Restart(); err != nil {
		t.Fatal(err)
	}
	settle("a server restart")
	proxy.DropAll()
	settle("a second connection cut")
	close(stop)
	wg.Wait()

	reader := recipestest.NewClient(t, srv.ConnectString(), opts...)
	for i, s := range shapes {
		maxDepth := 1 << 30
		switch strings.TrimSuffix(s.name, " persistent") {
		case "children", "children only":
			maxDepth = 1
		case "node":
			maxDepth = 0
		case "depth 2":
			maxDepth = 2
		}
		want, err := serverTree(ctx, reader, s.root, maxDepth)
		if err != nil {
			t.Fatal(err)
		}
		if strings.HasPrefix(s.name, "children only") {
			delete(want, s.root) // neither cached for the eye nor reported
		}
		recipestest.Eventually(t, s.name+" cache to equal the server", func() (bool, string) {
			d := diff(want, caches[i].Snapshot())
			if p, ok := strings.CutPrefix(d, "missing "); ok {
				p, _, _ = strings.Cut(p, ";")
				_, st, _ := reader.Children(ctx, p[:strings.LastIndex(p, "/")])
				d += fmt.Sprintf(" [%s; server parent pzxid %d]", caches[i].Explain(p), st.Pzxid)
			}
			return d == "" && !caches[i].IsStale(), d
		})
		r := replicas[i]
		recipestest.Eventually(t, s.name+" events to give the cache's content", func() (bool, string) {
			r.mu.Lock()
			defer r.mu.Unlock()
			got := make([]cache.Node, 0, len(r.nodes))
			for _, n := range r.nodes {
				got = append(got, n)
			}
			d := diff(want, got)
			return d == "", d
		})
		r.mu.Lock()
		if len(r.bad) > 0 {
			t.Errorf("%s: %d bad events, first: %s", s.name, len(r.bad), r.bad[0])
		}
		t.Logf("%s: %d nodes, %d re-creates reported", s.name, len(want), r.recreate)
		r.mu.Unlock()
	}
	if replicas[0].recreate == 0 {
		t.Error("the tree cache reported no delete-and-re-create")
	}
	_ = zkharness.OpGetData
}
