package harness

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	pathpkg "path"
	"slices"
	"sync"
	"time"

	"github.com/go-zookeeper/zk"

	"github.com/gocurator/curator/framework"
	"github.com/gocurator/curator/recipes/atomic"
	"github.com/gocurator/curator/retry"
)

// The atomic workload (recipes/atomic's Int64, Curator's
// DistributedAtomicLong): the counter workload's shape, counterClients
// clients adding one to a 64-bit count held as 8 big-endian bytes, each
// increment tried optimistically (getData, then setData at its version)
// and again at once after a conflict. A cycle is one successful increment;
// an increment the node does not account for is a violation. The promoted
// rows (gocurator-promoted, curator-promoted) try twice optimistically and
// then under a lock (Curator's PromotedToLock), on a node of their own.

// atomicTries is the optimistic policy of both sides: try again at once,
// practically for ever (Curator's RetryNTimes(1000, 0)); the promoted
// rows' policy under the lock too.
var atomicTries = retry.RetryNTimes(1000, 0)

// atomicPromotedTries is the promoted rows' optimistic policy: two tries
// (Curator's RetryNTimes(1, 0)), then the lock.
var atomicPromotedTries = retry.RetryNTimes(1, 0)

// promotedGo is gocurator's promoted row: an Int64 WithPromotion.
type promotedGo struct{ curatorGo }

func (promotedGo) name() string { return "gocurator-promoted" }

// atomicRowOf returns im's row, if it has one: gocurator (plain and
// promoted) and the floor.
func atomicRowOf(im impl) (counterRow, bool) {
	switch im.(type) {
	case curatorGo:
		return counterRow{name: im.name(), connect: im.connect, open: openAtomic, read: readAtomicGo}, true
	case promotedGo:
		var p promotions
		return counterRow{name: im.name(), connect: im.connect, open: p.open, read: readAtomicGo, report: p.report}, true
	case floor:
		return counterRow{name: im.name(), connect: im.connect, open: openFloorAtomic, read: readAtomicZK}, true
	}
	return counterRow{}, false
}

// atomicImpls returns the implementations of ims with an atomic row, and
// gocurator's promoted row with gocurator's.
func atomicImpls(ims []impl) []impl {
	var out []impl
	for _, im := range ims {
		if _, ok := atomicRowOf(im); ok {
			out = append(out, im)
		}
		if _, ok := im.(curatorGo); ok {
			out = append(out, promotedGo{})
		}
	}
	return out
}

// atomicPeers returns the peers of the atomic workload: with Curator, its
// promoted row too, in the same run.
func atomicPeers(ps []peer) []peer {
	out := slices.Clone(ps)
	for _, p := range ps {
		if p.name == "curator" {
			out = append(out, peer{"curator-promoted", func(w string) bool { return w == "atomic" },
				func(e env, _ string, _ []string) []result { return runCurator(e, "atomic-promoted", nil) }})
		}
	}
	return out
}

// runAtomic is one turn of the atomic workload for a Go implementation.
func runAtomic(e env, im impl) result {
	row, ok := atomicRowOf(im)
	if !ok {
		return result{Impl: im.name(), Workload: "atomic", Error: "not supported"}
	}
	return runCounterRow(e, "atomic", row, "/bench/"+row.name+"/atomic")
}

// openAtomic is gocurator's client: an atomic.Int64 per session, and the
// loop a user writes: Increment until it succeeds. Its conflicts are its
// tries beyond the first.
func openAtomic(ctx context.Context, s session, path string) (incrementer, func(), error) {
	c := s.(*goSession).c
	l, err := atomic.NewInt64(c, path, atomicTries)
	if err != nil {
		return nil, nil, err
	}
	if _, err := l.Initialize(ctx, 0); err != nil {
		return nil, nil, err
	}
	inc := func(ctx context.Context) (int64, error) {
		var conflicts int64
		for {
			res, err := l.Increment(ctx)
			conflicts += int64(res.Stats.OptimisticTries - 1)
			if err != nil || res.Succeeded {
				return conflicts, err
			}
			conflicts++ // the last try of an increment that ran out of tries
		}
	}
	return inc, func() {}, nil
}

