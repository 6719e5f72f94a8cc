package harness

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"os"
	pathpkg "path"
	"strings"
	"sync/atomic"
	"text/tabwriter"
	"time"

	"github.com/go-zookeeper/zk"
	"golang.org/x/sync/errgroup"

	"github.com/gocurator/curator/framework"
	"github.com/gocurator/curator/recipes/shared"
	"github.com/gocurator/curator/zkharness"
)

// The counter workload (recipes/shared's Count, Curator's SharedCount):
// counterClients clients, each in a session of its own, add one to a shared
// count for the duration, each increment a versioned compare-and-set retried
// on a version conflict. A cycle is one successful increment. At the end the
// node must hold its value at the start plus every increment counted: an
// update lost (or one made and not counted) is a violation.
const counterClients = 8

// incrementer adds one to the shared count, retrying on a version conflict
// until it succeeds, and returns how many of its tries were refused.
type incrementer func(ctx context.Context) (conflicts int64, err error)

// counterRow is one implementation of the counter's client (and of the
// atomic workload's, which runs the same way).
type counterRow struct {
	name    string
	connect func(addr string) (session, error)
	// open returns s's incrementer of the count at path (creating the node,
	// holding 0, if it is missing) and what stops it.
	open func(ctx context.Context, s session, path string) (incrementer, func(), error)
	// read reads the count at path through s.
	read func(ctx context.Context, s session, path string) (int64, error)
	// report, if not nil, adds what the row counted itself to the run's
	// result, after it.
	report func(r *result)
}

// counterRowOf returns im's row, if it has one: gocurator and the floor.
func counterRowOf(im impl) (counterRow, bool) {
	switch im.(type) {
	case curatorGo:
		return counterRow{name: im.name(), connect: im.connect, open: openCount, read: readCountGo}, true
	case floor:
		return counterRow{name: im.name(), connect: im.connect, open: openFloorCount, read: readCountZK}, true
	}
	return counterRow{}, false
}

// counterImpls returns the implementations of ims with a counter row.
func counterImpls(ims []impl) []impl {
	var out []impl
	for _, im := range ims {
		if _, ok := counterRowOf(im); ok {
			out = append(out, im)
		}
	}
	return out
}

// runCounter is one turn of the counter workload for a Go implementation.
func runCounter(e env, im impl) result {
	row, ok := counterRowOf(im)
	if !ok {
		return result{Impl: im.name(), Workload: "counter", Error: "not supported"}
	}
	return runCounterRow(e, "counter", row, "/bench/"+row.name+"/counter")
}

// runCounterRow runs row's clients on the count at path for e.duration,
// as workload.
func runCounterRow(e env, workload string, row counterRow, path string) result {
	r := result{Impl: row.name, Workload: workload, Clients: counterClients}
	sessions, closeAll, err := connectEach(row.connect, e.addr, counterClients)
	if err != nil {
		r.Error = err.Error()
		return r
	}
	defer closeAll()
	ctx, cancel := context.WithTimeout(context.Background(), e.duration+30*time.Second)
	defer cancel()
	incs := make([]incrementer, len(sessions))
	for i, s := range sessions {
		inc, stop, err := row.open(ctx, s, path)
		if err != nil {
			r.Error = err.Error()
			return r
		}
		defer stop()
		incs[i] = inc
	}
	before, err := row.read(ctx, sessions[0], path)
	if err != nil {
		r.Error = err.Error()
		return r
	}
	var cycles, conflicts atomic.Int64
	reqs0, srv0, cpu0 := requests(sessions), e.received(), processCPU()
	sets0, gets0, notifs0 := ofOp(sessions, zkharness.OpSetData), ofOp(sessions, zkharness.OpGetData), notifications(sessions)
	stop := time.Now().Add(e.duration)
	start := time.Now()
	g, gctx := errgroup.WithContext(ctx)
	for _, inc := range incs {
		g.Go(func() error {
			for time.Now().Before(stop) {
				c, err := inc(gctx)
				conflicts.Add(c)
				if err != nil {
					return err
				}
				cycles.Add(1)
			}
			return nil
		})
	}
	if err := g.Wait(); err != nil {
		r.Error = err.Error()
	}
	elapsed, cpu := time.Since(start), processCPU()-cpu0
	reqs, srv := requests(sessions)-reqs0, e.received()-srv0
	sets, gets, notifs := ofOp(sessions, zkharness.OpSetData)-sets0, ofOp(sessions, zkharness.OpGetData)-gets0, notifications(sessions)-notifs0
	r.Cycles, r.Seconds = cycles.Load(), elapsed.Seconds()
	r.CyclesPerSec = float64(r.Cycles) / r.Seconds
	if r.Cycles > 0 {
		r.ClientReqs = float64(reqs) / float64(r.Cycles)
		r.ServerReqs = float64(srv) / float64(r.Cycles)
		r.CPUPerCycleUs = float64(cpu.Microseconds()) / float64(r.Cycles)
		r.Conflicts = float64(conflicts.Load()) / float64(r.Cycles)
		r.SetsPerCycle, r.GetsPerCycle = float64(sets)/float64(r.Cycles), float64(gets)/float64(r.Cycles)
		r.NotifPerRel = float64(notifs) / float64(r.Cycles)
	}
	after, err := row.read(ctx, sessions[0], path)
	if err != nil {
		if r.Error == "" {
			r.Error = err.Error()
		}
		return r
	}
	if row.report != nil {
		row.report(&r)
	}
	if lost := before + r.Cycles - after; lost != 0 {
		r.Violations = max(lost, -lost)
		r.Notes = strings.TrimPrefix(r.Notes+fmt.Sprintf("; the count went from %d to %d in %d increments", before, after, r.Cycles), "; ")
	}
	return r
}

