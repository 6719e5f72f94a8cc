// Package harness is cmd/bench: it measures the lock recipes against go-zookeeper's zk.Lock,
// the bare-call floor of Curator's protocol, Apache Curator (Java) and Kazoo
// (Python), on one ZooKeeper server in one run; and, with --workloads
// failover, leader election's failover time against the floor, Curator's
// LeaderSelector and LeaderLatch and Kazoo's Election; and, with --workloads
// propagation, how fast a config node's update reaches its subscribers'
// caches, against the floor, Curator's CuratorCache and Kazoo's DataWatch
// and TreeCache; and, with --workloads counter, increments of a shared
// count (recipes/shared's Count) by 8 clients, each a versioned
// compare-and-set retried on a conflict, against the floor (getData, then
// setData at its version), Curator's SharedCount and Kazoo's get and
// set at the version; with --workloads atomic, the same increments of a
// 64-bit count by recipes/atomic's Int64, against the floor and Curator's
// DistributedAtomicLong; and with --workloads queue, items per second
// through a lock-safe queue (recipes/queue's Queue) from 1 producer to 4
// consumers, against the floor (Curator's protocol in the fewest bare calls,
// the consumers never contending) and Curator's DistributedQueue; with
// --workloads discovery, how fast a registered instance reaches N service
// caches and a crashed one leaves a provider, against the floor and
// curator-x-discovery; and with --workloads many-locks, 64 goroutines each
// looping acquire and release on a lock of its own through one client (and
// through 4), against the floor, Curator (one CuratorFramework, 64 threads)
// and Kazoo, with the heap and goroutines each held lock costs.
//
// With --ensemble it runs every workload on a 3-member ensemble too, every
// row (the floor and zk.Lock included) with all members in its connect
// string, and prints the standalone and the ensemble tables.
//
//	go run ./cmd/bench                       # a throwaway server on loopback
//	go run ./cmd/bench --connect 127.0.0.1:2181 --duration 5s --out results.jsonl
//	go run ./cmd/bench --workloads failover --failovers 400 --fsync=false
//	go run ./cmd/bench --workloads propagation --updates 400 --subscribers 1,20 --fsync=false
//	go run ./cmd/bench --workloads counter --rounds 5 --duration 5s --fsync=false
//	go run ./cmd/bench --workloads atomic --rounds 5 --duration 5s --fsync=false
//	go run ./cmd/bench --workloads queue --impls gocurator,floor,curator --rounds 5 --duration 10s
//	go run ./cmd/bench --workloads discovery --impls gocurator,floor,curator --updates 200 --subscribers 1,20 --fsync=false
//	go run ./cmd/bench --workloads many-locks --impls gocurator,floor,curator,kazoo --rounds 15 --duration 30s --fsync=false
//	go run ./cmd/bench --ensemble --workloads mutex-uncontended,mutex-contended --fsync=false
//	go run ./cmd/bench --workloads many-locks --impls gocurator,floor --keep-sessions --rounds 120 --duration 120s --fsync=false
//
// With --keep-sessions the Go rows of the lock workloads keep their clients
// from turn to turn, so that turns of 1 s, in their hundreds, pair the rows
// closely enough in time to resolve a few per cent on a busy machine.
//
// It prints a table and writes one JSON line per implementation × workload.
// docs/performance.md explains the figures.
//
// The harness is a package so that a bench program in another module can
// add hooks to the gocurator rows (Program.Hooks, --hooks) without the
// core's go.mod requiring what those hooks need: cmd/bench/hooks, its own
// module, runs the lock workloads with the OpenTelemetry and Prometheus
// adapters beside the plain and the no-op rows, in one run with the floor.
package harness

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"maps"
	"os"
	"runtime"
	"runtime/pprof"
	"slices"
	"strconv"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/gocurator/curator/zkharness"
)

// Program is what a bench program gives the harness: sets of hooks the
// gocurator rows can run with (besides "none" and "noop", which the harness
// has), and its own flag defaults ("" keeps the harness's).
type Program struct {
	Hooks                                        []HookSet
	DefaultImpls, DefaultWorkloads, DefaultHooks string
}

