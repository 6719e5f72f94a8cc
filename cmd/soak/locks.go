package main

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/gocurator/curator/recipes/locks"
)

// lockPart is the mutex (limit 1) or the semaphore (limit leases): every
// client loops acquire → a short critical section → release on one lock.
// The invariant: at most limit holds current at once (see exclusion).
func (s *soak) lockPart(name string, limit int) part {
	path := "/soak/" + name
	x := newExclusion(name, limit, s.cfg.grace, &s.checks, s.found)
	var t tally
	return part{
		name: name,
		run: func(ctx context.Context) {
			s.eachClient(ctx, func(ctx context.Context, i int) {
				var acquire func(context.Context) (*locks.Hold, error)
				if limit == 1 {
					m, err := locks.NewMutex(s.clients[i], path)
					if err != nil {
						s.found(name, err.Error())
						return
					}
					acquire = m.Acquire
				} else {
					sem, err := locks.NewSemaphore(s.clients[i], path, limit)
					if err != nil {
						s.found(name, err.Error())
						return
					}
					acquire = sem.Acquire
				}
				for ctx.Err() == nil {
					actx, cancel := context.WithTimeout(ctx, opTimeout)
					h, err := acquire(actx)
					cancel()
					if err != nil {
						if ctx.Err() == nil {
							t.add("acquire errors", 1)
							pause(ctx, 50*time.Millisecond, 200*time.Millisecond)
						}
						continue
					}
					t.add("holds", 1)
					x.enter(i, fmt.Sprintf("client %d's hold %s", i, h.Path()), h.Err)
					pause(ctx, 0, 10*time.Millisecond)
					x.leave(i)
					rctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), opTimeout)
					err = h.Release(rctx)
					cancel()
					switch {
					case errors.Is(err, locks.ErrLockLost):
						t.add("holds lost", 1)
					case err != nil:
						t.add("release errors", 1)
					}
					pause(ctx, 5*time.Millisecond, 40*time.Millisecond)
				}
			})
		},
		finish: func(context.Context) {
			entries, overlaps := x.counts()
			t.add("overlaps judged", overlaps)
			if entries == 0 {
				s.found(name, "no hold in the whole run")
			}
		},
		stats: t.snapshot,
	}
}
