package main

import (
	"context"
	"fmt"
	"sync"
	"sync/atomic"
	"time"

	"github.com/gocurator/curator/recipes/barrier"
)

// barrierPart: client 0 sets a barrier.Barrier, the other clients wait on
// it, and client 0 removes it after 50–300 ms, round after round. The
// invariant: no Wait returns (without an error) before the removal began.
// Each waiter syncs its server first: ZooKeeper lets a client connected to
// a follower read the tree before that follower has applied a write another
// client has just had acknowledged, and a Wait that looks then finds no
// barrier and returns (as Curator's DistributedBarrier would).
func (s *soak) barrierPart() part {
	const name = "barrier"
	path := "/soak/barrier"
	var t tally
	return part{
		name: name,
		run: func(ctx context.Context) {
			bs := make([]*barrier.Barrier, len(s.clients))
			for i, c := range s.clients {
				b, err := barrier.NewBarrier(c, path)
				if err != nil {
					s.found(name, err.Error())
					return
				}
				bs[i] = b
			}
			for ctx.Err() == nil {
				s.barrierRound(ctx, path, bs, &t)
				pause(ctx, 100*time.Millisecond, 400*time.Millisecond)
			}
		},
		stats: t.snapshot,
	}
}

// barrierRound is one round: set, wait, remove.
func (s *soak) barrierRound(ctx context.Context, path string, bs []*barrier.Barrier, t *tally) {
	var removing atomic.Bool
	remove := func() {
		removing.Store(true)
		// Remove until it is gone, even once ctx has ended: the next round,
		// or the next run, must find no barrier.
		for range 10 {
			rctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), opTimeout)
			err := bs[0].Remove(rctx)
			cancel()
			if err == nil {
				return
			}
			t.add("remove errors", 1)
		}
	}
	sctx, cancel := context.WithTimeout(ctx, opTimeout)
	err := bs[0].Set(sctx)
	cancel()
	if err != nil {
		t.add("set errors", 1)
		remove() // it may have been set all the same
		return
	}
	t.add("rounds", 1)
	var wg sync.WaitGroup
	for j := 1; j < len(bs); j++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			wctx, cancel := context.WithTimeout(ctx, opTimeout)
			defer cancel()
			err := s.clients[j].Sync(wctx, path)
			if err == nil {
				err = bs[j].Wait(wctx)
			}
			switch {
			case err != nil:
				t.add("wait errors", 1)
			case !removing.Load():
				s.found("barrier", fmt.Sprintf("client %d's Wait returned before the barrier was removed", j))
			default:
				t.add("passes", 1)
			}
		}()
	}
	pause(ctx, 50*time.Millisecond, 300*time.Millisecond)
	remove()
	wg.Wait()
}
