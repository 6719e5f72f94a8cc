package main

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"time"

	"github.com/gocurator/curator/recipes/queue"
)

// queuePart: every client runs a lock-safe queue.Queue (Curator's
// DistributedQueue with a lockPath) on one queue, putting items named
// after it ("c<client>-<n>") and consuming everyone's. At the end the
// producers stop, the queue must drain within cfg.settle, and every item
// whose Put returned nil must have been consumed (at least once: a
// lock-safe queue hands an item out again if its consumer's lock may be
// gone).
func (s *soak) queuePart() part {
	const name = "queue"
	path, lockPath := "/soak/queue", "/soak/queue-locks"
	log := newItemLog(len(s.clients))
	var (
		t       tally
		quiet   = make(chan struct{}) // settle: the producers stop
		putting sync.RWMutex          // held shared by each Put, from before quiet is looked at
		mu      sync.Mutex
		qs      []*queue.Queue[string]
	)
	consume := func(ctx context.Context, item string) error {
		if ctx.Err() != nil {
			return ctx.Err() // the item's lock may be gone: leave it
		}
		var c, n int
		if _, err := fmt.Sscanf(item, "c%d-%d", &c, &n); err != nil || !log.consumed(c, n) {
			s.found(name, fmt.Sprintf("consumed %q, which no producer put", item))
		}
		t.add("consumed", 1)
		return nil
	}
	return part{
		name: name,
		run: func(ctx context.Context) {
			s.eachClient(ctx, func(ctx context.Context, i int) {
				q, err := queue.New(s.clients[i], path, queue.String{}, consume, queue.WithLockPath(lockPath))
				if err != nil {
					s.found(name, err.Error())
					return
				}
				for {
					err = q.Start(ctx) // ctx is the queue's lifetime
					if err == nil || ctx.Err() != nil {
						break
					}
					t.add("start errors", 1)
					if q, err = queue.New(s.clients[i], path, queue.String{}, consume, queue.WithLockPath(lockPath)); err != nil {
						s.found(name, err.Error())
						return
					}
					pause(ctx, 100*time.Millisecond, 300*time.Millisecond)
				}
				mu.Lock()
				qs = append(qs, q)
				mu.Unlock()
				for n := 0; ; n++ {
					putting.RLock()
					select {
					case <-ctx.Done():
						putting.RUnlock()
						return
					case <-quiet:
						putting.RUnlock()
						return
					default:
					}
					pctx, cancel := context.WithTimeout(ctx, opTimeout)
					err := q.Put(pctx, fmt.Sprintf("c%d-%d", i, n))
					cancel()
					log.put(i, n, err == nil)
					putting.RUnlock()
					if err != nil {
						t.add("put errors", 1)
					} else {
						t.add("puts", 1)
					}
					pause(ctx, 25*time.Millisecond, 75*time.Millisecond)
				}
			})
		},
		settle: func(ctx context.Context) {
			close(quiet)
			deadline := time.Now().Add(s.cfg.settle)
			// A Put under way when the producers were told to stop may
			// make its item after the queue was first seen empty: wait
			// for the Puts to return (each within opTimeout) before
			// judging the drain (a put whose item the consumers never
			// saw was counted lost).
			putting.Lock()
			//lint:ignore SA2001 the wait for the Puts' read locks is the point
			putting.Unlock()
			for {
				cctx, cancel := context.WithTimeout(ctx, 10*time.Second)
				kids, _, err := s.admin.Children(cctx, path)
				cancel()
				if err == nil && len(kids) == 0 {
					return
				}
				if time.Now().After(deadline) || ctx.Err() != nil {
					s.found(name, fmt.Sprintf("the queue still held %d items (%v) %v after the producers stopped", len(kids), err, s.cfg.settle))
					return
				}
				time.Sleep(100 * time.Millisecond)
			}
		},
		finish: func(context.Context) {
			for _, q := range qs {
				q.Close()
			}
			lost, dup := log.check()
			t.add("consumed more than once", int64(dup))
			if len(lost) > 0 {
				s.found(name, fmt.Sprintf("%d items put (acknowledged) were never consumed: %s", len(lost), strings.Join(lost[:min(len(lost), 5)], ", ")))
			}
		},
		stats: t.snapshot,
	}
}

// itemLog records, per producer, which items were acknowledged and which
// consumed, in two bits an item, so that a long run's log stays small.
type itemLog struct {
	mu    sync.Mutex
	acked [][]uint64 // by producer, a bit per item number
	taken [][]uint64
	dups  int
}

func newItemLog(producers int) *itemLog {
	return &itemLog{acked: make([][]uint64, producers), taken: make([][]uint64, producers)}
}

// put records item n of producer c put, acknowledged or not.
func (l *itemLog) put(c, n int, acked bool) {
	if !acked {
		return
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	setBit(&l.acked[c], n)
}

// consumed records item n of producer c consumed; false if there is no
// such producer.
func (l *itemLog) consumed(c, n int) bool {
	l.mu.Lock()
	defer l.mu.Unlock()
	if c < 0 || c >= len(l.taken) || n < 0 {
		return false
	}
	if hasBit(l.taken[c], n) {
		l.dups++
	}
	setBit(&l.taken[c], n)
	return true
}

// check returns the items acknowledged but never consumed, and how many
// consumptions were repeats.
func (l *itemLog) check() (lost []string, dups int) {
	l.mu.Lock()
	defer l.mu.Unlock()
	for c, bits := range l.acked {
		for n := range len(bits) * 64 {
			if hasBit(bits, n) && !hasBit(l.taken[c], n) {
				lost = append(lost, fmt.Sprintf("c%d-%d", c, n))
			}
		}
	}
	return lost, l.dups
}

func setBit(bits *[]uint64, n int) {
	for len(*bits) <= n/64 {
		*bits = append(*bits, 0)
	}
	(*bits)[n/64] |= 1 << (n % 64)
}

func hasBit(bits []uint64, n int) bool {
	return n/64 < len(bits) && bits[n/64]&(1<<(n%64)) != 0
}
