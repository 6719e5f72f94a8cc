package harness

import (
	"context"
	"encoding/binary"
	"fmt"
	"os"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"text/tabwriter"
	"time"

	"github.com/go-zookeeper/zk"
	"golang.org/x/sync/errgroup"

	recipequeue "github.com/gocurator/curator/recipes/queue"
	"github.com/gocurator/curator/zkharness"
)

// The queue workload (recipes/queue's Queue, Curator's DistributedQueue,
// lock-safe): one producer session puts items, with up to queuePipeline
// puts in flight and at most queueWindow items in the queue (put and not
// yet consumed), and queueConsumers consumer sessions take them, each
// under its lock. A cycle is an item consumed. After the duration the
// producer stops and the consumers drain the queue; every item put must
// have been consumed exactly once (nothing fails here): an item consumed
// twice or never is a violation.
const (
	queueConsumers = 4
	queueWindow    = 100
	queuePipeline  = 16
)

// queueRow is one implementation of the queue workload's clients.
type queueRow struct {
	name    string
	connect func(addr string) (session, error)
	// consume starts a consumer on s of the queue at path, with its locks
	// under lock, calling consumed with each item's text; stop stops it.
	consume func(ctx context.Context, s session, i int, path, lock string, consumed func(item string)) (stop func(), err error)
	// produce returns s's put of an item into the queue at path.
	produce func(ctx context.Context, s session, path string) (put func(ctx context.Context, item string) error, stop func(), err error)
}

// queueRowOf returns im's row, if it has one: gocurator and the floor.
func queueRowOf(im impl) (queueRow, bool) {
	switch im.(type) {
	case curatorGo:
		return queueRow{im.name(), im.connect, consumeGo, produceGo}, true
	case floor:
		return queueRow{im.name(), im.connect, consumeFloor, produceFloor}, true
	}
	return queueRow{}, false
}

// queueImpls returns the implementations of ims with a queue row.
func queueImpls(ims []impl) []impl {
	var out []impl
	for _, im := range ims {
		if _, ok := queueRowOf(im); ok {
			out = append(out, im)
		}
	}
	return out
}

// runQueue is one turn of the queue workload for a Go implementation.
func runQueue(e env, im impl) result {
	row, ok := queueRowOf(im)
	if !ok {
		return result{Impl: im.name(), Workload: "queue", Error: "not supported"}
	}
	return runQueueRow(e, row, "/bench/"+row.name+"/queue")
}

// tally counts each item's deliveries and keeps the window: a slot is
// taken before each put and given back at an item's first delivery.
type itemTally struct {
	slots    chan struct{}
	mu       sync.Mutex
	counts   map[string]int
	produced atomic.Int64
	consumed atomic.Int64 // first deliveries
	drained  chan struct{}
	want     atomic.Int64 // set once the producer has stopped: consumed == want closes drained
	once     sync.Once
}

func newItemTally() *itemTally {
	t := &itemTally{slots: make(chan struct{}, queueWindow), counts: make(map[string]int), drained: make(chan struct{})}
	t.want.Store(-1)
	return t
}

func (t *itemTally) delivered(item string) {
	t.mu.Lock()
	t.counts[item]++
	first := t.counts[item] == 1
	t.mu.Unlock()
	if !first {
		return
	}
	select {
	case <-t.slots:
	default:
	}
	if n := t.consumed.Add(1); n == t.want.Load() {
		t.once.Do(func() { close(t.drained) })
	}
}

// stopped records that the producer put n items, and closes drained if
// they are all consumed already.
func (t *itemTally) stopped(n int64) {
	t.want.Store(n)
	if t.consumed.Load() == n {
		t.once.Do(func() { close(t.drained) })
	}
}

// violations counts items delivered twice and items of the n put never
// delivered ("i<k>" for k in 1..n).
func (t *itemTally) violations(n int64) (int64, string) {
	t.mu.Lock()
	defer t.mu.Unlock()
	var twice, never int64
	for k := int64(1); k <= n; k++ {
		switch c := t.counts["i"+strconv.FormatInt(k, 10)]; {
		case c == 0:
			never++
		case c > 1:
			twice += int64(c - 1)
		}
	}
	if twice+never == 0 {
		return 0, ""
	}
	return twice + never, fmt.Sprintf("%d deliveries of items already consumed, %d items never consumed", twice, never)
}