// Main parses the flags and runs the benchmark; it exits the process on an
// error.
func Main(p Program) {
	connect := flag.String("connect", "", "ZooKeeper to use (loopback only); default: start a throwaway one")
	duration := flag.Duration("duration", 3*time.Second, "time per throughput workload")
	out := flag.String("out", "bench-results.jsonl", "JSON lines output file")
	only := flag.String("impls", cmp.Or(p.DefaultImpls, "gocurator,floor,floor-serial,zk.Lock,curator,kazoo"), "implementations to run")
	workloads := flag.String("workloads", cmp.Or(p.DefaultWorkloads, "mutex-uncontended,mutex-contended,semaphore,rwlock,herd,memory"), "workloads to run (and failover, leader election's, propagation, the caches', counter, the shared count's, atomic, the atomic long's, queue, the lock-safe queue's, discovery, service discovery's, and many-locks, a lock per goroutine through few clients, on request)")
	goroutines := flag.Int("goroutines", 64, "the many-locks workload's goroutines, each with a lock of its own")
	manyClients := flag.String("many-clients", "1,4", "the many-locks workload's numbers of clients (its rows: many-locks-<clients>)")
	ensemble := flag.Bool("ensemble", false, "also run every workload on a throwaway 3-member ensemble, with every member in each client's connect string")
	standalone := flag.Bool("standalone", true, "run the workloads on a throwaway standalone server (--standalone=false --ensemble: the ensemble only)")
	herdSizes := flag.String("herd", "100,1000", "herd sizes")
	failovers := flag.Int("failovers", 300, "changes of leader the failover workload measures per implementation (the Go ones split them over --rounds turns)")
	updates := flag.Int("updates", 400, "updates of the config node the propagation workload measures per implementation and number of subscribers, split over --rounds turns")
	subscribers := flag.String("subscribers", "1,20", "numbers of subscribers in the propagation workload, and of caches in the discovery workload")
	fsync := flag.Bool("fsync", true, "the throwaway server fsyncs its transaction log (ZooKeeper's default)")
	testServer := flag.Bool("test-server", false, "the throwaway server's JVM runs as in the tests (quick to start, C1 JIT only, serial GC, containers reaped every 100ms) instead of as ZooKeeper ships it")
	warmup := flag.Duration("warmup", 2*time.Second, "unrecorded run of each workload before it is measured, per Go implementation")
	peerWarmup := flag.Duration("peer-warmup", 5*time.Second, "the same for the Java peer, in each of its runs, so that its JIT has compiled the hot paths")
	rounds := flag.Int("rounds", 3, "the implementations take turns this many times per workload, each for duration/rounds")
	keepSessions := flag.Bool("keep-sessions", false, "the mutex, semaphore, read-write lock and many-locks workloads open each Go row's clients once and keep them for every turn, instead of new ones each turn; turns can then be short (--rounds 200 --duration 200s: 1 s turns)")
	pin := flag.Bool("pin", false, "Linux: run this process (and the Java peers it starts) on the first CPU it may run on (CPU 0 on most machines) with GOMAXPROCS 1, and the ZooKeeper servers it starts on the others, so that the clients and the servers do not take each other's CPU time; turns then move far less (docs/performance.md, run AI)")
	noCancel := flag.Bool("no-cancel", false, "acquire with context.Background() instead of a cancellable context")
	cpuprofile := flag.String("cpuprofile", "", "write a CPU profile of the Go side here")
	mutexprofile := flag.String("mutexprofile", "", "write a profile of the Go side's contended mutexes here")
	hookSets := map[string]*HookSet{"none": nil, "noop": {Name: "noop", New: func() (any, error) { return noopHook{}, nil }}}
	for i := range p.Hooks {
		hookSets[p.Hooks[i].Name] = &p.Hooks[i]
	}
	hooks := flag.String("hooks", cmp.Or(p.DefaultHooks, "none"), "the gocurator rows' hooks, each a row: none (the plain client, named gocurator), noop (a hook that does nothing, gocurator+noop)"+hookNames(p.Hooks))
	flag.Parse()
	var serverCPUs []int
	if *pin {
		var err error
		if serverCPUs, err = pinClient(); err != nil {
			fmt.Fprintln(os.Stderr, "bench: --pin:", err)
			os.Exit(2)
		}
	}
	if *cpuprofile != "" {
		f, err := os.Create(*cpuprofile)
		if err == nil {
			pprof.StartCPUProfile(f)
			defer pprof.StopCPUProfile()
		}
	}
	if *mutexprofile != "" {
		runtime.SetMutexProfileFraction(5)
		defer writeProfile("mutex", *mutexprofile)
	}
	o := options{connect: *connect, fsync: *fsync, testServer: *testServer, warmup: *warmup, rounds: max(*rounds, 1), out: *out,
		only: split(*only), workloads: split(*workloads), herdSizes: split(*herdSizes), subscriberCounts: split(*subscribers),
		manyClients: split(*manyClients), ensemble: *ensemble, standalone: *standalone, keepSessions: *keepSessions,
		serverCPUs: serverCPUs}
	for _, name := range split(*hooks) {
		set, ok := hookSets[name]
		if !ok {
			fmt.Fprintf(os.Stderr, "bench: --hooks %s: no such hooks (there are none, noop%s)\n", name, hookNames(p.Hooks))
			os.Exit(2)
		}
		o.hooks = append(o.hooks, set)
	}
	e := env{duration: *duration, noCancel: *noCancel, peerWarmup: *peerWarmup, failovers: *failovers, updates: *updates, goroutines: *goroutines}
	if err := run(e, o); err != nil {
		fmt.Fprintln(os.Stderr, "bench:", err)
		pprof.StopCPUProfile()
		os.Exit(1)
	}
}

