package harness

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/gocurator/curator/recipes/cache"
	"github.com/gocurator/curator/zkharness"
)

// The propagation workload's Go subscribers: gocurator's node cache, tree
// cache and WatchData, and the floor. Each subscriber has a session of its
// own, counted on the wire.

// openSubscribers opens m subscribers with start, closing what it opened if
// one fails.
// Each is stamped with the moment its latest notification was read off
// its connection.
func openSubscribers(m int, start func(i int, stamp *wireStamps) (cnt *zkharness.Counter, stop func(), err error)) (*subscription, error) {
	sub := &subscription{}
	var stops []func()
	sub.close = func() {
		for _, stop := range stops {
			stop()
		}
	}
	for i := range m {
		stamp := new(wireStamps)
		cnt, stop, err := start(i, stamp)
		if err != nil {
			sub.close()
			return nil, err
		}
		sub.counters = append(sub.counters, cnt)
		sub.notified = append(sub.notified, stamp.lastNotifiedMono)
		stops = append(stops, stop)
	}
	return sub, nil
}

// openCache opens m gocurator caches of path made with opts; each tells
// seen of every Created and Changed event of cfg.
func openCache(e env, path, cfg string, m int, seen seenFunc, opts ...cache.Option) (*subscription, error) {
	return openSubscribers(m, func(i int, stamp *wireStamps) (*zkharness.Counter, func(), error) {
		s, err := connectGo(e.addr, stamp.dialer)
		if err != nil {
			return nil, nil, err
		}
		gs := s.(*goSession)
		c, err := cache.New(gs.c, path, opts...)
		if err == nil {
			_, err = c.AddListener(func(ev cache.Event) {
				if (ev.Type == cache.Changed || ev.Type == cache.Created) && ev.Path == cfg {
					seen(i, string(ev.Node.Data), mono())
				}
			})
		}
		if err == nil {
			err = c.Start(context.Background())
		}
		if err == nil {
			select {
			case <-c.Initialized():
			case <-time.After(propagationWait):
				c.Close()
				err = fmt.Errorf("cache of %s not initialized within %v", path, propagationWait)
			}
		}
		if err != nil {
			s.close()
			return nil, nil, err
		}
		return gs.cnt, func() { c.Close(); s.close() }, nil
	})
}

// openNodeCache: cache.New on the config node with WithMaxDepth(0),
// Curator's NodeCache.
func openNodeCache(e env, _, cfg string, m int, seen seenFunc) (*subscription, error) {
	return openCache(e, cfg, cfg, m, seen, cache.WithMaxDepth(0))
}

// openTreeCache: cache.New on the config node's parent, a tree cache
// (Curator's CuratorCache and TreeCache).
func openTreeCache(e env, base, cfg string, m int, seen seenFunc) (*subscription, error) {
	return openCache(e, base, cfg, m, seen)
}

// openWatchData: cache.WatchData on the config node, Kazoo's DataWatch.
func openWatchData(e env, _, cfg string, m int, seen seenFunc) (*subscription, error) {
	return openSubscribers(m, func(i int, stamp *wireStamps) (*zkharness.Counter, func(), error) {
		s, err := connectGo(e.addr, stamp.dialer)
		if err != nil {
			return nil, nil, err
		}
		gs := s.(*goSession)
		// The watcher's context is its lifetime: the first read is bounded
		// by a timer that cancels it, stopped once that read is done.
		ctx, cancel := context.WithCancel(context.Background())
		timer := time.AfterFunc(propagationWait, cancel)
		w, err := cache.WatchData(ctx, gs.c, cfg, func(n cache.Node, exists bool, _ int) {
			if exists {
				seen(i, string(n.Data), mono())
			}
		})
		if err == nil && !timer.Stop() {
			w.Close()
			err = fmt.Errorf("watch of %s not set within %v", cfg, propagationWait)
		}
		if err != nil {
			cancel()
			s.close()
			return nil, nil, err
		}
		return gs.cnt, func() { w.Close(); cancel(); s.close() }, nil
	})
}

// openFloor is the protocol's floor in bare go-zookeeper calls: getData
// with a watch, and on its notification getData with a watch again. One
// notification and one read per subscriber per update.
func openFloor(e env, _, cfg string, m int, seen seenFunc) (*subscription, error) {
	return openSubscribers(m, func(i int, stamp *wireStamps) (*zkharness.Counter, func(), error) {
		s, err := connectZKWith(e.addr, true, stamp.dialer)
		if err != nil {
			return nil, nil, err
		}
		zs := s.(*zkSession)
		stop := make(chan struct{})
		first := make(chan error, 1)
		var wg sync.WaitGroup
		wg.Add(1)
		go func() {
			defer wg.Done()
			for started := false; ; started = true {
				data, _, w, err := zs.conn.GetW(cfg)
				at := mono()
				if !started {
					first <- err
				}
				if err != nil {
					return
				}
				seen(i, string(data), at)
				select {
				case <-w:
				case <-stop:
					return
				}
			}
		}()
		halt := func() { close(stop); zs.close(); wg.Wait() }
		if err := <-first; err != nil {
			halt()
			return nil, nil, errors.Join(errors.New("floor subscriber's first read"), err)
		}
		return zs.cnt, halt, nil
	})
}
