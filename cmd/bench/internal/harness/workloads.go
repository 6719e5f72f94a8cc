package harness

import (
	"context"
	"fmt"
	"runtime"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"golang.org/x/sync/errgroup"
)

// result is one implementation × workload, as one JSON line.
type result struct {
	Impl            string            `json:"impl"`
	Workload        string            `json:"workload"`
	Clients         int               `json:"clients"`
	Cycles          int64             `json:"cycles"`
	Seconds         float64           `json:"seconds"`
	CyclesPerSec    float64           `json:"cycles_per_sec"`
	HandoffP50us    float64           `json:"handoff_p50_us,omitempty"`
	HandoffP99us    float64           `json:"handoff_p99_us,omitempty"`
	FailoverP50us   float64           `json:"failover_p50_us,omitempty"` // failover: from the leader's close to the next leader's start (a cycle is a change of leader)
	FailoverP99us   float64           `json:"failover_p99_us,omitempty"`
	CloseP50us      float64           `json:"close_p50_us,omitempty"`         // failover: how long the leader's close call took
	WireP50us       float64           `json:"failover_wire_p50_us,omitempty"` // failover from the leader's closeSession written to the wire (Go only)
	WireP99us       float64           `json:"failover_wire_p99_us,omitempty"`
	NotifiedP50us   float64           `json:"notified_to_leader_p50_us,omitempty"` // failover: from the next leader's notification read off its connection to its start (Go only)
	NotifiedP99us   float64           `json:"notified_to_leader_p99_us,omitempty"`
	ClientReqs      float64           `json:"client_requests_per_cycle"`
	ServerReqs      float64           `json:"server_requests_per_cycle"`
	Violations      int64             `json:"violations"`
	Notes           string            `json:"notes,omitempty"`
	Conflicts       float64           `json:"conflicts_per_cycle,omitempty"`    // counter: compare-and-sets refused per increment
	Promoted        float64           `json:"promoted_per_cycle,omitempty"`     // atomic, promoted rows: the share of increments that took the lock
	LockTries       float64           `json:"lock_tries_per_cycle,omitempty"`   // atomic, promoted rows: tries under the lock per increment
	PromotedMs      float64           `json:"promoted_ms,omitempty"`            // atomic, promoted rows: the mean time a promoted increment spent in its promoted phase (the lock's wait included), ms
	SetsPerCycle    float64           `json:"set_data_per_cycle,omitempty"`     // counter: setData requests per increment on the clients' wire (Go only)
	GetsPerCycle    float64           `json:"get_data_per_cycle,omitempty"`     // counter, queue: getData requests per increment (item) on the clients' wire (Go only)
	CreatesPerCycle float64           `json:"create_per_cycle,omitempty"`       // queue: create requests per item on the clients' wire (Go only)
	MultisPerCycle  float64           `json:"multi_per_cycle,omitempty"`        // queue: multi requests per item (Go only)
	ListsPerCycle   float64           `json:"get_children_per_cycle,omitempty"` // queue: getChildren requests per item (Go only)
	DeletesPerCycle float64           `json:"delete_per_cycle,omitempty"`       // queue: delete requests per item (Go only)
	NotifPerRel     float64           `json:"notifications_per_release,omitempty"`
	BytesInPerAcq   float64           `json:"bytes_in_per_acquire,omitempty"`    // herds: bytes the waiters received per acquire
	CPUPerCycleUs   float64           `json:"client_cpu_us_per_cycle,omitempty"` // the harness process's CPU (all its clients), Go implementations only
	Waiters         int               `json:"waiters,omitempty"`
	Subscribers     int               `json:"subscribers,omitempty"`             // propagation: subscribers of the config node (a cycle is an update)
	Caches          int               `json:"caches,omitempty"`                  // discovery: caches (or the provider) following the service (a cycle is an instance)
	RemovalP50us    float64           `json:"removal_p50_us,omitempty"`          // discovery: from the instance's node deleted (or its session closed) to each follower without it
	RemovalP99us    float64           `json:"removal_p99_us,omitempty"`          //
	PropP50us       float64           `json:"propagation_p50_us,omitempty"`      // propagation: from the publisher's setData returning to a subscriber's listener seeing the value
	PropP99us       float64           `json:"propagation_p99_us,omitempty"`      //
	SeenP50us       float64           `json:"notified_to_seen_p50_us,omitempty"` // propagation: from a subscriber's notification read off its connection to its listener seeing the value (Go only)
	SeenP99us       float64           `json:"notified_to_seen_p99_us,omitempty"` //
	Deliveries      int64             `json:"deliveries,omitempty"`              // propagation: updates × subscribers, the measurements behind the percentiles
	PerSubscriber   bool              `json:"per_subscriber_counts,omitempty"`   // propagation: the request and notification counts are per update per subscriber
	DrainSeconds    float64           `json:"drain_seconds,omitempty"`
	HeapPerWaiter   float64           `json:"heap_bytes_per_waiter,omitempty"`
	StackPerWaiter  float64           `json:"stack_bytes_per_waiter,omitempty"`
	GorosPerWaiter  float64           `json:"goroutines_per_waiter,omitempty"`
	Rounds          int               `json:"rounds,omitempty"`
	RoundRates      []float64         `json:"round_cycles_per_sec,omitempty"`         // each round's cycles/s, in the order the rounds ran
	FloorRatio      float64           `json:"floor_ratio_median_of_rounds,omitempty"` // the median over rounds of cycles/s ÷ the floor's in the same round
	FloorRatioCI    []float64         `json:"floor_ratio_ci95,omitempty"`             // that median's 95 % confidence interval (see benchstat.MedianCI)
	Over            map[string]paired `json:"paired_ratio_to,omitempty"`              // gocurator and gocurator-promoted only: the same against every other implementation
	ServerFsync     string            `json:"server_fsync,omitempty"`                 // on, off, or unknown (--connect)
	ServerJVM       string            `json:"server_jvm,omitempty"`                   // stock, test (--test-server), or unknown (--connect)
	Servers         string            `json:"servers,omitempty"`                      // standalone, ensemble of 3, or --connect's`
	GoMaxProcs      int               `json:"gomaxprocs,omitempty"`                   // the harness's GOMAXPROCS (set it in the environment)
	Date            string            `json:"date,omitempty"`
	Error           string            `json:"error,omitempty"`

	handoffs     []time.Duration // raw, for merging rounds
	failovers    []time.Duration
	closes       []time.Duration
	fromWire     []time.Duration
	fromNotified []time.Duration
	propagations []time.Duration
	removals     []time.Duration // discovery
	early        int64           // propagation: deliveries stamped before the publisher's setData returned
	repeats      int64           // propagation: listener calls with the value the listener had seen last
	missedStamps int64           // propagation: deliveries whose notification was not seen on the wire (Go rows)
}