func split(s string) []string { return strings.Split(s, ",") }

// writeProfile writes the named runtime profile to path.
func writeProfile(name, path string) {
	f, err := os.Create(path)
	if err != nil {
		fmt.Fprintln(os.Stderr, "bench:", err)
		return
	}
	defer f.Close()
	if err := pprof.Lookup(name).WriteTo(f, 0); err != nil {
		fmt.Fprintln(os.Stderr, "bench:", err)
	}
}

// options are the harness's flags beyond env.
type options struct {
	connect, out               string
	fsync, testServer          bool
	warmup                     time.Duration
	rounds                     int
	only, workloads, herdSizes []string
	subscriberCounts           []string   // --subscribers, as given
	subscribers                []int      // the same, parsed by run
	hooks                      []*HookSet // --hooks: a gocurator row each (nil: no hooks)
	manyClients                []string   // --many-clients, as given
	ensemble, standalone       bool
	keepSessions               bool  // --keep-sessions
	serverCPUs                 []int // --pin: the CPUs the servers run on
}

// throughput runs one of the timed workloads.
var throughput = map[string]func(env, impl) result{
	"mutex-uncontended": runMutexUncontended,
	"mutex-contended":   runMutexContended,
	"semaphore":         runSemaphore,
	"rwlock":            runRWLock,
}

