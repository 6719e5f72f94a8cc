package main

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"math/rand/v2"
	"time"

	"github.com/gocurator/curator/framework"
	"github.com/gocurator/curator/recipes/atomic"
	"github.com/gocurator/curator/recipes/shared"
	"github.com/gocurator/curator/retry"
)

// countPart: every client keeps a shared.Count of one node and adds one to
// it with TrySet at the value it last saw, again after a conflict. The
// invariant, at the end: the node's value lies between the increments
// acknowledged and those plus the ones whose outcome is unknown (TrySet
// returned an error: the write may have been applied).
func (s *soak) countPart() part {
	const name = "shared count"
	path := "/soak/count"
	var t tally
	return part{
		name: name,
		run: func(ctx context.Context) {
			s.eachClient(ctx, func(ctx context.Context, i int) {
				for ctx.Err() == nil {
					c, err := shared.NewCount(s.clients[i], path, 0)
					if err != nil {
						s.found(name, err.Error())
						return
					}
					if err := c.Start(ctx); err != nil { // ctx is the count's lifetime
						t.add("start errors", 1)
						c.Close()
						pause(ctx, 100*time.Millisecond, 300*time.Millisecond)
						continue
					}
					t.add("counts", 1)
					s.increment(ctx, c, &t)
					c.Close()
				}
			})
		},
		finish: func(ctx context.Context) {
			data, err := s.read(ctx, path)
			if err != nil || len(data) != 4 {
				s.found(name, fmt.Sprintf("reading the count: %v (%d bytes)", err, len(data)))
				return
			}
			checkTotal(s, name, int64(int32(binary.BigEndian.Uint32(data))), t.get("increments"), t.get("unknown outcomes"))
		},
		stats: t.snapshot,
	}
}

// increment adds one to c over and over, for 10–60 s (then the caller makes
// another Count) or until ctx ends.
func (s *soak) increment(ctx context.Context, c *shared.Count, t *tally) {
	until := time.Now().Add(10*time.Second + time.Duration(float64(50*time.Second)*rand.Float64()))
	for ctx.Err() == nil && time.Now().Before(until) {
		v := c.Get()
		tctx, cancel := context.WithTimeout(ctx, opTimeout)
		ok, err := c.TrySet(tctx, v, v.Value+1)
		cancel()
		switch {
		case err != nil:
			t.add("unknown outcomes", 1)
			pause(ctx, 50*time.Millisecond, 200*time.Millisecond)
		case ok:
			t.add("increments", 1)
			pause(ctx, 10*time.Millisecond, 50*time.Millisecond)
		default:
			t.add("conflicts", 1)
		}
	}
}

// atomicPart: every client increments one atomic.Int64 (optimistic, with a
// retry policy). The invariant, at the end: the node's value lies between
// the increments that succeeded and those plus the ones whose outcome is
// unknown (an error wrapping framework.ErrOutcomeUnknown); any other error
// means nothing was applied.
func (s *soak) atomicPart() part {
	const name = "atomic long"
	path := "/soak/atomic"
	var t tally
	return part{
		name: name,
		run: func(ctx context.Context) {
			s.eachClient(ctx, func(ctx context.Context, i int) {
				n, err := atomic.NewInt64(s.clients[i], path, retry.RetryNTimes(50, 5*time.Millisecond))
				if err != nil {
					s.found(name, err.Error())
					return
				}
				for ctx.Err() == nil {
					ictx, cancel := context.WithTimeout(ctx, opTimeout)
					res, err := n.Increment(ictx)
					cancel()
					switch {
					case errors.Is(err, framework.ErrOutcomeUnknown):
						t.add("unknown outcomes", 1)
					case err != nil:
						t.add("errors", 1)
					case res.Succeeded:
						t.add("increments", 1)
					default:
						t.add("gave up", 1)
					}
					pause(ctx, 10*time.Millisecond, 50*time.Millisecond)
				}
			})
		},
		finish: func(ctx context.Context) {
			data, err := s.read(ctx, path)
			if err != nil || len(data) != 8 {
				s.found(name, fmt.Sprintf("reading the value: %v (%d bytes)", err, len(data)))
				return
			}
			checkTotal(s, name, int64(binary.BigEndian.Uint64(data)), t.get("increments"), t.get("unknown outcomes"))
		},
		stats: t.snapshot,
	}
}

// checkTotal reports a count outside [done, done+unknown].
func checkTotal(s *soak, part string, value, done, unknown int64) {
	if value < done || value > done+unknown {
		s.found(part, fmt.Sprintf("the node holds %d after %d increments acknowledged and %d of unknown outcome", value, done, unknown))
	}
}

// read reads path's data through the admin client.
func (s *soak) read(ctx context.Context, path string) ([]byte, error) {
	ctx, cancel := context.WithTimeout(ctx, time.Minute)
	defer cancel()
	if err := s.admin.Sync(ctx, path); err != nil {
		return nil, err
	}
	data, _, err := s.admin.Get(ctx, path)
	return data, err
}
