package main

import (
	"context"
	"maps"
	"math/rand/v2"
	"sync"
	"time"
)

// A part is one recipe's workload in the soak: its run loops on every
// client until ctx ends; settle, if set, runs after the faults and before
// run's ctx ends (for checks that need the workload quiet but its recipes
// up); finish, after run has returned, makes its final checks. Each reports
// broken invariants with soak.found.
type part struct {
	name   string
	run    func(ctx context.Context)
	settle func(ctx context.Context)
	finish func(ctx context.Context)
	stats  func() map[string]int64
}

// parts returns every recipe's part.
func (s *soak) parts() []part {
	ps := []part{
		s.lockPart("mutex", 1), s.lockPart("semaphore", 2),
		s.latchPart(), s.selectorPart(),
		s.cachePart(), s.countPart(), s.atomicPart(), s.queuePart(),
	}
	if len(s.clients) >= 2 {
		ps = append(ps, s.barrierPart())
	}
	return ps
}

// tally is a part's named counts.
type tally struct {
	mu sync.Mutex
	n  map[string]int64
}

func (t *tally) add(name string, d int64) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.n == nil {
		t.n = make(map[string]int64)
	}
	t.n[name] += d
}

func (t *tally) get(name string) int64 {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.n[name]
}

func (t *tally) snapshot() map[string]int64 {
	t.mu.Lock()
	defer t.mu.Unlock()
	return maps.Clone(t.n)
}

// eachClient runs fn for every client on a goroutine of its own and waits
// for all of them.
func (s *soak) eachClient(ctx context.Context, fn func(ctx context.Context, i int)) {
	var wg sync.WaitGroup
	for i := range s.clients {
		wg.Add(1)
		go func() {
			defer wg.Done()
			fn(ctx, i)
		}()
	}
	wg.Wait()
}

// pause sleeps a random time in [lo, hi), or until ctx ends.
func pause(ctx context.Context, lo, hi time.Duration) {
	sleep(ctx, lo+time.Duration(rand.Int64N(int64(hi-lo)+1)))
}

// opTimeout bounds one request-level operation of a part (a put, an
// increment, a release): long enough to ride through a member's restart.
const opTimeout = 20 * time.Second
