package main

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"time"

	"github.com/gocurator/curator/framework"
	"github.com/gocurator/curator/retry"
	"github.com/gocurator/curator/zkharness"
)

// config is a chaos run's settings.
type config struct {
	duration    time.Duration // how long faults are injected
	workers     int
	faults      []string
	tick        time.Duration // ZooKeeper's tickTime
	session     time.Duration // the workers' session timeout
	pause       time.Duration // how long a holder stays stopped (SIGSTOP)
	down        time.Duration // how long a killed member stays down
	gap         time.Duration // mean quiet time between faults
	settle      time.Duration // longest wait for every worker to acquire after the last fault
	writes      int           // fenced writes per hold
	policy      string        // standard, session or mixed
	dir         string        // where worker output goes
	seed        uint64
	verbose     bool // the workers' library logs to their stderr files
	lockPath    string
	logPath     string
	counterPath string // the atomic long the workers increment; "" for none
	members     string // parent of the workers' member nodes
	services    string // base path of the workers' service registrations
	txnTimeout  time.Duration
	workload    string // lock or queue
	queuePath   string // the queue workload's queue
	queueMode   string // lock-safe or plain
}

// spawner makes the command that runs a worker with the given flags: the
// chaos binary itself, or a test binary.
type spawner func(args []string) *exec.Cmd

// harness runs one chaos run: the ensemble, its proxies, the workers and
// the faults, and gathers what the checker needs.
type harness struct {
	cfg   config
	log   *slog.Logger
	spawn spawner
	rng   *rand.Rand

	ens     *zkharness.Ensemble
	proxies []*zkharness.Proxy
	admin   *framework.Client

	procs   map[int]*proc // each worker's current process
	all     []*proc
	harvest []logSet // transaction logs read from members before a restart wiped them

	faults        []faultRecord
	lastFaultEnd  time.Time
	dropRotation  int
	violationsRun []finding // found while running: hung or crashed workers
}

// proc is one worker process.
type proc struct {
	id, inc int
	cmd     *exec.Cmd
	exited  chan struct{}
	err     error // Wait's, once exited is closed
	killed  bool  // by a holder-kill fault
	stderr  *os.File
}

// faultRecord is one injected fault.
type faultRecord struct {
	Kind   string    `json:"kind"`
	Start  time.Time `json:"start"`
	End    time.Time `json:"end"`
	Target string    `json:"target,omitempty"`
	Note   string    `json:"note,omitempty"`
}

// run does a whole chaos run and returns its report.
func run(ctx context.Context, cfg config, spawn spawner, log *slog.Logger) (*report, error) {
	h := &harness{cfg: cfg, log: log, spawn: spawn, rng: rand.New(rand.NewPCG(cfg.seed, cfg.seed^0x9e3779b97f4a7c15)), procs: make(map[int]*proc)}
	defer h.close()
	begin := time.Now()
	if err := h.setUp(); err != nil {
		return nil, err
	}
	for id := 1; id <= cfg.workers; id++ {
		if err := h.startWorker(id, 1); err != nil {
			return nil, err
		}
	}
	if err := h.waitProgress(ctx, time.Time{}, time.Minute); err != nil {
		return nil, fmt.Errorf("before any fault: %w", err)
	}
	h.log.Info("every worker makes progress; faults begin", "workload", cfg.workload, "faults", cfg.faults, "duration", cfg.duration)
	h.injectFaults(ctx)
	h.log.Info("faults over; waiting for every worker to make progress again")
	progressErr := h.waitProgress(ctx, h.lastFaultEnd, cfg.settle)
	if cfg.workload == "queue" {
		h.drain(ctx)
	}
	if cfg.members != "" { // the workers are members too
		if err := h.waitMembership(ctx, cfg.settle); err != nil {
			h.violationsRun = append(h.violationsRun, finding{kind: vMemberMissing, what: err.Error()})
		}
	}
	h.stopWorkers()
	h.waitLockGone(ctx)
	views, err := h.serverViews(ctx)
	if err != nil {
		return nil, err
	}
	sets := slices.Clone(h.harvest)
	for i := range h.ens.Size() {
		set, err := h.readLogs(i, "final")
		if err != nil {
			return nil, err
		}
		sets = append(sets, set)
	}
	if err := dumpLogs(cfg.dir, sets); err != nil {
		return nil, err
	}
	var events []event
	for id := 1; id <= cfg.workers; id++ {
		evs, err := readEvents(h.workerOut(id))
		if err != nil {
			return nil, err
		}
		events = append(events, evs...)
	}
	in := checkInput{
		workload: cfg.workload, queuePath: cfg.queuePath, queueMode: cfg.queueMode,
		lockPath: cfg.lockPath, logPath: cfg.logPath, counterPath: cfg.counterPath, workers: cfg.workers,
		membersPath: cfg.members, servicesPath: cfg.services,
		logs: sets, events: events, views: views, lastFaultEnd: h.lastFaultEnd,
		killed: h.killedIncarnations(), extra: h.violationsRun,
	}
	if progressErr != nil {
		h.log.Warn("progress", "err", progressErr)
	}
	r := check(in)
	r.fill(cfg, h.faults, time.Since(begin))
	return r, nil
}

