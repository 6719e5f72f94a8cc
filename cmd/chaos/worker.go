package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"math/rand/v2"
	"os"
	"os/signal"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/gocurator/curator/discovery"
	"github.com/gocurator/curator/framework"
	"github.com/gocurator/curator/listener"
	"github.com/gocurator/curator/recipes/atomic"
	"github.com/gocurator/curator/recipes/locks"
	"github.com/gocurator/curator/recipes/node"
	"github.com/gocurator/curator/retry"
	"github.com/gocurator/curator/zkharness"
)

// workerConfig is one worker process's settings, passed as flags.
type workerConfig struct {
	connect        string
	id, inc        int
	out            string
	lockPath       string
	logPath        string
	counterPath    string // the atomic long the worker increments; "" for none
	membersPath    string // parent of the worker's sequential member node (node.Node)
	servicesPath   string // base path of the worker's discovery registration
	session        time.Duration
	policy         string // standard or session
	writes         int
	txnTimeout     time.Duration
	acquireTimeout time.Duration
	releaseTimeout time.Duration
	gap            time.Duration // longest pause between writes
	idle           time.Duration // longest pause between holds
	verbose        bool
	workload       string // lock or queue
	queuePath      string // the queue workload's queue
	queueMode      string // lock-safe or plain
}

// args returns the flags that give c to a worker process.
func (c workerConfig) args() []string {
	return []string{
		"--connect=" + c.connect, fmt.Sprintf("--id=%d", c.id), fmt.Sprintf("--inc=%d", c.inc), "--out=" + c.out,
		"--lock=" + c.lockPath, "--log=" + c.logPath, "--counter=" + c.counterPath, "--members=" + c.membersPath, "--services=" + c.servicesPath,
		"--session=" + c.session.String(), "--policy=" + c.policy,
		fmt.Sprintf("--writes=%d", c.writes), "--txn-timeout=" + c.txnTimeout.String(),
		"--acquire-timeout=" + c.acquireTimeout.String(), "--release-timeout=" + c.releaseTimeout.String(),
		"--gap=" + c.gap.String(), "--idle=" + c.idle.String(), fmt.Sprintf("--verbose=%t", c.verbose),
		"--workload=" + c.workload, "--queue=" + c.queuePath, "--queue-mode=" + c.queueMode,
	}
}