func run(e env, o options) error {
	for _, n := range o.herdSizes {
		if size, err := strconv.Atoi(n); err != nil || size < 1 {
			return fmt.Errorf("--herd %q: want positive numbers", n)
		}
	}
	if e.failovers < 1 {
		return fmt.Errorf("--failovers %d: want a positive number", e.failovers)
	}
	if e.updates < 1 {
		return fmt.Errorf("--updates %d: want a positive number", e.updates)
	}
	o.subscribers = nil
	for _, n := range o.subscriberCounts {
		m, err := strconv.Atoi(n)
		if err != nil || m < 1 {
			return fmt.Errorf("--subscribers %q: want positive numbers", n)
		}
		o.subscribers = append(o.subscribers, m)
	}
	if e.goroutines < 1 {
		return fmt.Errorf("--goroutines %d: want a positive number", e.goroutines)
	}
	var workloads []string
	for _, w := range o.workloads {
		if w != "many-locks" {
			workloads = append(workloads, w)
			continue
		}
		for _, n := range o.manyClients {
			w := manyLocksPrefix + n
			if _, ok := manyLocksClients(w); !ok {
				return fmt.Errorf("--many-clients %q: want positive numbers", n)
			}
			workloads = append(workloads, w)
		}
	}
	o.workloads = workloads
	if o.connect == "" && !o.standalone && !o.ensemble {
		return errors.New("--standalone=false without --ensemble: no server to run on")
	}
	f, err := os.Create(o.out)
	if err != nil {
		return err
	}
	defer f.Close()
	enc := json.NewEncoder(f)
	if o.connect != "" {
		for _, member := range strings.Split(o.connect, ",") {
			if !strings.HasPrefix(member, "127.") && !strings.HasPrefix(member, "localhost:") {
				return fmt.Errorf("--connect %s: benchmarks send traffic to loopback only", o.connect)
			}
		}
		members := len(strings.Split(o.connect, ","))
		return runOn(e, o, o.connect, fmt.Sprintf("--connect, %d member(s)", members), enc)
	}
	// Every client asks for 10 s sessions; the server grants them (at the
	// tests' tickTime of 200 ms it would clamp them to 4 s, which a peer
	// with a thousand sessions in one CPython process could not keep
	// alive).
	opts := []zkharness.Option{zkharness.WithSessionTimeouts(400*time.Millisecond, time.Minute)}
	if !o.testServer {
		opts = append(opts, zkharness.WithStockSettings())
	}
	if !o.fsync {
		opts = append(opts, zkharness.WithoutFsync())
	}
	if len(o.serverCPUs) > 0 {
		opts = append(opts, zkharness.WithCPUs(o.serverCPUs...))
	}
	if o.standalone {
		srv, err := zkharness.NewServer(opts...)
		if err != nil {
			return err
		}
		err = runOn(e, o, srv.ConnectString(), "standalone", enc)
		srv.Close()
		if err != nil {
			return err
		}
	}
	if o.ensemble {
		ens, err := zkharness.StartEnsemble(3, opts...)
		if err != nil {
			return err
		}
		defer ens.Close()
		if err := runOn(e, o, ens.ConnectString(), "ensemble of 3", enc); err != nil {
			return err
		}
	}
	fmt.Fprintln(os.Stderr, "JSON lines written to", o.out)
	return nil
}

