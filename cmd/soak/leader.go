package main

import (
	"context"
	"fmt"
	"math/rand/v2"
	"time"

	"github.com/gocurator/curator/recipes/leader"
)

// latchPart: every client keeps a leader.Latch in one election. A leader
// steps down (closes its latch) after a random term and joins again with a
// new latch; a follower whose wait times out sometimes does the same, so
// latches are made and closed all run long. The invariant: at most one
// term current at once (see exclusion).
func (s *soak) latchPart() part {
	const name = "latch"
	path := "/soak/latch"
	x := newExclusion(name, 1, s.cfg.grace, &s.checks, s.found)
	var t tally
	return part{
		name: name,
		run: func(ctx context.Context) {
			s.eachClient(ctx, func(ctx context.Context, i int) {
				for ctx.Err() == nil {
					l, err := leader.NewLatch(s.clients[i], path, leader.WithID(fmt.Sprintf("client-%d", i)))
					if err != nil {
						s.found(name, err.Error())
						return
					}
					if err := l.Start(ctx); err != nil { // ctx is the latch's lifetime
						t.add("start errors", 1)
						l.Close()
						pause(ctx, 100*time.Millisecond, 300*time.Millisecond)
						continue
					}
					t.add("latches", 1)
					s.leadWithLatch(ctx, i, l, x, &t)
					if err := l.Close(); err != nil {
						t.add("close errors", 1)
					}
				}
			})
		},
		finish: func(context.Context) {
			if entries, _ := x.counts(); entries == 0 {
				s.found(name, "no term in the whole run")
			}
		},
		stats: t.snapshot,
	}
}

// leadWithLatch waits for l's terms until the client steps down (after a
// term of 0.2–2 s) or gives up waiting (sometimes, after 1–4 s), or ctx
// ends.
func (s *soak) leadWithLatch(ctx context.Context, i int, l *leader.Latch, x *exclusion, t *tally) {
	for ctx.Err() == nil {
		actx, cancel := context.WithTimeout(ctx, time.Second+time.Duration(rand.Int64N(int64(3*time.Second))))
		term, err := l.Await(actx)
		cancel()
		if err != nil {
			if ctx.Err() == nil && rand.IntN(3) == 0 {
				return // a follower leaves, and joins again with a new latch
			}
			continue
		}
		t.add("terms", 1)
		x.enter(i, fmt.Sprintf("client %d's latch term %s", i, term.Node()), term.Err)
		steppedDown := false
		select {
		case <-term.Done():
			t.add("terms ended by the connection", 1)
		case <-time.After(200*time.Millisecond + time.Duration(rand.Int64N(int64(1800*time.Millisecond)))):
			steppedDown = true
		case <-ctx.Done():
		}
		x.leave(i)
		if steppedDown {
			return
		}
	}
}

// selectorPart: every client has a leader.Selector with auto-requeue in
// one election; its leadership function leads for 10–100 ms and returns.
// Each selector is closed after 5–20 s and another made. The invariant: at
// most one function leading at once (see exclusion).
func (s *soak) selectorPart() part {
	const name = "selector"
	path := "/soak/selector"
	x := newExclusion(name, 1, s.cfg.grace, &s.checks, s.found)
	var t tally
	return part{
		name: name,
		run: func(ctx context.Context) {
			s.eachClient(ctx, func(ctx context.Context, i int) {
				fn := func(fctx context.Context, l *leader.Leadership) error {
					t.add("terms", 1)
					x.enter(i, fmt.Sprintf("client %d's selector term %s", i, l.Node()), l.Err)
					defer x.leave(i)
					pause(fctx, 10*time.Millisecond, 100*time.Millisecond)
					if fctx.Err() != nil {
						t.add("terms ended early", 1)
					}
					return nil
				}
				for ctx.Err() == nil {
					sel, err := leader.NewSelector(s.clients[i], path, fn, leader.WithAutoRequeue(), leader.WithID(fmt.Sprintf("client-%d", i)))
					if err != nil {
						s.found(name, err.Error())
						return
					}
					if err := sel.Start(ctx); err != nil { // ctx is the selector's lifetime
						t.add("start errors", 1)
						sel.Close()
						pause(ctx, 100*time.Millisecond, 300*time.Millisecond)
						continue
					}
					t.add("selectors", 1)
					pause(ctx, 5*time.Second, 20*time.Second)
					if err := sel.Close(); err != nil {
						t.add("close errors", 1)
					}
				}
			})
		},
		finish: func(context.Context) {
			if entries, _ := x.counts(); entries == 0 {
				s.found(name, "no term in the whole run")
			}
		},
		stats: t.snapshot,
	}
}
