package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"math/rand/v2"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/gocurator/curator/framework"
	"github.com/gocurator/curator/retry"
	"github.com/gocurator/curator/zkharness"
)

// config is a soak run's settings.
type config struct {
	duration    time.Duration // how long the recipes run under faults
	faultEvery  time.Duration // one fault this often
	sampleEvery time.Duration
	clients     int
	tick        time.Duration // ZooKeeper's tickTime
	session     time.Duration // the clients' session timeout
	down        time.Duration // how long a killed member stays down
	settle      time.Duration // longest wait for the caches, the queue and the process to settle at the end
	grace       time.Duration // how long a holder that found others inside waits for their losses
	faults      []string      // in turn
	dir         string        // where the samples, the report and the plot go
	seed        uint64
	verbose     bool
}

// finding is an invariant that broke.
type finding struct {
	Part string  `json:"part"`
	What string  `json:"what"`
	At   float64 `json:"at"` // seconds from the start of the faults
}

// faultRecord is one fault injected.
type faultRecord struct {
	Kind   string  `json:"kind"`
	Target string  `json:"target,omitempty"`
	At     float64 `json:"at"`   // seconds from the start of the faults
	Took   float64 `json:"took"` // seconds
	Note   string  `json:"note,omitempty"`
}

// soak is one run: the ensemble, a proxy in front of each member, the
// clients, the recipes' parts, the faults and the samples.
type soak struct {
	cfg   config
	log   *slog.Logger
	rng   *rand.Rand
	start time.Time

	ens     *zkharness.Ensemble
	proxies []*zkharness.Proxy
	clients []*framework.Client
	killers []*zkharness.SessionKiller
	admin   *framework.Client // the harness's own, straight to the members

	checks sync.WaitGroup // exclusion checks in flight

	mu       sync.Mutex
	findings []finding
	faults   []faultRecord
	samples  []sample
}

// now is the time since the faults began, in seconds.
func (s *soak) now() float64 { return time.Since(s.start).Seconds() }

// found records a broken invariant.
func (s *soak) found(part, what string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.findings = append(s.findings, finding{part, what, s.now()})
	s.log.Error("invariant broken", "part", part, "what", what)
}

// setUp starts the ensemble and a proxy in front of each member.
func (s *soak) setUp() error {
	var err error
	s.ens, err = zkharness.StartEnsemble(3, zkharness.WithTickTime(s.cfg.tick),
		zkharness.WithSessionTimeouts(min(s.cfg.session, 2*s.cfg.tick), max(s.cfg.session, 20*s.cfg.tick)))
	if err != nil {
		return err
	}
	for i := range s.ens.Size() {
		p, err := zkharness.NewProxy(s.ens.Member(i))
		if err != nil {
			return err
		}
		s.proxies = append(s.proxies, p)
	}
	return nil
}

// startClients starts the admin client (straight to the members) and the
// soak's clients (each through every proxy, with a session killer on its
// dialer).
func (s *soak) startClients() error {
	var addrs []string
	for _, p := range s.proxies {
		addrs = append(addrs, p.Addr())
	}
	var err error
	if s.admin, err = s.newClient(s.ens.ConnectString(), nil); err != nil {
		return err
	}
	for range s.cfg.clients {
		k := zkharness.NewSessionKiller()
		c, err := s.newClient(strings.Join(addrs, ","), k.Dialer(nil))
		if err != nil {
			return err
		}
		s.clients = append(s.clients, c)
		s.killers = append(s.killers, k)
	}
	return nil
}