// runOn runs every workload on the servers of connect (servers names
// them in the report) and prints its tables.
func runOn(e env, o options, connect, servers string, enc *json.Encoder) error {
	only := o.only
	members := strings.Split(connect, ",")
	e.addr, e.members = connect, len(members)
	e.received = func() int64 {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		var sum int64
		for _, m := range members { // each member counts its own clients' requests
			n, _ := zkharness.Received(ctx, m)
			sum += n
		}
		return sum
	}
	var results []result
	fsync, jvm := "unknown (--connect)", "unknown (--connect)"
	if o.connect == "" {
		fsync = map[bool]string{true: "on", false: "off"}[o.fsync]
		jvm = map[bool]string{true: "test", false: "stock"}[o.testServer]
	}
	date := time.Now().UTC().Format(time.DateOnly)
	emit := func(r result) {
		r.ServerFsync, r.ServerJVM, r.Servers, r.Date = fsync, jvm, servers, date
		r.GoMaxProcs = runtime.GOMAXPROCS(0)
		results = append(results, r)
		enc.Encode(r)
		fmt.Fprintf(os.Stderr, "%-10s %-18s %s\n", r.Impl, r.Workload, summary(r))
	}
	fmt.Fprintf(os.Stderr, "on %s: %s\n", servers, connect)
	var goImpls []impl
	if slices.Contains(only, "gocurator") {
		sets := o.hooks
		if len(sets) == 0 {
			sets = []*HookSet{nil}
		}
		for _, set := range sets {
			goImpls = append(goImpls, curatorGo{set})
		}
	}
	for _, im := range []impl{floor{}, floorSerial{}, zkLock{}} {
		if slices.Contains(only, im.name()) {
			goImpls = append(goImpls, im)
		}
	}
	var peersOn []peer
	for _, p := range peers() {
		if slices.Contains(only, p.name) {
			peersOn = append(peersOn, p)
		}
	}
	for _, w := range o.workloads {
		if runW, ok := throughput[w]; ok {
			for _, r := range interleaved(e, o, w, goImpls, peersOn, runW) {
				emit(r)
			}
		}
		if clients, ok := manyLocksClients(w); ok {
			runW := func(e env, im impl) result { return runManyLocks(e, im, clients, e.goroutines) }
			for _, r := range interleaved(e, o, w, goImpls, peersOn, runW) {
				emit(r)
			}
		}
		if w == "herd" {
			if o.warmup > 0 {
				for _, im := range goImpls {
					runHerd(e, im, 100)
				}
			}
			for _, n := range o.herdSizes {
				size, _ := strconv.Atoi(n) // checked at the start
				runners := make([]runner, len(goImpls))
				for i, im := range goImpls {
					runners[i] = func(e env) result { return runHerd(e, im, size) }
				}
				rs := inTurns(e, o.rounds, runners)
				pairWithFloor(rs)
				for _, r := range rs {
					emit(r)
				}
			}
			for _, p := range peersOn {
				if p.supports(w) {
					for _, r := range p.run(e, w, o.herdSizes) {
						emit(r)
					}
				}
			}
		}
		if w == "failover" {
			for _, r := range runFailovers(e, o, peersOn) {
				emit(r)
			}
		}
		if w == "counter" {
			for _, r := range interleaved(e, o, w, counterImpls(goImpls), peersOn, runCounter) {
				emit(r)
			}
		}
		if w == "atomic" {
			for _, r := range interleaved(e, o, w, atomicImpls(goImpls), atomicPeers(peersOn), runAtomic) {
				emit(r)
			}
		}
		if w == "queue" {
			for _, r := range interleaved(e, o, w, queueImpls(goImpls), peersOn, runQueue) {
				emit(r)
			}
		}
		if w == "propagation" {
			for _, r := range runPropagations(e, o) {
				emit(r)
			}
		}
		if w == "discovery" {
			for _, r := range runDiscovery(e, o) {
				emit(r)
			}
		}
		if w == "memory" {
			for _, im := range goImpls {
				emit(runMemory(e, im, 1000))
			}
		}
	}
	fmt.Printf("\n== on %s ==\n\n", servers)
	printTable(results)
	return nil
}

// runner runs one implementation's workload once.
type runner func(e env) result

// interleaved runs a throughput workload for every implementation. The Go
// ones first run it for o.warmup, unrecorded (the Java peer warms up for
// e.peerWarmup inside each of its runs; Kazoo, on CPython, has no JIT to
// warm); then all take turns, o.rounds times, for
// e.duration/o.rounds each, starting each round with the next one, so that
// a drift of the server over the run touches all of them alike. With
// --keep-sessions the Go rows keep their clients from turn to turn (e.kept,
// made here unless given), and they are closed at the end.
func interleaved(e env, o options, workload string, impls []impl, ps []peer, runW func(env, impl) result) []result {
	if o.keepSessions && e.kept == nil {
		e.kept = &keptClients{rows: map[string]*keptRow{}}
		defer e.kept.close()
	}
	if o.warmup > 0 {
		we := e
		we.duration = o.warmup
		for _, im := range impls {
			runW(we, im)
		}
	}
	var runners []runner
	for _, im := range impls {
		runners = append(runners, func(e env) result { return runW(e, im) })
	}
	for _, p := range ps {
		if p.supports(workload) {
			runners = append(runners, func(e env) result { return p.run(e, workload, nil)[0] })
		}
	}
	re := e
	re.duration = e.duration / time.Duration(o.rounds)
	rs := inTurns(re, o.rounds, runners)
	pairWithFloor(rs)
	return rs
}