// ofOp sums the requests with opcode op on the sessions' wires.
func ofOp(ss []session, op int32) int64 {
	var n int64
	for _, s := range ss {
		n += s.counter().RequestsOf(op)
	}
	return n
}

// openCount is gocurator's client: a shared.Count per session, and the
// loop a user writes: Get, then TrySet at what Get returned; a refused
// TrySet has read the count again (or the watch has), so the next Get is
// the newer count, and the loop needs no read of its own.
func openCount(ctx context.Context, s session, path string) (incrementer, func(), error) {
	cnt, err := shared.NewCount(s.(*goSession).c, path, 0)
	if err != nil {
		return nil, nil, err
	}
	if err := cnt.Start(ctx); err != nil {
		return nil, nil, err
	}
	inc := func(ctx context.Context) (int64, error) {
		for conflicts := int64(0); ; conflicts++ {
			cur := cnt.Get()
			ok, err := cnt.TrySet(ctx, cur, cur.Value+1)
			if err != nil || ok {
				return conflicts, err
			}
		}
	}
	return inc, func() { cnt.Close() }, nil
}

func readCountGo(ctx context.Context, s session, path string) (int64, error) {
	data, _, err := s.(*goSession).c.Get(ctx, path)
	if err != nil {
		return 0, err
	}
	n, err := decodeCount(data)
	return int64(n), err
}

// openFloorCount is the protocol in bare go-zookeeper calls: getData for
// the count and its version, then setData at that version; a refused
// setData (ErrBadVersion) starts again with getData.
func openFloorCount(_ context.Context, s session, path string) (incrementer, func(), error) {
	conn := s.(*zkSession).conn
	if err := createCount(conn, path); err != nil {
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
			n, err := decodeCount(data)
			if err != nil {
				return conflicts, err
			}
			_, err = conn.Set(path, binary.BigEndian.AppendUint32(nil, uint32(n+1)), stat.Version)
			if !errors.Is(err, zk.ErrBadVersion) {
				return conflicts, err
			}
		}
	}
	return inc, func() {}, nil
}

// createCount creates the count's node holding 0, and its parents, unless
// it exists.
func createCount(conn *zk.Conn, path string) error {
	ensureDir(conn, pathpkg.Dir(path))
	_, err := conn.Create(path, []byte{0, 0, 0, 0}, 0, openACL)
	if err != nil && !errors.Is(err, zk.ErrNodeExists) {
		return err
	}
	return nil
}

func readCountZK(_ context.Context, s session, path string) (int64, error) {
	data, _, err := s.(*zkSession).conn.Get(path)
	if err != nil {
		return 0, err
	}
	n, err := decodeCount(data)
	return int64(n), err
}

// decodeCount reads a count's 4 big-endian bytes.
func decodeCount(b []byte) (int32, error) {
	if len(b) != 4 {
		return 0, fmt.Errorf("%w: the count's node holds %d bytes, not 4", framework.ErrInvalidArg, len(b))
	}
	return int32(binary.BigEndian.Uint32(b)), nil
}

// printCounters prints the counter and atomic workloads' results, with
// each rate's ratio to its workload's floor.
func printCounters(rs []result) {
	if len(rs) == 0 {
		return
	}
	floors := floorRows(rs)
	fmt.Println()
	tw := tabwriter.NewWriter(os.Stdout, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "workload\timpl\tclients\tincrements\tincrements/s\tvs floor\tvs floor (median of rounds [95 % CI])\treq/increment (client)\treq/increment (server)\tsetData/increment\tgetData/increment\tnotif/increment\tconflicts/increment\tpromoted\ttries under the lock/increment\tms in the promoted phase/promotion\tclient CPU µs/increment\tviolations\t")
	for _, r := range rs {
		if r.Error != "" {
			fmt.Fprintf(tw, "%s\t%s\t%d\terror: %s\t\t\t\t\t\t\t\t\t\t\t\t\t\t\t\n", r.Workload, r.Impl, r.Clients, r.Error)
			continue
		}
		client, sets, gets, notifs, cpu, promoted, lockTries, promotedMs := "–", "–", "–", "–", "–", "–", "–", "–"
		if r.ClientReqs > 0 {
			client = fmt.Sprintf("%.2f", r.ClientReqs)
			sets, gets, notifs = fmt.Sprintf("%.2f", r.SetsPerCycle), fmt.Sprintf("%.2f", r.GetsPerCycle), fmt.Sprintf("%.2f", r.NotifPerRel)
		}
		if r.CPUPerCycleUs > 0 {
			cpu = fmt.Sprintf("%.0f", r.CPUPerCycleUs)
		}
		if strings.HasSuffix(r.Impl, "-promoted") {
			promoted, lockTries, promotedMs = fmt.Sprintf("%.1f %%", 100*r.Promoted), fmt.Sprintf("%.2f", r.LockTries), fmt.Sprintf("%.1f", r.PromotedMs)
		}
		fmt.Fprintf(tw, "%s\t%s\t%d\t%d\t%.0f\t%s\t%s\t%s\t%.2f\t%s\t%s\t%s\t%.2f\t%s\t%s\t%s\t%s\t%d\t\n", r.Workload, r.Impl, r.Clients, r.Cycles, r.CyclesPerSec,
			ratioText(r.CyclesPerSec, floors[r.Workload].CyclesPerSec), pairedText(r), client, r.ServerReqs, sets, gets, notifs, r.Conflicts, promoted, lockTries, promotedMs, cpu, r.Violations)
	}
	tw.Flush()
	printOver(rs)
}