// env is what a workload needs from the harness.
type env struct {
	addr       string
	duration   time.Duration
	received   func() int64  // the server's Received counter
	noCancel   bool          // acquire with context.Background(), not a cancellable context
	peerWarmup time.Duration // the Java peer's unrecorded run before each measured one
	failovers  int           // changes of leader per implementation in the failover workload
	updates    int           // updates per row and number of subscribers in the propagation workload
	goroutines int           // the many-locks workload's goroutines (each with a lock of its own)
	members    int           // the servers in the connect string: each srvr query of received adds one at each
	kept       *keptClients  // --keep-sessions: the throughput workload's clients, kept across turns (nil: new each turn)
}

// srvrQueries is what one reading of e.received adds to the count it reads
// (see zkharness.NodeCount): one srvr query at each member. A count taken
// between two readings subtracts it.
func (e env) srvrQueries() int64 { return int64(max(e.members, 1)) }

// contention runs n clients, each looping acquire → section → release for
// the duration; inside checks the occupancy rule.
func contention(e env, im impl, workload string, n int, mk func(s session, i int, cycle int) acquirer, ok func(inside, writers int32, write bool) bool, isWrite func(i, cycle int) bool) result {
	r := result{Impl: im.name(), Workload: workload, Clients: n}
	sessions, done, err := e.sessions(im, n)
	if err != nil {
		r.Error = err.Error()
		return r
	}
	defer done()
	// One acquirer per client and kind, made before timing starts.
	type pair struct{ read, write acquirer }
	acq := make([]pair, n)
	for i, s := range sessions {
		acq[i] = pair{mk(s, i, 0), mk(s, i, 1)}
		if acq[i].read == nil {
			r.Error = "not supported"
			return r
		}
	}
	var (
		cycles, violations atomic.Int64
		inside, writers    atomic.Int32
		releaseStart       atomic.Int64
		mu                 sync.Mutex
		handoffs           []time.Duration
	)
	reqs0, srv0, cpu0 := requests(sessions), e.received(), processCPU()
	ctx, cancel := context.WithTimeout(context.Background(), e.duration+30*time.Second)
	defer cancel()
	stop := time.Now().Add(e.duration)
	t0 := time.Now().Add(-time.Second) // hand-off stamps are time since t0: monotonic, never 0
	start := time.Now()
	g, gctx := errgroup.WithContext(ctx)
	for i := range sessions {
		g.Go(func() error {
			var local []time.Duration
			defer func() { mu.Lock(); handoffs = append(handoffs, local...); mu.Unlock() }()
			for cycle := 0; time.Now().Before(stop); cycle++ {
				write := isWrite != nil && isWrite(i, cycle)
				a := acq[i].read
				if write {
					a = acq[i].write
				}
				actx := gctx
				if e.noCancel {
					actx = context.Background()
				}
				rel, err := a(actx)
				if err != nil {
					return err
				}
				if rs := releaseStart.Swap(0); rs != 0 {
					local = append(local, time.Since(t0)-time.Duration(rs))
				}
				in := inside.Add(1)
				w := int32(0)
				if write {
					w = writers.Add(1)
				} else {
					w = writers.Load()
				}
				if !ok(in, w, write) {
					violations.Add(1)
				}
				if write {
					writers.Add(-1)
				}
				inside.Add(-1)
				releaseStart.Store(int64(time.Since(t0))) // monotonic
				if err := rel(actx); err != nil {
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
	r.Cycles, r.Seconds = cycles.Load(), elapsed.Seconds()
	r.CyclesPerSec = float64(r.Cycles) / r.Seconds
	r.Violations = violations.Load()
	if r.Cycles > 0 {
		r.ClientReqs = float64(requests(sessions)-reqs0) / float64(r.Cycles)
		r.ServerReqs = float64(e.received()-srv0) / float64(r.Cycles)
		r.CPUPerCycleUs = float64(cpu.Microseconds()) / float64(r.Cycles)
	}
	if n > 1 {
		r.handoffs = handoffs
		r.HandoffP50us, r.HandoffP99us = percentile(handoffs, 50), percentile(handoffs, 99)
	}
	return r
}

// connectAll opens n sessions; closeAll closes them.
func connectAll(im impl, addr string, n int) (sessions []session, closeAll func(), err error) {
	return connectEach(im.connect, addr, n)
}

// connectEach opens n sessions with connect; closeAll closes them.
func connectEach(connect func(addr string) (session, error), addr string, n int) (sessions []session, closeAll func(), err error) {
	closeAll = func() {
		for _, s := range sessions {
			s.close()
		}
	}
	for range n {
		s, err := connect(addr)
		if err != nil {
			closeAll()
			return nil, nil, err
		}
		sessions = append(sessions, s)
	}
	return sessions, closeAll, nil
}

func requests(ss []session) int64 {
	var n int64
	for _, s := range ss {
		n += s.counter().Requests()
	}
	return n
}

func runMutexUncontended(e env, im impl) result {
	return contention(e, im, "mutex-uncontended", 1, func(s session, _, _ int) acquirer { return im.mutex(s, "/bench/"+im.name()+"/mu") },
		func(in, _ int32, _ bool) bool { return in <= 1 }, nil)
}

func runMutexContended(e env, im impl) result {
	return contention(e, im, "mutex-contended", 8, func(s session, _, _ int) acquirer { return im.mutex(s, "/bench/"+im.name()+"/mc") },
		func(in, _ int32, _ bool) bool { return in <= 1 }, nil)
}

func runSemaphore(e env, im impl) result {
	return contention(e, im, "semaphore", 8, func(s session, _, _ int) acquirer { return im.semaphore(s, "/bench/"+im.name()+"/sem", 3) },
		func(in, _ int32, _ bool) bool { return in <= 3 }, nil)
}

func runRWLock(e env, im impl) result {
	return contention(e, im, "rwlock", 8, func(s session, _, kind int) acquirer { return im.readWrite(s, "/bench/"+im.name()+"/rw", kind == 1) },
		func(in, w int32, write bool) bool { return w == 0 || (w == 1 && in == 1) },
		func(i, cycle int) bool { return (i+cycle)%5 == 0 }) // 20% writes, by a fixed pattern
}

// runHerd queues waiters on one mutex held by a first client, then drains
// the queue: notifications per release, requests per acquire, drain time.
func runHerd(e env, im impl, waiters int) result {
	r := result{Impl: im.name(), Workload: fmt.Sprintf("herd-%d", waiters), Clients: waiters + 1, Waiters: waiters}
	sessions, closeAll, err := connectAll(im, e.addr, waiters+1)
	if err != nil {
		r.Error = err.Error()
		return r
	}
	defer closeAll()
	path := fmt.Sprintf("/bench/%s/herd-%d", im.name(), waiters)
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	rel, err := im.mutex(sessions[0], path)(ctx)
	if err != nil {
		r.Error = err.Error()
		return r
	}
	acqs := make([]acquirer, waiters+1)
	for i := 1; i <= waiters; i++ {
		acqs[i] = im.mutex(sessions[i], path) // before counting: the floor makes its directory here
	}
	notif0, bytes0 := notifications(sessions), bytesIn(sessions)
	reqs0, srv0 := requests(sessions), e.received()
	var queued sync.WaitGroup
	done := make(chan error, waiters)
	for i := 1; i <= waiters; i++ {
		queued.Add(1)
		a := acqs[i]
		go func() {
			queued.Done()
			rel, err := a(ctx)
			if err == nil {
				err = rel(ctx)
			}
			done <- err
		}()
	}
	queued.Wait()
	// The holder's polls are the harness's, not the protocol's: left out.
	holder := sessions[0].counter()
	pollReqs, pollBytes := holder.Requests(), holder.BytesIn()
	waitQueue(sessions[0], im, path, waiters+1)
	pollReqs, pollBytes = holder.Requests()-pollReqs, holder.BytesIn()-pollBytes
	start := time.Now()
	if err := rel(ctx); err != nil {
		r.Error = err.Error()
		return r
	}
	for range waiters {
		if err := <-done; err != nil {
			r.Error = err.Error()
			return r
		}
	}
	r.DrainSeconds = time.Since(start).Seconds()
	r.Cycles = int64(waiters)
	r.Seconds = r.DrainSeconds
	r.CyclesPerSec = float64(waiters) / r.DrainSeconds
	r.NotifPerRel = float64(notifications(sessions)-notif0) / float64(waiters)
	r.BytesInPerAcq = float64(bytesIn(sessions)-bytes0-pollBytes) / float64(waiters)
	r.ClientReqs = float64(requests(sessions)-reqs0-pollReqs) / float64(waiters)
	r.ServerReqs = float64(e.received()-srv0-pollReqs) / float64(waiters)
	return r
}

// processCPU returns the user and system CPU time this process has used.
func processCPU() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

func bytesIn(ss []session) int64 {
	var n int64
	for _, s := range ss {
		n += s.counter().BytesIn()
	}
	return n
}

func notifications(ss []session) int64 {
	var n int64
	for _, s := range ss {
		n += s.counter().Notifications()
	}
	return n
}

// waitQueue polls until the lock has n nodes.
func waitQueue(s session, im impl, path string, n int) {
	for deadline := time.Now().Add(2 * time.Minute); time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
		if countChildren(s, path) >= n {
			return
		}
	}
}

// runMemory queues waiters acquires on one mutex from a few sessions and
// measures the heap and goroutines each waiting acquire costs.
func runMemory(e env, im impl, waiters int) result {
	const sessionsN = 10
	r := result{Impl: im.name(), Workload: "memory", Clients: sessionsN + 1, Waiters: waiters}
	sessions, closeAll, err := connectAll(im, e.addr, sessionsN+1)
	if err != nil {
		r.Error = err.Error()
		return r
	}
	defer closeAll()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	path := "/bench/" + im.name() + "/mem"
	rel, err := im.mutex(sessions[0], path)(ctx)
	if err != nil {
		r.Error = err.Error()
		return r
	}
	acqs := make([]acquirer, waiters)
	for i := range acqs {
		acqs[i] = im.mutex(sessions[1+i%sessionsN], path)
	}
	heap0, stack0, goros0 := heapInUse(), stackInUse(), runtime.NumGoroutine()
	done := make(chan error, waiters)
	for _, a := range acqs {
		go func() {
			rel, err := a(ctx)
			if err == nil {
				err = rel(ctx)
			}
			done <- err
		}()
	}
	waitQueue(sessions[0], im, path, waiters+1)
	time.Sleep(200 * time.Millisecond) // let every waiter settle on its watch
	heap1, stack1, goros1 := heapInUse(), stackInUse(), runtime.NumGoroutine()
	r.HeapPerWaiter = float64(heap1-heap0) / float64(waiters)
	r.StackPerWaiter = float64(stack1-stack0) / float64(waiters)
	r.GorosPerWaiter = float64(goros1-goros0) / float64(waiters)
	rel(ctx)
	for range waiters {
		if err := <-done; err != nil && r.Error == "" {
			r.Error = err.Error()
		}
	}
	r.Notes = "includes the caller's own goroutine per waiter"
	return r
}

// stackInUse is the memory goroutine stacks take.
func stackInUse() int64 {
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	return int64(m.StackInuse)
}

func heapInUse() int64 {
	runtime.GC()
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	return int64(m.HeapInuse)
}