// newClient starts a client of connect and waits for its session.
func (s *soak) newClient(connect string, dial framework.Dialer) (*framework.Client, error) {
	opts := []framework.Option{framework.WithSessionTimeout(s.cfg.session),
		framework.WithRetryPolicy(retry.ExponentialBackoffRetry(50*time.Millisecond, 8))}
	if dial != nil {
		opts = append(opts, framework.WithDialer(dial))
	}
	if s.cfg.verbose {
		opts = append(opts, framework.WithLogger(s.log))
	}
	c, err := framework.New(connect, opts...)
	if err != nil {
		return nil, err
	}
	if err := c.Start(context.Background()); err != nil {
		return nil, err
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	if err := c.BlockUntilConnected(ctx); err != nil {
		c.Close()
		return nil, err
	}
	return c, nil
}

// close stops everything setUp started.
func (s *soak) close() {
	for _, c := range s.clients {
		c.Close()
	}
	if s.admin != nil {
		s.admin.Close()
	}
	for _, p := range s.proxies {
		p.Close()
	}
	if s.ens != nil {
		s.ens.Close()
	}
}

// report is a run's outcome.
type report struct {
	OK          bool          `json:"ok"`
	Seconds     float64       `json:"seconds"` // of faults
	Clients     int           `json:"clients"`
	Faults      []faultRecord `json:"faults"`
	Findings    []finding     `json:"findings"`
	Growth      []growth      `json:"growth"`
	Parts       []partStats   `json:"parts"`
	Samples     int           `json:"samples"`
	WarmupUntil float64       `json:"warmup_until"`                // seconds: the first fault, until which the growth check leaves samples out
	Divergence  []string      `json:"server_divergence,omitempty"` // the members disagree: the server's fault, reported apart
	Goroutines  [2]int        `json:"goroutines_before_after"`     // before the clients started, and after everything closed
	Ephemerals  int64         `json:"ephemerals_after_close"`      // left once every recipe had closed, its client still open
}

// partStats is what a part did.
type partStats struct {
	Name  string           `json:"name"`
	Stats map[string]int64 `json:"stats"`
}

// run does a whole soak run.
func run(ctx context.Context, cfg config, log *slog.Logger) (*report, error) {
	s := &soak{cfg: cfg, log: log, rng: rand.New(rand.NewPCG(cfg.seed, cfg.seed^0x9e3779b97f4a7c15))}
	defer s.close()
	if err := s.setUp(); err != nil {
		return nil, err
	}
	goroutines0 := runtime.NumGoroutine()
	if err := s.startClients(); err != nil {
		return nil, err
	}
	parts := s.parts()
	s.start = time.Now()
	wctx, stop := context.WithCancel(ctx)
	var wg sync.WaitGroup
	for _, p := range parts {
		wg.Add(1)
		go func() {
			defer wg.Done()
			p.run(wctx)
		}()
	}
	sampled := make(chan struct{})
	sctx, stopSampling := context.WithCancel(ctx)
	go func() {
		defer close(sampled)
		s.sampleUntil(sctx)
	}()
	s.injectFaults(ctx)
	stopSampling()
	<-sampled
	seconds := s.now()
	log.Info("faults over; settling")
	for _, p := range parts { // before the workers stop: a check may need them (the caches' marker)
		if p.settle != nil {
			p.settle(ctx)
		}
	}
	stop()
	wg.Wait()
	for _, p := range parts {
		if p.finish != nil {
			p.finish(ctx)
		}
	}
	s.checks.Wait()
	r := &report{Seconds: seconds, Clients: cfg.clients}
	r.Ephemerals = s.ephemeralsLeft(ctx)
	if r.Ephemerals != 0 {
		s.found("close", fmt.Sprintf("%d ephemeral nodes left after every recipe closed (their clients still open): %s", r.Ephemerals, s.ephemeralPaths(ctx)))
	}
	r.Divergence = s.divergence(ctx)
	for _, c := range s.clients {
		c.Close()
	}
	s.admin.Close()
	r.Goroutines = [2]int{goroutines0, s.goroutinesBackTo(goroutines0)}
	if r.Goroutines[1] > goroutines0 {
		s.found("close", fmt.Sprintf("%d goroutines after every recipe and client closed, %d before the clients started", r.Goroutines[1], goroutines0))
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	r.Faults, r.Findings, r.Samples = s.faults, s.findings, len(s.samples)
	r.WarmupUntil = s.cfg.faultEvery.Seconds()
	for _, ser := range toSeries(s.samples, s.ens.Size()) {
		r.Growth = append(r.Growth, checkGrowth(ser, r.WarmupUntil))
	}
	for _, p := range parts {
		r.Parts = append(r.Parts, partStats{p.name, p.stats()})
	}
	r.OK = len(r.Findings) == 0 && !slices.ContainsFunc(r.Growth, func(g growth) bool { return g.Grows })
	return r, s.write(r)
}

// sampleUntil samples every cfg.sampleEvery until ctx ends.
func (s *soak) sampleUntil(ctx context.Context) {
	t := time.NewTicker(s.cfg.sampleEvery)
	defer t.Stop()
	for {
		smp := takeSample(ctx, s.ens, s.now())
		s.mu.Lock()
		s.samples = append(s.samples, smp)
		s.mu.Unlock()
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
	}
}

// ephemeralsLeft returns how many ephemeral nodes the ensemble holds, after
// a moment for guaranteed deletes to finish: every recipe has closed, and
// the clients, still open, should own none.
func (s *soak) ephemeralsLeft(ctx context.Context) int64 {
	deadline := time.Now().Add(s.cfg.settle)
	var n int64 = -1
	for time.Now().Before(deadline) && ctx.Err() == nil {
		n = -1
		for i := range s.ens.Size() {
			cctx, cancel := context.WithTimeout(ctx, 3*time.Second)
			out, err := s.ens.Command(cctx, i, "mntr")
			cancel()
			if err == nil {
				n = max(n, mntrValue(out, "zk_ephemerals_count"))
			}
		}
		if n == 0 {
			return 0
		}
		time.Sleep(100 * time.Millisecond)
	}
	return n
}

// ephemeralPaths returns the leader's list of ephemeral nodes by session
// (the four-letter dump), on one line.
func (s *soak) ephemeralPaths(ctx context.Context) string {
	ctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	l, err := s.ens.Leader(ctx)
	if err != nil {
		return err.Error()
	}
	out, err := s.ens.Command(ctx, l, "dump")
	if err != nil {
		return err.Error()
	}
	_, eph, _ := strings.Cut(out, "Sessions with Ephemerals")
	var sessions []string
	for i, c := range s.clients {
		sessions = append(sessions, fmt.Sprintf("client %d 0x%x", i, c.SessionID()))
	}
	return strings.Join(strings.Fields(eph), " ") + " (the clients' sessions: " + strings.Join(sessions, ", ") + ")"
}

// divergence compares the members at the end: their node counts and their
// digest-mismatch counters (Debian's ZooKeeper 3.8.0 can leave a restarted
// follower out of step, ZOOKEEPER-4394). It reports what differs. A
// follower applies a commit a moment after the leader does, and the
// members are read in turn, so counts that differ are read again until
// they agree, for divergenceWait at most: only a difference that lasts is
// reported.
func (s *soak) divergence(ctx context.Context) []string {
	deadline := time.Now().Add(divergenceWait)
	for {
		out, counts := s.compareMembers(ctx)
		if len(out) == 0 && counts == nil {
			return nil
		}
		if time.Now().After(deadline) || ctx.Err() != nil {
			if len(counts) > 0 {
				out = append(out, fmt.Sprintf("the members held different numbers of nodes for %v: %v at the last read", divergenceWait, counts))
			}
			return out
		}
		time.Sleep(500 * time.Millisecond)
	}
}

// divergenceWait is how long the members may take to agree at the end.
const divergenceWait = 10 * time.Second

// compareMembers reads each member's mntr once. It returns the digest
// mismatches and failed reads, and the node counts if they differ.
func (s *soak) compareMembers(ctx context.Context) (out []string, differing []int64) {
	var counts []int64
	for i := range s.ens.Size() {
		cctx, cancel := context.WithTimeout(ctx, 5*time.Second)
		m, err := s.ens.Command(cctx, i, "mntr")
		cancel()
		if err != nil {
			out = append(out, fmt.Sprintf("m%d: mntr: %v", i+1, err))
			continue
		}
		counts = append(counts, mntrValue(m, "zk_znode_count"))
		if d := mntrValue(m, "zk_digest_mismatches_count"); d > 0 {
			out = append(out, fmt.Sprintf("m%d: zk_digest_mismatches_count %d", i+1, d))
		}
	}
	if len(slices.Compact(slices.Sorted(slices.Values(counts)))) > 1 {
		return out, counts
	}
	return out, nil
}

// goroutinesBackTo waits, up to cfg.settle, until the process has at most
// n goroutines, and returns how many it has.
func (s *soak) goroutinesBackTo(n int) int {
	deadline := time.Now().Add(s.cfg.settle)
	for {
		g := runtime.NumGoroutine()
		if g <= n || time.Now().After(deadline) {
			return g
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// write saves the samples, the report and the plot in cfg.dir.
func (s *soak) write(r *report) error {
	if err := os.MkdirAll(s.cfg.dir, 0o755); err != nil {
		return err
	}
	var lines []byte
	for _, smp := range s.samples {
		b, _ := json.Marshal(smp)
		lines = append(append(lines, b...), '\n')
	}
	if err := os.WriteFile(filepath.Join(s.cfg.dir, "samples.jsonl"), lines, 0o644); err != nil {
		return err
	}
	b, err := json.MarshalIndent(r, "", "  ")
	if err != nil {
		return err
	}
	if err := os.WriteFile(filepath.Join(s.cfg.dir, "report.json"), append(b, '\n'), 0o644); err != nil {
		return err
	}
	f, err := os.Create(filepath.Join(s.cfg.dir, "soak.svg"))
	if err != nil {
		return err
	}
	title := fmt.Sprintf("gocurator soak: %d clients, every recipe, a 3-member ensemble, a fault every %v, %.1f min", s.cfg.clients, s.cfg.faultEvery, r.Seconds/60)
	err = writeSVG(f, title, toSeries(s.samples, s.ens.Size()), r.Growth, s.faults, r.WarmupUntil, r.Seconds)
	return errors.Join(err, f.Close())
}