// inTurns runs every runner rounds times, taking turns, and merges each
// runner's rounds. Each round starts one further along, and every other
// round goes the other way round, so that no runner always follows the
// same one (whatever a turn leaves behind on the server lands on all).
func inTurns(e env, rounds int, runners []runner) []result {
	n := len(runners)
	merged := make([]result, n)
	for round := range rounds {
		for k := range n {
			i := (round + k) % n
			if round%2 == 1 {
				i = (round + n - k) % n
			}
			merged[i] = merge(merged[i], runners[i](e))
		}
	}
	return merged
}

func summary(r result) string {
	if r.Error != "" {
		return "error: " + r.Error
	}
	s := fmt.Sprintf("%.0f cycles/s", r.CyclesPerSec)
	if r.Workload == "failover" {
		s = fmt.Sprintf("%d changes of leader, failover p50 %.0f µs, p99 %.0f µs", r.Cycles, r.FailoverP50us, r.FailoverP99us)
	}
	if r.Workload == "counter" || r.Workload == "atomic" {
		s = fmt.Sprintf("%.0f increments/s, %.2f conflicts/increment, %d violations", r.CyclesPerSec, r.Conflicts, r.Violations)
	}
	if r.Workload == "queue" {
		s = fmt.Sprintf("%.0f items/s, %.2f requests/item, %d violations", r.CyclesPerSec, r.ServerReqs, r.Violations)
	}
	if r.Subscribers > 0 {
		s = fmt.Sprintf("%d updates × %d subscribers, propagation p50 %.0f µs, p99 %.0f µs", r.Cycles, r.Subscribers, r.PropP50us, r.PropP99us)
	}
	if r.Caches > 0 {
		s = fmt.Sprintf("%d instances × %d followers, visible p50 %.0f µs, p99 %.0f µs, removed p50 %.0f µs, p99 %.0f µs", r.Cycles, r.Caches, r.PropP50us, r.PropP99us, r.RemovalP50us, r.RemovalP99us)
	}
	if r.Notes != "" {
		s += " (" + r.Notes + ")"
	}
	return s
}

// printTable prints every result, with each figure's ratio to the floor's.
func printTable(rs []result) {
	var failovers, propagations, counters, queues, discoveries, many []result
	rs = slices.DeleteFunc(slices.Clone(rs), func(r result) bool {
		switch _, isMany := manyLocksClients(r.Workload); {
		case isMany:
			many = append(many, r)
			return true
		case strings.HasPrefix(r.Workload, "discovery-"):
			discoveries = append(discoveries, r)
			return true
		case r.Workload == "failover":
			failovers = append(failovers, r)
			return true
		case r.Workload == "counter" || r.Workload == "atomic":
			counters = append(counters, r)
			return true
		case r.Workload == "queue":
			queues = append(queues, r)
			return true
		case r.Subscribers > 0:
			propagations = append(propagations, r)
			return true
		}
		return false
	})
	defer printManyLocks(many)
	defer printQueues(queues)
	defer printDiscovery(discoveries)
	defer printCounters(counters)
	defer printPropagations(propagations)
	defer printFailovers(failovers)
	if len(rs) == 0 {
		return
	}
	floorOf := floorRows(rs)
	tw := tabwriter.NewWriter(os.Stdout, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "workload\timpl\tcycles/s\tvs floor\tvs floor (median of rounds [95 % CI])\tp50 µs\tp99 µs\treq/cycle (client)\treq/cycle (server)\tclient CPU µs/cycle\tnotif/release\tB in/acquire\theap B/waiter\tstack B/waiter\tgoroutines/waiter\tviolations\t")
	for _, r := range rs {
		if r.Error != "" {
			fmt.Fprintf(tw, "%s\t%s\terror: %s\t\t\t\t\t\t\t\t\t\t\t\t\t\t\n", r.Workload, r.Impl, r.Error)
			continue
		}
		ratio := ""
		if f, ok := floorOf[r.Workload]; ok && f.CyclesPerSec > 0 && r.CyclesPerSec > 0 {
			ratio = fmt.Sprintf("%.2f×", r.CyclesPerSec/f.CyclesPerSec)
		}
		fmt.Fprintf(tw, "%s\t%s\t%.0f\t%s\t%s\t%.0f\t%.0f\t%.2f\t%.2f\t%.0f\t%.2f\t%.0f\t%.0f\t%.0f\t%.2f\t%d\t\n", r.Workload, r.Impl, r.CyclesPerSec, ratio, pairedText(r),
			r.HandoffP50us, r.HandoffP99us, r.ClientReqs, r.ServerReqs, r.CPUPerCycleUs, r.NotifPerRel, r.BytesInPerAcq, r.HeapPerWaiter, r.StackPerWaiter, r.GorosPerWaiter, r.Violations)
	}
	tw.Flush()
	printOver(rs)
	printHookCosts(rs)
}