// runQueueRow runs row's producer and consumers on the queue at path for
// e.duration, then drains it.
func runQueueRow(e env, row queueRow, path string) result {
	r := result{Impl: row.name, Workload: "queue", Clients: queueConsumers + 1}
	sessions, closeAll, err := connectEach(row.connect, e.addr, queueConsumers+1)
	if err != nil {
		r.Error = err.Error()
		return r
	}
	defer closeAll()
	ctx, cancel := context.WithTimeout(context.Background(), e.duration+time.Minute)
	defer cancel()
	t := newItemTally()
	// The consumers are stopped once the queue is drained, before the
	// requests are counted: an item's delivery comes before its removal,
	// and stopping waits for an item under way to be removed.
	var consumers []func()
	stopConsumers := func() {
		for _, stop := range consumers {
			stop()
		}
		consumers = nil
	}
	defer stopConsumers()
	for i, s := range sessions[1:] {
		stop, err := row.consume(ctx, s, i, path, path+"-locks", t.delivered)
		if err != nil {
			r.Error = err.Error()
			return r
		}
		consumers = append(consumers, stop)
	}
	put, stopProducer, err := row.produce(ctx, sessions[0], path)
	if err != nil {
		r.Error = err.Error()
		return r
	}
	defer stopProducer()
	ops := []int32{zkharness.OpCreate, zkharness.OpMulti, zkharness.OpGetData, zkharness.OpGetChildren2, zkharness.OpDelete}
	before := make([]int64, len(ops))
	for i, op := range ops {
		before[i] = ofOp(sessions, op)
	}
	reqs0, srv0, cpu0, notifs0 := requests(sessions), e.received(), processCPU(), notifications(sessions)
	start := time.Now()
	stop := start.Add(e.duration)
	g, gctx := errgroup.WithContext(ctx)
	for range queuePipeline {
		g.Go(func() error {
			for time.Now().Before(stop) {
				select {
				case t.slots <- struct{}{}:
				case <-gctx.Done():
					return gctx.Err()
				}
				if !time.Now().Before(stop) {
					<-t.slots
					return nil
				}
				if err := put(gctx, "i"+strconv.FormatInt(t.produced.Add(1), 10)); err != nil {
					return err
				}
			}
			return nil
		})
	}
	err = g.Wait()
	cycles, elapsed := t.consumed.Load(), time.Since(start)
	if err != nil {
		r.Error = err.Error()
		return r
	}
	produced := t.produced.Load()
	t.stopped(produced)
	select {
	case <-t.drained:
	case <-ctx.Done():
		r.Notes = fmt.Sprintf("not drained: %d of %d items consumed", t.consumed.Load(), produced)
	}
	stopConsumers()
	// Requests per item are counted until the queue is drained and its
	// consumers stopped, over the items put: the items put by the end were
	// consumed after it.
	cpu := processCPU() - cpu0
	reqs, srv, notifs := requests(sessions)-reqs0, e.received()-srv0, notifications(sessions)-notifs0
	r.Cycles, r.Seconds = cycles, elapsed.Seconds()
	r.CyclesPerSec = float64(cycles) / r.Seconds
	if n := float64(produced); n > 0 {
		r.ClientReqs, r.ServerReqs = float64(reqs)/n, float64(srv)/n
		r.CPUPerCycleUs = float64(cpu.Microseconds()) / n
		r.NotifPerRel = float64(notifs) / n
		per := make([]float64, len(ops))
		for i, op := range ops {
			per[i] = float64(ofOp(sessions, op)-before[i]) / n
		}
		r.CreatesPerCycle, r.MultisPerCycle, r.GetsPerCycle, r.ListsPerCycle, r.DeletesPerCycle = per[0], per[1], per[2], per[3], per[4]
	}
	v, note := t.violations(produced)
	r.Violations = v
	if note != "" {
		r.Notes = strings.TrimPrefix(r.Notes+"; "+note, "; ")
	}
	return r
}

// consumeGo is gocurator's consumer: a lock-safe queue.Queue.
func consumeGo(ctx context.Context, s session, _ int, path, lock string, consumed func(string)) (func(), error) {
	q, err := recipequeue.New(s.(*goSession).c, path, recipequeue.String{}, func(_ context.Context, item string) error {
		consumed(item)
		return nil
	}, recipequeue.WithLockPath(lock))
	if err != nil {
		return nil, err
	}
	if err := q.Start(ctx); err != nil {
		return nil, err
	}
	return func() { q.Close() }, nil
}

// produceGo is gocurator's producer: Put on a producer-only queue.Queue.
func produceGo(ctx context.Context, s session, path string) (func(context.Context, string) error, func(), error) {
	q, err := recipequeue.New[string](s.(*goSession).c, path, recipequeue.String{}, nil)
	if err != nil {
		return nil, nil, err
	}
	if err := q.Start(ctx); err != nil {
		return nil, nil, err
	}
	return q.Put, func() { q.Close() }, nil
}