// setUp starts the ensemble, a proxy in front of each member, and an admin
// client that makes the log's parent.
func (h *harness) setUp() error {
	var err error
	h.ens, err = zkharness.StartEnsemble(3,
		zkharness.WithTickTime(h.cfg.tick),
		zkharness.WithSessionTimeouts(min(h.cfg.session, 2*h.cfg.tick), max(h.cfg.session, 20*h.cfg.tick)))
	if err != nil {
		return err
	}
	for i := range h.ens.Size() {
		p, err := zkharness.NewProxy(h.ens.Member(i))
		if err != nil {
			return err
		}
		h.proxies = append(h.proxies, p)
	}
	h.admin, err = framework.New(h.ens.ConnectString(),
		framework.WithSessionTimeout(h.cfg.session),
		framework.WithRetryPolicy(retry.ExponentialBackoffRetry(100*time.Millisecond, 10)))
	if err != nil {
		return err
	}
	if err := h.admin.Start(context.Background()); err != nil {
		return err
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	_, err = h.admin.Create(ctx, h.cfg.logPath, nil, framework.WithParents())
	return err
}

func (h *harness) close() {
	for _, p := range h.all {
		select {
		case <-p.exited:
		default:
			_ = p.cmd.Process.Kill()
			<-p.exited
		}
	}
	if h.admin != nil {
		h.admin.Close()
	}
	for _, p := range h.proxies {
		p.Close()
	}
	if h.ens != nil {
		h.ens.Close()
	}
}

// workerOut is worker id's output file, shared by its incarnations.
func (h *harness) workerOut(id int) string {
	return filepath.Join(h.cfg.dir, fmt.Sprintf("w%d.jsonl", id))
}

// startWorker starts incarnation inc of worker id.
func (h *harness) startWorker(id, inc int) error {
	addrs := make([]string, len(h.proxies))
	for i, p := range h.proxies {
		addrs[i] = p.Addr()
	}
	workload := h.cfg.workload
	if workload == "" {
		workload = "lock"
	}
	policy := h.cfg.policy
	if policy == "mixed" { // odd workers lose their hold on a suspension, even ones only on session loss
		policy = map[bool]string{true: "standard", false: "session"}[id%2 == 1]
	}
	wc := workerConfig{
		connect: strings.Join(addrs, ","), id: id, inc: inc, out: h.workerOut(id),
		lockPath: h.cfg.lockPath, logPath: h.cfg.logPath, counterPath: h.cfg.counterPath,
		membersPath: h.cfg.members, servicesPath: h.cfg.services, session: h.cfg.session, policy: policy,
		writes: h.cfg.writes, txnTimeout: h.cfg.txnTimeout, acquireTimeout: 30 * time.Second, releaseTimeout: 10 * time.Second,
		gap: 20 * time.Millisecond, idle: 50 * time.Millisecond, verbose: h.cfg.verbose,
		workload: workload, queuePath: h.cfg.queuePath, queueMode: h.cfg.queueMode,
	}
	stderr, err := os.Create(filepath.Join(h.cfg.dir, fmt.Sprintf("w%d.%d.stderr", id, inc)))
	if err != nil {
		return err
	}
	cmd := h.spawn(wc.args())
	cmd.Stdout, cmd.Stderr = stderr, stderr
	cmd.SysProcAttr = workerProcAttr()
	if err := cmd.Start(); err != nil {
		stderr.Close()
		return err
	}
	p := &proc{id: id, inc: inc, cmd: cmd, exited: make(chan struct{}), stderr: stderr}
	go func() {
		p.err = cmd.Wait()
		stderr.Close()
		close(p.exited)
	}()
	h.procs[id] = p
	h.all = append(h.all, p)
	return nil
}

// waitProgress waits until every worker's current process has made
// progress after since (acquired the lock; in the queue workload, put an
// item and consumed one), or timeout passes.
func (h *harness) waitProgress(ctx context.Context, since time.Time, timeout time.Duration) error {
	deadline := time.Now().Add(timeout)
	for {
		var missing []string
		for id := 1; id <= h.cfg.workers; id++ {
			evs, _ := readEvents(h.workerOut(id))
			p := h.procs[id]
			if !madeProgress(evs, h.cfg.workload, p.inc, since) {
				missing = append(missing, holderName(id, p.inc))
			}
		}
		if len(missing) == 0 {
			return nil
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("workers %v made no progress within %v", missing, timeout)
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(200 * time.Millisecond):
		}
	}
}

// madeProgress reports whether a worker's incarnation inc made progress
// after since: acquired the lock, or put an item and consumed one.
func madeProgress(evs []event, workload string, inc int, since time.Time) bool {
	has := func(kind string) bool {
		return slices.ContainsFunc(evs, func(ev event) bool {
			return ev.Ev == kind && ev.Inc == inc && ev.T > since.UnixNano() && (kind != evPut || ev.Outcome == outOK)
		})
	}
	if workload == "queue" {
		return has(evPut) && has(evConsumed)
	}
	return has(evAcquired)
}

// drain stops the queue workload's producers (SIGUSR2) and waits, up to
// cfg.settle, until the consumers have emptied the queue.
func (h *harness) drain(ctx context.Context) {
	for _, p := range h.procs {
		_ = p.cmd.Process.Signal(syscall.SIGUSR2)
	}
	deadline := time.Now().Add(h.cfg.settle)
	for time.Now().Before(deadline) && ctx.Err() == nil {
		cctx, cancel := context.WithTimeout(ctx, 5*time.Second)
		kids, _, err := h.admin.Children(cctx, h.cfg.queuePath)
		cancel()
		if err == nil && len(kids) == 0 {
			h.log.Info("the queue is drained")
			return
		}
		sleep(ctx, 100*time.Millisecond)
	}
	h.log.Warn("the queue was not drained", "within", h.cfg.settle)
}

// stopWorkers asks every worker to finish (SIGTERM) and waits; a worker
// that does not exit in time is a finding, and is killed after a goroutine
// dump (SIGQUIT) to its stderr file.
func (h *harness) stopWorkers() {
	for _, p := range h.procs {
		_ = p.cmd.Process.Signal(syscall.SIGTERM)
	}
	limit := time.After(30*time.Second + 2*h.cfg.session)
	for id := 1; id <= h.cfg.workers; id++ {
		p := h.procs[id]
		select {
		case <-p.exited:
		case <-limit:
		}
		select {
		case <-p.exited:
			if p.err != nil {
				h.violationsRun = append(h.violationsRun, finding{kind: "worker_failed", what: fmt.Sprintf("%s exited: %v (see w%d.%d.stderr)", holderName(id, p.inc), p.err, id, p.inc)})
			}
		default:
			_ = p.cmd.Process.Signal(syscall.SIGQUIT)
			select {
			case <-p.exited:
			case <-time.After(5 * time.Second):
				_ = p.cmd.Process.Kill()
				<-p.exited
			}
			h.violationsRun = append(h.violationsRun, finding{kind: "worker_hung", what: fmt.Sprintf("%s did not stop on SIGTERM (goroutines in w%d.%d.stderr)", holderName(id, p.inc), id, p.inc)})
		}
	}
}

// killedIncarnations returns the incarnations the harness killed, with the
// time of the kill.
func (h *harness) killedIncarnations() map[[2]int]time.Time {
	out := make(map[[2]int]time.Time)
	for _, f := range h.faults {
		if f.Kind == faultHolderKill && f.Target != "" {
			var id, inc int
			if _, err := fmt.Sscanf(f.Target, "w%d.%d", &id, &inc); err == nil {
				out[[2]int{id, inc}] = f.Start
			}
		}
	}
	return out
}

// waitLockGone waits (up to three session timeouts: a killed worker's
// session must expire first) until the lock's parent is gone: its last
// node deleted, and the container reaped by the server (every 100 ms with
// recipestest's settings), so that the members' trees are read at rest.
// The queue's lock path is a persistent node, as Curator makes it: it
// waits until it has no child.
func (h *harness) waitLockGone(ctx context.Context) {
	deadline := time.Now().Add(3 * h.cfg.session)
	for time.Now().Before(deadline) {
		cctx, cancel := context.WithTimeout(ctx, 5*time.Second)
		kids, _, err := h.admin.Children(cctx, h.cfg.lockPath)
		cancel()
		if errors.Is(err, framework.ErrNoNode) || (err == nil && len(kids) == 0 && h.cfg.workload == "queue") {
			return
		}
		sleep(ctx, 100*time.Millisecond)
	}
}

// readLogs reads member i's transaction logs.
func (h *harness) readLogs(i int, when string) (logSet, error) {
	dir, err := h.ens.DataDir(i)
	if err != nil {
		return logSet{}, err
	}
	txns, err := readTxnLogs(dir)
	if err != nil {
		return logSet{}, fmt.Errorf("member %d: %w", i+1, err)
	}
	return logSet{member: i, label: fmt.Sprintf("m%d %s", i+1, when), txns: txns}, nil
}

// dumpLogs writes each transaction log read, as text, to dir/txns-<n>.txt:
// the evidence behind a finding.
func dumpLogs(dir string, sets []logSet) error {
	for n, set := range sets {
		var b strings.Builder
		fmt.Fprintf(&b, "# member %d, read %s\n", set.member+1, strings.TrimPrefix(set.label, fmt.Sprintf("m%d ", set.member+1)))
		for _, t := range set.txns {
			fmt.Fprintf(&b, "%#x %s\n", t.Zxid, describe(t))
		}
		if err := os.WriteFile(filepath.Join(dir, fmt.Sprintf("txns-%d.txt", n+1)), []byte(b.String()), 0o644); err != nil {
			return err
		}
	}
	return nil
}