// printOver prints gocurator's paired ratios to the other implementations.
func printOver(rs []result) {
	for _, r := range rs {
		if len(r.Over) == 0 {
			continue
		}
		var parts []string
		for _, impl := range slices.Sorted(maps.Keys(r.Over)) {
			p := r.Over[impl]
			parts = append(parts, fmt.Sprintf("%s %.2f× [%.2f–%.2f]", impl, p.Median, p.Low, p.High))
		}
		fmt.Printf("%s: %s over, median of rounds [95 %% CI]: %s\n", r.Workload, r.Impl, strings.Join(parts, ", "))
	}
}

// floorRows returns each workload's floor row.
func floorRows(rs []result) map[string]result {
	floors := map[string]result{}
	for _, r := range rs {
		if r.Impl == "floor" {
			floors[r.Workload] = r
		}
	}
	return floors
}

// pairedText is r's median over rounds of its ratio to the floor, with the
// median's 95 % interval; "" if the rounds gave none.
func pairedText(r result) string {
	if r.FloorRatio <= 0 {
		return ""
	}
	s := fmt.Sprintf("%.2f×", r.FloorRatio)
	if ci := r.FloorRatioCI; len(ci) == 2 && r.Impl != "floor" {
		s += fmt.Sprintf(" [%.2f–%.2f]", ci[0], ci[1])
	}
	return s
}

// printFailovers prints the failover workload's results, each percentile
// with its ratio to the floor's.
func printFailovers(rs []result) {
	if len(rs) == 0 {
		return
	}
	floor := floorRows(rs)["failover"]
	fmt.Println()
	tw := tabwriter.NewWriter(os.Stdout, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "failover\timpl\tchanges\tp50 µs\tp99 µs\tp50 vs floor\tp99 vs floor\tclose call p50 µs\tfrom wire p50 µs\tfrom wire p99 µs\tnotified→led p50 µs\tnotified→led p99 µs\treq/change (client)\treq/change (server)\tnotif/change\tviolations\t")
	for _, r := range rs {
		if r.Error != "" {
			fmt.Fprintf(tw, "failover\t%s\terror: %s\t\t\t\t\t\t\t\t\t\t\t\t\t\t\n", r.Impl, r.Error)
			continue
		}
		client, notif, wire50, wire99, not50, not99 := "–", "–", "–", "–", "–", "–"
		if r.ClientReqs > 0 {
			client, notif = fmt.Sprintf("%.2f", r.ClientReqs), fmt.Sprintf("%.2f", r.NotifPerRel)
		}
		if r.WireP50us > 0 {
			wire50, wire99 = fmt.Sprintf("%.0f", r.WireP50us), fmt.Sprintf("%.0f", r.WireP99us)
		}
		if r.NotifiedP50us > 0 {
			not50, not99 = fmt.Sprintf("%.0f", r.NotifiedP50us), fmt.Sprintf("%.0f", r.NotifiedP99us)
		}
		fmt.Fprintf(tw, "failover\t%s\t%d\t%.0f\t%.0f\t%s\t%s\t%.0f\t%s\t%s\t%s\t%s\t%s\t%.2f\t%s\t%d\t\n", r.Impl, r.Cycles, r.FailoverP50us, r.FailoverP99us,
			ratioText(r.FailoverP50us, floor.FailoverP50us), ratioText(r.FailoverP99us, floor.FailoverP99us), r.CloseP50us, wire50, wire99, not50, not99, client, r.ServerReqs, notif, r.Violations)
	}
	tw.Flush()
}
