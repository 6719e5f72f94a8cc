package framework_test

import (
	"context"
	"fmt"
	"sync"
	"testing"

	"golang.org/x/sync/errgroup"

	"github.com/gocurator/curator/framework"
	"github.com/gocurator/curator/listener"
	"github.com/gocurator/curator/recipestest"
)

// TestReconnectWithManyWatchesUnderLoad: a client holding thousands of
// watches reconnects again and again while requests are in flight. Under
// -race this is what made go-zookeeper v1.0.4 report a data race between
// building its setWatches request and reading replies (its lastZxid); the
// client holds replies back until setWatches is written. Each reconnect
// must also keep the watches: a change after it still fires one. The
// watches are set once with GetW and once with GetWatched, which keeps no
// Watch value but must still tell the client to hold the replies.
func TestReconnectWithManyWatchesUnderLoad(t *testing.T) {
	t.Run("GetW", func(t *testing.T) {
		reconnectWithManyWatches(t, func(ctx context.Context, c *framework.Client, p string) error {
			_, _, _, err := c.GetW(ctx, p)
			return err
		})
	})
	t.Run("GetWatched", func(t *testing.T) {
		reconnectWithManyWatches(t, func(ctx context.Context, c *framework.Client, p string) error {
			_, _, err := c.GetWatched(ctx, p)
			return err
		})
	})
}

func reconnectWithManyWatches(t *testing.T, watch func(context.Context, *framework.Client, string) error) {
	const watches, reconnects = 3000, 5
	proxy := recipestest.StartProxy(t, server.Addr())
	ns := framework.WithNamespace(recipestest.Namespace(t))
	c, log := startClient(t, proxy.Addr(), ns)
	w := newClientAt(t, server.Addr(), ns)
	ctx, cancel := context.WithCancel(ctxT(t))
	defer cancel()
	g, gctx := errgroup.WithContext(ctx)
	g.SetLimit(64)
	for i := range watches {
		g.Go(func() error {
			p := fmt.Sprintf("/w/n%04d", i)
			if _, err := w.Create(gctx, p, nil, framework.WithParents()); err != nil {
				return err
			}
			return watch(gctx, c, p)
		})
	}
	if err := g.Wait(); err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	defer wg.Wait()
	for range 8 { // requests in flight at every reconnect
		wg.Add(1)
		go func() {
			defer wg.Done()
			for ctx.Err() == nil {
				c.Exists(ctx, "/w")
			}
		}()
	}
	for i := range reconnects {
		proxy.DropAll()
		log.wait(t, fmt.Sprintf("reconnect %d", i+1), func(s []listener.ConnectionState) bool {
			return count(s, listener.Reconnected) == i+1
		})
	}
	fired := make(chan framework.WatchEvent, 1)
	remove, err := c.AddWatchListener("/w/n0002", func(ev framework.WatchEvent) { fired <- ev })
	if err != nil {
		t.Fatal(err)
	}
	defer remove()
	if _, err := w.Set(ctx, "/w/n0002", []byte("x"), -1); err != nil { // watched since before the reconnects
		t.Fatal(err)
	}
	select {
	case ev := <-fired:
		if ev.Type != framework.EventNodeDataChanged {
			t.Fatalf("the watch set before the reconnects fired %+v", ev)
		}
	case <-ctx.Done():
		t.Fatal("the watch set before the reconnects did not fire")
	}
	cancel()
}

func count(states []listener.ConnectionState, s listener.ConnectionState) int {
	n := 0
	for _, x := range states {
		if x == s {
			n++
		}
	}
	return n
}
