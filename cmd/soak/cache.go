package main

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/gocurator/curator/framework"
	"github.com/gocurator/curator/recipes/cache"
)

// cacheTreeSize is how many children the cached tree's writer keeps.
const cacheTreeSize = 10

// cachePart: every client keeps a cache.Cache of one tree, which the admin
// client changes all the time (sets data, deletes and re-creates children
// and a grandchild). Every 15 s the writer sets a marker node to a new
// value and every cache must show it within cfg.settle (caches converge);
// each time one client's cache is closed and replaced (caches come and go
// all run long). At the end, with the writer stopped, every cache must hold
// exactly the server's tree. The odd clients' caches keep in sync by a
// persistent watch: a replacement's new cache holds it before the old one
// gives it up.
func (s *soak) cachePart() part {
	const name = "cache"
	root := "/soak/tree"
	marker := root + "/marker"
	var (
		t      tally
		mu     sync.Mutex
		caches = make([]*cache.Cache, len(s.clients))
		quiet  = make(chan struct{}) // settle: the writer stops
		wrote  = make(chan struct{}) // closed when the writer has stopped
	)
	newCache := func(ctx context.Context, i int) {
		var opts []cache.Option
		if i%2 == 0 { // half the clients keep theirs by a one-shot watch per node, the others by one persistent watch
			opts = append(opts, cache.WithOneShotWatches())
		}
		c, err := cache.New(s.clients[i], root, opts...)
		if err == nil {
			err = c.Start(ctx) // ctx is the cache's lifetime: the workload's
		}
		if err != nil {
			s.found(name, fmt.Sprintf("client %d: %v", i, err))
			return
		}
		mu.Lock()
		old := caches[i]
		caches[i] = c
		mu.Unlock()
		if old != nil {
			old.Close()
		}
		t.add("caches", 1)
	}
	round := 0
	// check sets the marker to a new value and waits until every cache
	// shows it.
	check := func(ctx context.Context) {
		round++
		want := []byte("m" + strconv.Itoa(round))
		if err := setOrCreate(ctx, s.admin, marker, want); err != nil {
			t.add("marker errors", 1)
			return
		}
		deadline := time.Now().Add(s.cfg.settle)
		for i := range caches {
			for {
				mu.Lock()
				c := caches[i]
				mu.Unlock()
				if n, ok := c.Get(marker); ok && bytes.Equal(n.Data, want) {
					break
				}
				if time.Now().After(deadline) || ctx.Err() != nil {
					n, _ := c.Get(marker)
					s.found(name, fmt.Sprintf("client %d's cache shows the marker as %q, not %q, %v after it was set (stale: %v)", i, n.Data, want, s.cfg.settle, c.IsStale()))
					break
				}
				time.Sleep(20 * time.Millisecond)
			}
		}
		t.add("converged checks", 1)
	}
	return part{
		name: name,
		run: func(ctx context.Context) {
			if err := setOrCreate(ctx, s.admin, root, nil); err != nil {
				s.found(name, "making the tree: "+err.Error())
				return
			}
			for i := range caches {
				newCache(ctx, i)
			}
			defer close(wrote)
			next := time.Now().Add(15 * time.Second)
			for n := 0; ; n++ {
				select {
				case <-ctx.Done():
					return
				case <-quiet:
					return
				default:
				}
				if time.Now().After(next) {
					check(ctx)
					newCache(ctx, round%len(caches))
					next = time.Now().Add(15 * time.Second)
				}
				if err := s.changeTree(ctx, root, n); err != nil && ctx.Err() == nil {
					t.add("write errors", 1)
				} else {
					t.add("writes", 1)
				}
				pause(ctx, 10*time.Millisecond, 40*time.Millisecond)
			}
		},
		settle: func(ctx context.Context) {
			close(quiet)
			<-wrote
			check(ctx)
			want, err := readTree(ctx, s.admin, root)
			if err != nil {
				s.found(name, "reading the tree: "+err.Error())
				return
			}
			for i, c := range caches {
				if c == nil {
					continue
				}
				got := make(map[string]string)
				for _, n := range c.Snapshot() {
					got[n.Path] = string(n.Data)
				}
				if d := diffTrees(want, got); d != "" {
					s.found(name, fmt.Sprintf("client %d's cache differs from the server's tree: %s", i, d))
				}
			}
		},
		finish: func(context.Context) {
			for _, c := range caches {
				if c != nil {
					c.Close()
				}
			}
		},
		stats: t.snapshot,
	}
}

// changeTree makes one change to the tree under root: mostly a child's
// data set, sometimes a child deleted (with its grandchild) or made again,
// or a grandchild made.
func (s *soak) changeTree(ctx context.Context, root string, n int) error {
	ctx, cancel := context.WithTimeout(ctx, opTimeout)
	defer cancel()
	child := fmt.Sprintf("%s/c%d", root, rand.IntN(cacheTreeSize))
	data := []byte(strconv.Itoa(n))
	switch r := rand.IntN(20); {
	case r == 0:
		err := s.admin.Delete(ctx, child, framework.WithChildren())
		if errors.Is(err, framework.ErrNoNode) {
			return nil
		}
		return err
	case r == 1:
		_, err := s.admin.Create(ctx, child+"/g", data, framework.WithParents())
		if errors.Is(err, framework.ErrNodeExists) {
			return nil
		}
		return err
	default:
		return setOrCreate(ctx, s.admin, child, data)
	}
}

// setOrCreate sets path's data, making the node if it is missing.
func setOrCreate(ctx context.Context, c *framework.Client, path string, data []byte) error {
	ctx, cancel := context.WithTimeout(ctx, opTimeout)
	defer cancel()
	_, err := c.Set(ctx, path, data, -1)
	if errors.Is(err, framework.ErrNoNode) {
		_, err = c.Create(ctx, path, data, framework.WithParents())
		if errors.Is(err, framework.ErrNodeExists) {
			_, err = c.Set(ctx, path, data, -1)
		}
	}
	return err
}

// readTree reads every node under root, root included: path → data.
func readTree(ctx context.Context, c *framework.Client, root string) (map[string]string, error) {
	ctx, cancel := context.WithTimeout(ctx, time.Minute)
	defer cancel()
	if err := c.Sync(ctx, root); err != nil {
		return nil, err
	}
	out := make(map[string]string)
	var walk func(path string) error
	walk = func(path string) error {
		data, _, err := c.Get(ctx, path)
		if errors.Is(err, framework.ErrNoNode) {
			return nil
		}
		if err != nil {
			return err
		}
		out[path] = string(data)
		kids, _, err := c.Children(ctx, path)
		if err != nil && !errors.Is(err, framework.ErrNoNode) {
			return err
		}
		for _, k := range kids {
			if err := walk(path + "/" + k); err != nil {
				return err
			}
		}
		return nil
	}
	return out, walk(root)
}

// diffTrees describes how got differs from want ("" if it does not), at
// most a few differences.
func diffTrees(want, got map[string]string) string {
	var d []string
	for p, v := range want {
		if g, ok := got[p]; !ok {
			d = append(d, p+" missing")
		} else if g != v {
			d = append(d, fmt.Sprintf("%s is %q, not %q", p, g, v))
		}
	}
	for p := range got {
		if _, ok := want[p]; !ok {
			d = append(d, p+" should not be there")
		}
	}
	if len(d) > 5 {
		d = append(d[:5], fmt.Sprintf("and %d more", len(d)-5))
	}
	return strings.Join(d, "; ")
}