// parseWorkerFlags reads a worker's flags.
func parseWorkerFlags(args []string, stderr io.Writer) (workerConfig, error) {
	var c workerConfig
	fs := flag.NewFlagSet("chaos worker", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.StringVar(&c.connect, "connect", "", "servers (or their proxies), comma-separated")
	fs.IntVar(&c.id, "id", 0, "worker number")
	fs.IntVar(&c.inc, "inc", 1, "incarnation: how many times this worker was started")
	fs.StringVar(&c.out, "out", "", "file to append JSON events to")
	fs.StringVar(&c.lockPath, "lock", "/chaos/lock", "the mutex's path")
	fs.StringVar(&c.logPath, "log", "/chaos/log", "parent of the fenced log entries")
	fs.StringVar(&c.counterPath, "counter", "", "the atomic long to increment beside the lock's work (\"\": none)")
	fs.StringVar(&c.membersPath, "members", "/chaos/members", "parent of the worker's member node")
	fs.StringVar(&c.servicesPath, "services", "/chaos/services", "base path of the worker's service registration")
	fs.DurationVar(&c.session, "session", 5*time.Second, "session timeout asked for")
	fs.StringVar(&c.policy, "policy", "standard", "connection error policy: standard or session")
	fs.IntVar(&c.writes, "writes", 2, "fenced writes per hold")
	fs.DurationVar(&c.txnTimeout, "txn-timeout", 2*time.Second, "deadline of each fenced write")
	fs.DurationVar(&c.acquireTimeout, "acquire-timeout", 30*time.Second, "deadline of each Acquire")
	fs.DurationVar(&c.releaseTimeout, "release-timeout", 10*time.Second, "deadline of each Release")
	fs.DurationVar(&c.gap, "gap", 20*time.Millisecond, "longest random pause between writes")
	fs.DurationVar(&c.idle, "idle", 50*time.Millisecond, "longest random pause between holds")
	fs.BoolVar(&c.verbose, "verbose", false, "the library logs to stderr")
	fs.StringVar(&c.workload, "workload", "lock", "lock (contend for the mutex) or queue (produce and consume)")
	fs.StringVar(&c.queuePath, "queue", "/chaos/queue", "the queue workload's queue")
	fs.StringVar(&c.queueMode, "queue-mode", "lock-safe", "the queue workload's consumers: lock-safe or plain")
	if err := fs.Parse(args); err != nil {
		return c, err
	}
	switch {
	case c.connect == "" || c.out == "":
		return c, errors.New("chaos worker: --connect and --out are required")
	case c.policy != "standard" && c.policy != "session":
		return c, fmt.Errorf("chaos worker: --policy %q: want standard or session", c.policy)
	case c.workload != "lock" && c.workload != "queue":
		return c, fmt.Errorf("chaos worker: --workload %q: want lock or queue", c.workload)
	case c.workload == "queue" && c.queueMode != "lock-safe" && c.queueMode != "plain":
		return c, fmt.Errorf("chaos worker: --queue-mode %q: want lock-safe or plain", c.queueMode)
	case c.writes < 0 || c.session <= 0 || c.txnTimeout <= 0 || c.acquireTimeout <= 0 || c.releaseTimeout <= 0 || c.gap < 0 || c.idle < 0:
		return c, errors.New("chaos worker: counts and durations must not be negative")
	}
	return c, nil
}

// worker is one client process contending for the lock: each hold does
// fenced writes to the log, and everything it sees goes to its output.
type worker struct {
	cfg    workerConfig
	client *framework.Client
	mutex  *locks.Mutex
	killer *zkharness.SessionKiller

	mu  sync.Mutex // serialises writes to out
	out *os.File
}

// runWorker is the worker process: it contends until SIGTERM, then
// releases, closes its client and exits 0.
func runWorker(args []string, stderr io.Writer) int {
	cfg, err := parseWorkerFlags(args, stderr)
	if err != nil {
		fmt.Fprintln(stderr, err)
		return 2
	}
	out, err := os.OpenFile(cfg.out, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
	if err != nil {
		fmt.Fprintln(stderr, "chaos worker:", err)
		return 1
	}
	defer out.Close()
	w := &worker{cfg: cfg, out: out, killer: zkharness.NewSessionKiller()}
	if err := w.run(stderr); err != nil {
		fmt.Fprintln(stderr, "chaos worker:", err)
		return 1
	}
	return 0
}

func (w *worker) run(stderr io.Writer) error {
	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGTERM, syscall.SIGINT)
	defer stop()
	var policy listener.ErrorPolicy = listener.StandardErrorPolicy{}
	if w.cfg.policy == "session" {
		policy = listener.SessionErrorPolicy{}
	}
	opts := []framework.Option{
		framework.WithSessionTimeout(w.cfg.session),
		framework.WithConnectionTimeout(w.cfg.session),
		framework.WithRetryPolicy(retry.ExponentialBackoffRetry(100*time.Millisecond, 5)),
		framework.WithErrorPolicy(policy),
		framework.WithDialer(w.killer.Dialer(nil)),
		// The lock node's data names its worker: the harness finds the
		// holder from it.
		framework.WithDefaultData([]byte(holderName(w.cfg.id, w.cfg.inc))),
	}
	if w.cfg.verbose {
		opts = append(opts, framework.WithLogger(slog.New(slog.NewTextHandler(stderr, &slog.HandlerOptions{Level: slog.LevelDebug}))))
	}
	client, err := framework.New(w.cfg.connect, opts...)
	if err != nil {
		return err
	}
	if err := client.Start(context.Background()); err != nil {
		return err
	}
	w.client = client
	if w.mutex, err = locks.NewMutex(client, w.cfg.lockPath); err != nil {
		client.Close()
		return err
	}
	w.emit(event{Ev: evStart, PID: os.Getpid()})
	leave := func() {}
	if w.cfg.membersPath != "" { // the membership runs beside the lock workload
		if leave, err = w.join(ctx); err != nil {
			client.Close()
			return err
		}
	}

	// SIGUSR1: close our own session on the server (an expiry, at once).
	usr1 := make(chan os.Signal, 1)
	signal.Notify(usr1, syscall.SIGUSR1)
	defer signal.Stop(usr1)
	killDone := make(chan struct{})
	go func() {
		defer close(killDone)
		for {
			select {
			case <-usr1:
				kctx, cancel := context.WithTimeout(context.Background(), w.cfg.session)
				err := w.killer.Kill(kctx)
				cancel()
				w.emit(event{Ev: evKill, Session: w.killer.SessionID()}.withErr(err))
			case <-ctx.Done():
				return
			}
		}
	}()

	countDone := make(chan struct{})
	go func() {
		defer close(countDone)
		if w.cfg.counterPath != "" {
			w.counting(ctx)
		}
	}()
	if w.cfg.workload == "queue" {
		w.runQueue(ctx)
	}
	for hold := 1; ctx.Err() == nil && w.cfg.workload == "lock"; hold++ {
		w.cycle(ctx, hold)
		sleepRand(ctx, w.cfg.idle)
	}
	<-countDone
	<-killDone
	leave()
	err = client.Close()
	w.emit(event{Ev: evExit}.withErr(err))
	return nil
}

// holderName is the data of a worker's lock node.
func holderName(id, inc int) string { return fmt.Sprintf("w%d.%d", id, inc) }

// cycle acquires the lock, writes to the log under the fence, and releases.
func (w *worker) cycle(ctx context.Context, n int) {
	actx, cancel := context.WithTimeout(ctx, w.cfg.acquireTimeout)
	start := time.Now().UnixNano()
	h, err := w.mutex.Acquire(actx)
	cancel()
	if err != nil {
		w.emit(event{Ev: evAcquireErr, Hold: n, Start: start}.withErr(err))
		sleepRand(ctx, 200*time.Millisecond) // a failing acquire must not spin
		return
	}
	watched := n%2 == 1 // half the holds watch for loss, half only ask Err
	w.emit(event{Ev: evAcquired, Hold: n, Path: h.Path(), Session: w.client.SessionID(), Watched: watched, Start: start})
	done := make(chan struct{})
	var wg sync.WaitGroup
	if watched {
		lost := h.Lost()
		wg.Add(1)
		go func() {
			defer wg.Done()
			select {
			case <-lost:
				w.emit(event{Ev: evLost, Hold: n, Path: h.Path()}.withErr(h.Err()))
			case <-done:
			}
		}()
	}
	w.critical(n, h)
	if err := h.Err(); err != nil {
		w.emit(event{Ev: evCheck, Hold: n, Path: h.Path()}.withErr(err))
	}
	rctx, cancel := context.WithTimeout(context.Background(), w.cfg.releaseTimeout)
	start = time.Now().UnixNano()
	err = h.Release(rctx)
	cancel()
	w.emit(event{Ev: evRelease, Hold: n, Path: h.Path(), Start: start}.withErr(err))
	close(done)
	wg.Wait()
}

// critical is the critical section: the hold's token, then fenced writes,
// each a transaction of the hold's fence and a sequential log entry whose
// data names the write. It stops at the first sign that the hold is gone.
func (w *worker) critical(n int, h *locks.Hold) {
	tctx, cancel := context.WithTimeout(context.Background(), w.cfg.txnTimeout)
	token, err := h.Token(tctx)
	cancel()
	w.emit(event{Ev: evToken, Hold: n, Path: h.Path(), Token: token}.withErr(err))
	if err != nil {
		return
	}
	for i := 1; i <= w.cfg.writes; i++ {
		if err := h.Err(); err != nil {
			return
		}
		data := entryData{Worker: w.cfg.id, Inc: w.cfg.inc, Hold: n, N: i, Token: token, Node: h.Path()}.String()
		protected := i%2 == 1 // protected and plain creates alternate
		var opts []framework.CreateOption
		if protected {
			opts = append(opts, framework.WithProtection())
		}
		wctx, cancel := context.WithTimeout(context.Background(), w.cfg.txnTimeout)
		start := time.Now().UnixNano()
		res, err := w.client.Txn(wctx, h.Fence(), framework.CreateOp(w.cfg.logPath+"/e-", []byte(data), framework.PersistentSequential, opts...))
		cancel()
		ev := event{Ev: evWrite, Hold: n, Path: h.Path(), Token: token, N: i, Data: data, Protected: protected, Start: start}.withErr(err)
		var te *framework.TxnError
		switch {
		case err == nil:
			ev.Outcome = outOK
			if len(res) == 2 {
				ev.Entry = res[1].Path
			}
		case errors.As(err, &te):
			ev.Outcome = outRefused
		default:
			ev.Outcome = outError
		}
		w.emit(ev)
		if ev.Outcome == outRefused || ev.Lost {
			return
		}
		sleepRand(context.Background(), w.cfg.gap)
	}
}

// counting increments the atomic long at cfg.counterPath until ctx ends,
// each increment under a deadline of its own (cfg.txnTimeout), and records
// each outcome with the values of its last try. Odd workers promote an
// increment whose optimistic tries fail to a lock, even ones do not.
func (w *worker) counting(ctx context.Context) {
	var opts []atomic.Option
	if w.cfg.id%2 == 1 {
		opts = append(opts, atomic.WithPromotion(atomic.Promotion{LockPath: w.cfg.counterPath + "-lock", Timeout: w.cfg.txnTimeout, Retry: retry.RetryNTimes(3, 10*time.Millisecond)}))
	}
	l, err := atomic.NewInt64(w.client, w.cfg.counterPath, retry.RetryNTimes(3, 10*time.Millisecond), opts...)
	if err != nil {
		w.emit(event{Ev: evIncrement, Outcome: outError}.withErr(err))
		return
	}
	for n := 1; ctx.Err() == nil; n++ {
		ictx, cancel := context.WithTimeout(context.Background(), w.cfg.txnTimeout)
		start, session := time.Now().UnixNano(), w.client.SessionID()
		res, err := l.Increment(ictx)
		cancel()
		ev := event{Ev: evIncrement, N: n, Start: start, Pre: res.Pre, Post: res.Post, SessionStart: session, Session: w.client.SessionID()}.withErr(err)
		switch {
		case errors.Is(err, framework.ErrOutcomeUnknown):
			ev.Outcome = outUnknown
		case err != nil:
			ev.Outcome = outError
		case res.Succeeded:
			ev.Outcome = outOK
		default:
			ev.Outcome = outFailed
		}
		w.emit(ev)
		sleepRand(ctx, w.cfg.idle)
	}
}

// emit appends ev to the output in one write, so that a kill leaves at
// most the last line cut short.
func (w *worker) emit(ev event) {
	ev.T = time.Now().UnixNano()
	ev.Worker, ev.Inc = w.cfg.id, w.cfg.inc
	b, err := json.Marshal(ev)
	if err != nil {
		return
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	if _, err := w.out.Write(append(b, '\n')); err != nil {
		fmt.Fprintln(os.Stderr, "chaos worker:", strings.TrimSpace(err.Error()))
	}
}

// sleepRand sleeps a random time up to d, or until ctx ends.
func sleepRand(ctx context.Context, d time.Duration) {
	if d <= 0 {
		return
	}
	t := time.NewTimer(rand.N(d))
	defer t.Stop()
	select {
	case <-t.C:
	case <-ctx.Done():
	}
}

// memberPayload is the payload of a worker's service instance: which
// incarnation registered it.
type memberPayload struct {
	Worker int `json:"worker"`
	Inc    int `json:"inc"`
}

// join makes the worker a member for its lifetime (ctx): a sequential
// node.Node under the members path holding its name, whose Created and
// Lost events go to the output, and a Dynamic instance w<id> of the
// service "workers". The instance's id is the same in every incarnation:
// a new incarnation takes over the node a killed one left until that
// session expires, then makes it again. leave closes both.
func (w *worker) join(ctx context.Context) (leave func(), err error) {
	name := holderName(w.cfg.id, w.cfg.inc)
	n, err := node.New(w.client, fmt.Sprintf("%s/w%d-", w.cfg.membersPath, w.cfg.id), []byte(name), node.WithMode(framework.EphemeralSequential))
	if err != nil {
		return nil, err
	}
	if _, err := n.AddListener(func(ev node.Event) {
		w.emit(event{Ev: evMember, Path: ev.Path, Outcome: strings.ToLower(ev.Type.String()), Session: w.client.SessionID()})
	}); err != nil {
		return nil, err
	}
	if err := n.Start(ctx); err != nil {
		return nil, err
	}
	d, err := discovery.New[memberPayload](w.client, w.cfg.servicesPath)
	if err != nil {
		n.Close()
		return nil, err
	}
	if err := d.Start(ctx); err != nil {
		n.Close()
		return nil, err
	}
	inst, err := d.Register(ctx, discovery.Instance[memberPayload]{Name: "workers", ID: fmt.Sprintf("w%d", w.cfg.id),
		Address: "127.0.0.1", Port: 10000 + w.cfg.id, Payload: memberPayload{w.cfg.id, w.cfg.inc}})
	w.emit(event{Ev: evRegistered, Path: inst.Name + "/" + inst.ID, Session: w.client.SessionID()}.withErr(err))
	return func() {
		w.emit(event{Ev: evLeave}.withErr(errors.Join(d.Close(), n.Close())))
	}, nil
}