// produceFloor is a put in bare calls: one sequential create, the item in
// Curator's format.
func produceFloor(_ context.Context, s session, path string) (func(context.Context, string) error, func(), error) {
	conn := s.(*zkSession).conn
	ensureDir(conn, path)
	return func(_ context.Context, item string) error {
		_, err := conn.Create(path+"/queue-", frameItem(item), zk.FlagSequence, openACL)
		return err
	}, func() {}, nil
}

// frameItem is one item in Curator's node format (ItemSerializer).
func frameItem(item string) []byte {
	b := binary.BigEndian.AppendUint32(nil, 0x00010001)
	b = append(b, 1)
	b = binary.BigEndian.AppendUint32(b, uint32(len(item)))
	return append(append(b, item...), 2)
}

// consumeFloor is the lock-safe take in the fewest bare calls a consumer
// interoperating with Curator's needs, with no contention: consumer i of
// queueConsumers takes only the items whose sequence number is i modulo
// queueConsumers, so no two ever try the same item. A pass lists the queue
// with a watch; per item, one multi checks the item and creates its lock
// node, a getData reads it, and one multi deletes the item and the lock.
func consumeFloor(ctx context.Context, s session, i int, path, lock string, consumed func(string)) (func(), error) {
	conn := s.(*zkSession).conn
	ensureDir(conn, path)
	ensureDir(conn, lock)
	ctx, cancel := context.WithCancel(ctx)
	done := make(chan struct{})
	go func() {
		defer close(done)
		for ctx.Err() == nil {
			kids, _, ch, err := conn.ChildrenW(path)
			if err != nil {
				return
			}
			slices.Sort(kids)
			for _, k := range kids {
				seq, err := strconv.Atoi(k[len(k)-10:])
				if err != nil || seq%queueConsumers != i {
					continue
				}
				item, lk := path+"/"+k, lock+"/"+k
				if _, err := conn.Multi(&zk.CheckVersionRequest{Path: item, Version: -1},
					&zk.CreateRequest{Path: lk, Data: nil, Acl: openACL, Flags: zk.FlagEphemeral}); err != nil {
					continue
				}
				data, _, err := conn.Get(item)
				if err != nil {
					conn.Delete(lk, -1)
					continue
				}
				if len(data) > 10 {
					consumed(string(data[9 : len(data)-1]))
				}
				conn.Multi(&zk.DeleteRequest{Path: item, Version: -1}, &zk.DeleteRequest{Path: lk, Version: -1})
			}
			select {
			case <-ch:
			case <-ctx.Done():
			}
		}
	}()
	return func() { cancel(); <-done }, nil
}

// printQueues prints the queue workload's results, with each rate's ratio
// to the floor's.
func printQueues(rs []result) {
	if len(rs) == 0 {
		return
	}
	floor := floorRows(rs)["queue"]
	fmt.Println()
	tw := tabwriter.NewWriter(os.Stdout, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "workload\timpl\tclients\titems\titems/s\tvs floor\tvs floor (median of rounds [95 % CI])\treq/item (client)\treq/item (server)\tcreate/item\tmulti/item\tgetData/item\tgetChildren/item\tdelete/item\tnotif/item\tclient CPU µs/item\tviolations\t")
	for _, r := range rs {
		if r.Error != "" {
			fmt.Fprintf(tw, "%s\t%s\t%d\terror: %s\t\t\t\t\t\t\t\t\t\t\t\t\t\t\n", r.Workload, r.Impl, r.Clients, r.Error)
			continue
		}
		f := func(x float64, format string) string {
			if r.ClientReqs == 0 {
				return "–"
			}
			return fmt.Sprintf(format, x)
		}
		fmt.Fprintf(tw, "%s\t%s\t%d\t%d\t%.0f\t%s\t%s\t%s\t%.2f\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%d\t\n", r.Workload, r.Impl, r.Clients, r.Cycles, r.CyclesPerSec,
			ratioText(r.CyclesPerSec, floor.CyclesPerSec), pairedText(r), f(r.ClientReqs, "%.2f"), r.ServerReqs,
			f(r.CreatesPerCycle, "%.2f"), f(r.MultisPerCycle, "%.2f"), f(r.GetsPerCycle, "%.2f"), f(r.ListsPerCycle, "%.2f"), f(r.DeletesPerCycle, "%.2f"),
			f(r.NotifPerRel, "%.2f"), f(r.CPUPerCycleUs, "%.0f"), r.Violations)
	}
	tw.Flush()
	printOver(rs)
}
