package harness

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	pathpkg "path"

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
// an increment the node does not account for is a violation.

// atomicTries is the optimistic policy of both sides: try again at once,
// practically for ever (Curator's RetryNTimes(1000, 0)).
var atomicTries = retry.RetryNTimes(1000, 0)

// atomicRowOf returns im's row, if it has one: gocurator and the floor.
func atomicRowOf(im impl) (counterRow, bool) {
	switch im.(type) {
	case curatorGo:
		return counterRow{im.name(), im.connect, openAtomic, readAtomicGo}, true
	case floor:
		return counterRow{im.name(), im.connect, openFloorAtomic, readAtomicZK}, true
	}
	return counterRow{}, false
}

// atomicImpls returns the implementations of ims with an atomic row.
func atomicImpls(ims []impl) []impl {
	var out []impl
	for _, im := range ims {
		if _, ok := atomicRowOf(im); ok {
			out = append(out, im)
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