// promotions counts what the promoted row's increments did, over all its
// clients.
type promotions struct {
	mu                              sync.Mutex
	increments, promoted, lockTries int64
	promotedTime                    time.Duration
}

// open is openAtomic with a promotion to a lock at path-lock: two
// optimistic tries, then tries under the lock.
func (p *promotions) open(ctx context.Context, s session, path string) (incrementer, func(), error) {
	c := s.(*goSession).c
	l, err := atomic.NewInt64(c, path, atomicPromotedTries, atomic.WithPromotion(atomic.Promotion{LockPath: path + "-lock", Retry: atomicTries}))
	if err != nil {
		return nil, nil, err
	}
	if _, err := l.Initialize(ctx, 0); err != nil {
		return nil, nil, err
	}
	inc := func(ctx context.Context) (int64, error) {
		var conflicts, lockTries int64
		var promotedTime time.Duration
		defer func() {
			p.mu.Lock()
			p.increments++
			p.lockTries += lockTries
			if promotedTime > 0 || lockTries > 0 {
				p.promoted++
				p.promotedTime += promotedTime
			}
			p.mu.Unlock()
		}()
		for {
			res, err := l.Increment(ctx)
			conflicts += int64(res.Stats.OptimisticTries + res.Stats.PromotedTries - 1)
			lockTries += int64(res.Stats.PromotedTries)
			promotedTime += res.Stats.PromotedTime
			if err != nil || res.Succeeded {
				return conflicts, err
			}
			conflicts++ // the last try of an increment that ran out of tries
		}
	}
	return inc, func() {}, nil
}

// report puts how many increments were promoted, and the tries under the
// lock, in r.
func (p *promotions) report(r *result) {
	p.mu.Lock()
	defer p.mu.Unlock()
	r.Notes = "Int64 with RetryNTimes(1, 0), WithPromotion with RetryNTimes(1000, 0)"
	if p.increments > 0 {
		r.Promoted, r.LockTries = float64(p.promoted)/float64(p.increments), float64(p.lockTries)/float64(p.increments)
	}
	if p.promoted > 0 {
		r.PromotedMs = float64(p.promotedTime.Microseconds()) / 1000 / float64(p.promoted)
	}
}

func readAtomicGo(ctx context.Context, s session, path string) (int64, error) {
	data, _, err := s.(*goSession).c.Get(ctx, path)
	if err != nil {
		return 0, err
	}
	return decodeLong(data)
}

// openFloorAtomic is the protocol in bare go-zookeeper calls: getData for
// the count and its version, then setData at that version; a refused
// setData (ErrBadVersion) starts again with getData.
func openFloorAtomic(_ context.Context, s session, path string) (incrementer, func(), error) {
	conn := s.(*zkSession).conn
	ensureDir(conn, pathpkg.Dir(path))
	if _, err := conn.Create(path, make([]byte, 8), 0, openACL); err != nil && !errors.Is(err, zk.ErrNodeExists) {
		return nil, nil, err
	}
	inc := func(ctx context.Context) (int64, error) {
		for conflicts := int64(0); ; conflicts++ {
			if err := ctx.Err(); err != nil {
				return conflicts, err
			}
			data, stat, err := conn.Get(path)
			if err != nil {
				return conflicts, err
			}
			n, err := decodeLong(data)
			if err != nil {
				return conflicts, err
			}
			_, err = conn.Set(path, binary.BigEndian.AppendUint64(nil, uint64(n+1)), stat.Version)
			if !errors.Is(err, zk.ErrBadVersion) {
				return conflicts, err
			}
		}
	}
	return inc, func() {}, nil
}

func readAtomicZK(_ context.Context, s session, path string) (int64, error) {
	data, _, err := s.(*zkSession).conn.Get(path)
	if err != nil {
		return 0, err
	}
	return decodeLong(data)
}

// decodeLong reads a DistributedAtomicLong's 8 big-endian bytes.
func decodeLong(b []byte) (int64, error) {
	if len(b) != 8 {
		return 0, fmt.Errorf("%w: the atomic long's node holds %d bytes, not 8", framework.ErrInvalidArg, len(b))
	}
	return int64(binary.BigEndian.Uint64(b)), nil
}
