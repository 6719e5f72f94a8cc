package harness

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"text/tabwriter"
	"time"

	"github.com/go-zookeeper/zk"

	"github.com/gocurator/curator/discovery"
	"github.com/gocurator/curator/zkharness"
)

// The discovery workload (issue 30), opt-in with --workloads discovery, in
// two parts on one service:
//
//   - visibility, with N followers for each N of --subscribers: the
//     harness's own bare session registers an instance (creates its
//     ephemeral node holding Curator's JSON); each follower is a service
//     cache in a session of its own. Measured from the create request sent
//     to each cache's listener having the instance; then the instance is
//     unregistered (deleted), measured from the delete request sent to each
//     cache without it. (From the request, not its reply: the server
//     notifies the watchers before it answers, and with twenty caches on two
//     cores the registrar often reads its answer after a cache has acted.)
//     The next registration waits until every cache has seen both, and then
//     propagationGap.
//   - crash: one provider follows the service; each cycle a fresh session
//     registers an instance, the provider has it, and the session is closed
//     on the server (zkharness.SessionKiller, as a crashed process's
//     session ends at its expiry): measured from the close request sent
//     (the server deletes the ephemeral node and notifies the watchers
//     before it answers) to the provider no longer offering the instance.
//     A provider has no listener, on either side: both are polled every
//     100 µs.
//
// Rows: gocurator (discovery.Cache, discovery.Provider), the floor (a bare
// getChildren watch and a getData per new child: what any children cache
// must do; no provider row), and curator (curator-x-discovery's
// ServiceCache and ServiceProvider, in a Java process).

// discoveryPoll is how often a provider is asked for its instances.
const discoveryPoll = 100 * time.Microsecond

// discoveryClasspath is Debian's libcurator-discovery-java, with the
// recipes jar its ServiceCache needs (its manifest does not name it).
const discoveryClasspath = "/usr/share/java/curator-x-discovery.jar:" + curatorJar

// discTrack is what a turn's followers report.
type discTrack struct{ seen, gone *tracker }

// discRow is one implementation's followers.
type discRow struct {
	name string
	// caches starts m caches of base/name in sessions of their own, each
	// reporting to t; provider starts one provider (nil: the row has none).
	caches   func(e env, base, name string, m int, t discTrack) (*subscription, error)
	provider func(e env, base, name string, t discTrack) (*subscription, error)
}

// instanceJSON is an instance's node data as Curator's serializer writes it.
func instanceJSON(name string, seq int64) []byte {
	return []byte(fmt.Sprintf(`{"name":%q,"id":"i-%d","address":"127.0.0.1","port":8080,"sslPort":null,"payload":null,"registrationTimeUTC":%d,"serviceType":"DYNAMIC","uriSpec":null}`,
		name, seq, time.Now().UnixMilli()))
}

// seqOf reads the number of an instance id i-<seq>.
func seqOf(id string) (string, bool) {
	s, ok := strings.CutPrefix(id, "i-")
	return s, ok
}

// runDiscoveryVisibility is one turn of a row with m caches: n
// registrations (and unregistrations) measured.
func runDiscoveryVisibility(e env, row discRow, m, n int, seq *int64) result {
	r := result{Impl: row.name, Workload: fmt.Sprintf("discovery-visible-%d", m), Clients: m + 1, Caches: m}
	s, err := connectZK(e.addr, true)
	if err != nil {
		r.Error = err.Error()
		return r
	}
	pub := s.(*zkSession)
	defer pub.close()
	base := "/bench/discovery/" + row.name
	dir := base + "/svc"
	ensureDir(pub.conn, dir)
	t := discTrack{newTracker(m), newTracker(m)}
	sub, err := row.caches(e, base, "svc", m, t)
	if err != nil {
		r.Error = fmt.Sprintf("%s: starting %d caches: %v", row.name, m, err)
		return r
	}
	defer sub.close()
	time.Sleep(propagationGap)
	reqs0, notifs0 := countAll(sub.counters)
	pubReqs0, srv0 := pub.cnt.Requests(), e.received()
	start := time.Now()
	var removals []time.Duration
	wait := func(done <-chan struct{}, tr *tracker, what string) bool {
		select {
		case <-done:
			return true
		case <-time.After(propagationWait):
			r.Error = fmt.Sprintf("instance %d: %d of %d caches saw its %s within %v", *seq, m-tr.left(), m, what, propagationWait)
			return false
		}
	}
	for i := 0; i < n; i++ {
		*seq++
		id := "i-" + strconv.FormatInt(*seq, 10)
		added := t.seen.expect(*seq)
		sent := mono()
		if _, err := pub.conn.Create(dir+"/"+id, instanceJSON("svc", *seq), zk.FlagEphemeral, openACL); err != nil {
			r.Error = err.Error()
			break
		}
		if !wait(added, t.seen, "registration") {
			break
		}
		for _, at := range t.seen.stamps() {
			if at < sent {
				r.early++
			}
			r.propagations = append(r.propagations, time.Duration(at-sent))
		}
		time.Sleep(propagationGap)
		removed := t.gone.expect(*seq)
		sent = mono()
		if err := pub.conn.Delete(dir+"/"+id, -1); err != nil {
			r.Error = err.Error()
			break
		}
		if !wait(removed, t.gone, "removal") {
			break
		}
		for _, at := range t.gone.stamps() {
			if at < sent {
				r.early++
			}
			removals = append(removals, time.Duration(at-sent))
		}
		r.Cycles++
		time.Sleep(propagationGap)
	}
	r.Seconds = time.Since(start).Seconds()
	srv := e.received() - srv0 - e.srvrQueries() - (pub.cnt.Requests() - pubReqs0)
	reqs, notifs := countAll(sub.counters)
	if deliveries := float64(r.Cycles) * float64(m); deliveries > 0 { // per registration and its removal, per cache
		r.ServerReqs = float64(srv) / deliveries
		if len(sub.counters) > 0 {
			r.ClientReqs = float64(reqs-reqs0) / deliveries
			r.NotifPerRel = float64(notifs-notifs0) / deliveries
		}
	}
	r.removals = removals
	v1, _ := t.seen.counts()
	v2, _ := t.gone.counts()
	r.Violations = v1 + v2
	return r
}

// runDiscoveryCrash is one turn of a row's provider: n crashed instances.
func runDiscoveryCrash(e env, row discRow, n int, seq *int64) result {
	r := result{Impl: row.name, Workload: "discovery-crash", Clients: 2, Caches: 1}
	base := "/bench/discovery/" + row.name
	dir := base + "/crash"
	admin, err := connectZK(e.addr, true)
	if err != nil {
		r.Error = err.Error()
		return r
	}
	defer admin.close()
	ensureDir(admin.(*zkSession).conn, dir)
	t := discTrack{newTracker(1), newTracker(1)}
	sub, err := row.provider(e, base, "crash", t)
	if err != nil {
		r.Error = fmt.Sprintf("%s: starting a provider: %v", row.name, err)
		return r
	}
	defer sub.close()
	start := time.Now()
	for i := 0; i < n; i++ {
		*seq++
		killer := zkharness.NewSessionKiller()
		s, err := connectZKWith(e.addr, true, killer.Dialer)
		if err != nil {
			r.Error = err.Error()
			break
		}
		zs := s.(*zkSession)
		id := "i-" + strconv.FormatInt(*seq, 10)
		added := t.seen.expect(*seq)
		if _, err := zs.conn.Create(dir+"/"+id, instanceJSON("crash", *seq), zk.FlagEphemeral, openACL); err != nil {
			zs.close()
			r.Error = err.Error()
			break
		}
		select {
		case <-added:
		case <-time.After(propagationWait):
			r.Error = fmt.Sprintf("instance %d: the provider never had it", *seq)
		}
		if r.Error != "" {
			zs.close()
			break
		}
		removed := t.gone.expect(*seq)
		ctx, cancel := context.WithTimeout(context.Background(), propagationWait)
		sent := mono() // the server's notifications can come before its answer to the close: time from the request
		err = killer.Kill(ctx)
		cancel()
		if err != nil {
			zs.close()
			r.Error = "closing the session: " + err.Error()
			break
		}
		select {
		case <-removed:
			for _, at := range t.gone.stamps() {
				r.removals = append(r.removals, time.Duration(at-sent))
			}
			r.Cycles++
		case <-time.After(propagationWait):
			r.Error = fmt.Sprintf("instance %d: the provider still offered it %v after its session closed", *seq, propagationWait)
		}
		zs.close()
		if r.Error != "" {
			break
		}
		time.Sleep(propagationGap)
	}
	r.Seconds = time.Since(start).Seconds()
	v1, _ := t.seen.counts()
	v2, _ := t.gone.counts()
	r.Violations = v1 + v2
	return r
}

// runDiscovery runs both parts for every row: rows take turns, o.rounds
// times, each turn measuring its share of e.updates (a tenth of them for
// the crash part, which opens a session per instance).
func runDiscovery(e env, o options) []result {
	rows, stop, errs := discoveryRows(e, o)
	defer stop()
	var rs []result
	var seq int64 = time.Now().UnixNano() / 1000 // ids never repeat across runs on one server
	rounds := max(1, min(o.rounds, e.updates))
	turns := func(workload string, run func(row discRow) result) {
		merged := make([]result, len(rows))
		for round := range rounds {
			for k := range rows {
				i := (round + k) % len(rows)
				r := run(rows[i])
				if merged[i].Impl == "" {
					merged[i] = r
					continue
				}
				if merged[i].Error == "" && r.Error != "" {
					merged[i].Error = r.Error
				}
				merged[i].Cycles += r.Cycles
				merged[i].Seconds += r.Seconds
				merged[i].Violations += r.Violations
				merged[i].early += r.early
				merged[i].propagations = append(merged[i].propagations, r.propagations...)
				merged[i].removals = append(merged[i].removals, r.removals...)
				merged[i].ServerReqs, merged[i].ClientReqs, merged[i].NotifPerRel = r.ServerReqs, r.ClientReqs, r.NotifPerRel // the last round's
			}
		}
		for _, r := range merged {
			if r.Impl == "" {
				continue
			}
			r.Rounds = rounds
			r.PropP50us, r.PropP99us = percentile(r.propagations, 50), percentile(r.propagations, 99)
			r.RemovalP50us, r.RemovalP99us = percentile(r.removals, 50), percentile(r.removals, 99)
			r.Deliveries = int64(len(r.propagations) + len(r.removals))
			if r.early > 0 {
				r.Notes = fmt.Sprintf("%d deliveries stamped before the registrar's create or delete was sent", r.early)
			}
			rs = append(rs, r)
		}
		for _, err := range errs {
			rs = append(rs, result{Impl: err.impl, Workload: workload, Error: err.err.Error()})
		}
	}
	for _, m := range o.subscribers {
		for _, row := range rows { // an unrecorded turn each: caches, JIT, connections warm
			runDiscoveryVisibility(e, row, m, max(1, e.updates/20), &seq)
		}
		turns(fmt.Sprintf("discovery-visible-%d", m), func(row discRow) result {
			return runDiscoveryVisibility(e, row, m, max(1, e.updates/rounds), &seq)
		})
	}
	var providers []discRow
	for _, row := range rows {
		if row.provider != nil {
			providers = append(providers, row)
			runDiscoveryCrash(e, row, 5, &seq) // warm-up
		}
	}
	rows = providers
	errs = nil
	turns("discovery-crash", func(row discRow) result {
		return runDiscoveryCrash(e, row, max(1, e.updates/10/rounds), &seq)
	})
	return rs
}

// discoveryRows returns the rows o.only selects; stop ends the peer.
func discoveryRows(e env, o options) (rows []discRow, stop func(), errs []rowError) {
	stop = func() {}
	for _, name := range o.only {
		switch name {
		case "gocurator":
			rows = append(rows, discRow{"gocurator", openGoCaches, openGoProvider})
		case "floor":
			rows = append(rows, discRow{"floor", openFloorCaches, nil})
		case "curator":
			if !sharedClock {
				errs = append(errs, rowError{name, errors.New("peers need Linux's CLOCK_MONOTONIC, shared with this process")})
				continue
			}
			p, err := startDiscPeer(e.addr)
			if err != nil {
				errs = append(errs, rowError{name, err})
				continue
			}
			stop = p.stop
			rows = append(rows, discRow{"curator", p.caches, p.provider})
		}
	}
	return rows, stop, errs
}

// openGoCaches opens m discovery.Caches, a client each.
func openGoCaches(e env, base, name string, m int, t discTrack) (*subscription, error) {
	return openSubscribers(m, func(i int, stamp *wireStamps) (*zkharness.Counter, func(), error) {
		s, err := connectGo(e.addr, stamp.dialer)
		if err != nil {
			return nil, nil, err
		}
		gs := s.(*goSession)
		d, err := discovery.New[json.RawMessage](gs.c, base)
		var c *discovery.Cache[json.RawMessage]
		if err == nil {
			c, err = d.NewCache(name)
		}
		if err == nil {
			_, err = c.AddListener(func(ev discovery.Event[json.RawMessage]) {
				at := mono()
				if v, ok := seqOf(ev.Instance.ID); ok {
					switch ev.Type {
					case discovery.Added:
						t.seen.seen(i, v, at)
					case discovery.Removed:
						t.gone.seen(i, v, at)
					}
				}
			})
		}
		if err == nil {
			err = c.Start(context.Background()) // its lifetime: it waits for the first load, which cannot hang
		}
		if err != nil {
			s.close()
			return nil, nil, err
		}
		return gs.cnt, func() { c.Close(); s.close() }, nil
	})
}

// openGoProvider opens one discovery.Provider and polls it.
func openGoProvider(e env, base, name string, t discTrack) (*subscription, error) {
	s, err := connectGo(e.addr, nil)
	if err != nil {
		return nil, err
	}
	gs := s.(*goSession)
	d, err := discovery.New[json.RawMessage](gs.c, base)
	var p *discovery.Provider[json.RawMessage]
	if err == nil {
		p, err = d.NewProvider(name, discovery.ProviderConfig[json.RawMessage]{})
	}
	if err == nil {
		err = p.Start(context.Background())
	}
	if err != nil {
		s.close()
		return nil, err
	}
	stopPoll := make(chan struct{})
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		had := map[string]bool{}
		for {
			at := mono()
			now := map[string]bool{}
			for _, inst := range p.Instances() {
				now[inst.ID] = true
			}
			follow(0, had, now, at, t)
			had = now
			select {
			case <-stopPoll:
				return
			case <-time.After(discoveryPoll):
			}
		}
	}()
	return &subscription{counters: []*zkharness.Counter{gs.cnt}, close: func() {
		close(stopPoll)
		wg.Wait()
		p.Close()
		s.close()
	}}, nil
}

// follow reports the instances that came and went between had and now.
func follow(sub int, had, now map[string]bool, at int64, t discTrack) {
	for id := range now {
		if v, ok := seqOf(id); ok && !had[id] {
			t.seen.seen(sub, v, at)
		}
	}
	for id := range had {
		if v, ok := seqOf(id); ok && !now[id] {
			t.gone.seen(sub, v, at)
		}
	}
}

// openFloorCaches is a children cache in bare go-zookeeper calls:
// getChildren with a watch, and on its notification getChildren with a
// watch again and getData of each new child.
func openFloorCaches(e env, base, name string, m int, t discTrack) (*subscription, error) {
	dir := base + "/" + name
	return openSubscribers(m, func(i int, stamp *wireStamps) (*zkharness.Counter, func(), error) {
		s, err := connectZKWith(e.addr, true, stamp.dialer)
		if err != nil {
			return nil, nil, err
		}
		zs := s.(*zkSession)
		stop := make(chan struct{})
		first := make(chan error, 1)
		var wg sync.WaitGroup
		wg.Add(1)
		go func() {
			defer wg.Done()
			had := map[string]bool{}
			for started := false; ; started = true {
				kids, _, w, err := zs.conn.ChildrenW(dir)
				if !started {
					first <- err
				}
				if err != nil {
					return
				}
				now := map[string]bool{}
				for _, k := range kids {
					if !had[k] {
						if _, _, err := zs.conn.Get(dir + "/" + k); err != nil {
							continue // gone since the listing
						}
					}
					now[k] = true
				}
				follow(i, had, now, mono(), t)
				had = now
				select {
				case <-w:
				case <-stop:
					return
				}
			}
		}()
		halt := func() { close(stop); zs.close(); wg.Wait() }
		if err := <-first; err != nil {
			halt()
			return nil, nil, errors.Join(errors.New("floor cache's first listing"), err)
		}
		return zs.cnt, halt, nil
	})
}

// discPeer is the running Java peer (peers/DiscoveryBench.java).
type discPeer struct {
	cmd     *exec.Cmd
	in      io.WriteCloser
	replies chan string
	stderr  *tailBuffer
	classes string
	ended   chan struct{}

	mu    sync.Mutex
	track *discTrack // the open followers' trackers; nil between turns
}

// startDiscPeer compiles and starts the Java peer, connecting to addr.
func startDiscPeer(addr string) (*discPeer, error) {
	for _, jar := range strings.Split(discoveryClasspath, ":") {
		if _, err := os.Stat(jar); err != nil {
			return nil, fmt.Errorf("curator's discovery is not installed (apt-get install -y libcurator-discovery-java): %w", err)
		}
	}
	classes, err := os.MkdirTemp("", "discovery-bench-")
	if err != nil {
		return nil, err
	}
	if out, err := exec.Command("javac", "-nowarn", "-cp", discoveryClasspath, "-d", classes, filepath.Join(peerDir(), "DiscoveryBench.java")).CombinedOutput(); err != nil {
		os.RemoveAll(classes)
		return nil, fmt.Errorf("javac: %v: %s", err, out)
	}
	p := &discPeer{replies: make(chan string, 16), stderr: &tailBuffer{max: 4000}, classes: classes, ended: make(chan struct{})}
	p.cmd = exec.Command("java", "-Xss512k", "-cp", classes+":"+discoveryClasspath, "DiscoveryBench", addr)
	p.cmd.Stderr = p.stderr
	in, err := p.cmd.StdinPipe()
	var out io.ReadCloser
	if err == nil {
		out, err = p.cmd.StdoutPipe()
	}
	if err == nil {
		err = p.cmd.Start()
	}
	if err != nil {
		os.RemoveAll(classes)
		return nil, fmt.Errorf("curator discovery peer: %w", err)
	}
	p.in = in
	go p.read(out)
	before := mono()
	r, err := p.call("clock")
	if err == nil {
		var at int64
		at, err = strconv.ParseInt(strings.TrimPrefix(r, "clock "), 10, 64)
		if err == nil && (at < before || at > mono()) {
			err = fmt.Errorf("its clock (%d) is not this process's CLOCK_MONOTONIC", at)
		}
	}
	if err != nil {
		p.stop()
		return nil, fmt.Errorf("curator discovery peer: %w", err)
	}
	return p, nil
}

// read hands "seen" and "gone" lines to the trackers, the rest to call.
func (p *discPeer) read(out io.Reader) {
	defer close(p.ended)
	defer close(p.replies)
	sc := bufio.NewScanner(out)
	for sc.Scan() {
		line := sc.Text()
		if f := strings.Fields(line); len(f) == 4 && (f[0] == "seen" || f[0] == "gone") {
			sub, err1 := strconv.Atoi(f[1])
			at, err2 := strconv.ParseInt(f[3], 10, 64)
			p.mu.Lock()
			t := p.track
			p.mu.Unlock()
			if err1 == nil && err2 == nil && t != nil {
				if f[0] == "seen" {
					t.seen.seen(sub, f[2], at)
				} else {
					t.gone.seen(sub, f[2], at)
				}
			}
			continue
		}
		p.replies <- line
	}
}

// call sends a command and returns the peer's answer.
func (p *discPeer) call(cmd string) (string, error) {
	if _, err := fmt.Fprintln(p.in, cmd); err != nil {
		return "", fmt.Errorf("%s: %w: %s", cmd, err, p.stderr)
	}
	select {
	case r, ok := <-p.replies:
		if !ok {
			return "", fmt.Errorf("%s: the peer ended: %s", cmd, p.stderr)
		}
		return r, nil
	case <-time.After(2 * propagationWait):
		return "", fmt.Errorf("%s: no answer: %s", cmd, p.stderr)
	}
}

// open has the peer start followers with command cmd, reporting to t.
func (p *discPeer) open(cmd string, t discTrack) (*subscription, error) {
	p.mu.Lock()
	p.track = &t
	p.mu.Unlock()
	forget := func() {
		p.mu.Lock()
		p.track = nil
		p.mu.Unlock()
	}
	if r, err := p.call(cmd); err != nil || r != "ready" {
		forget()
		if err == nil {
			err = fmt.Errorf("%s: the peer answered %q: %s", cmd, r, p.stderr)
		}
		return nil, err
	}
	return &subscription{close: func() {
		p.call("close")
		forget()
	}}, nil
}

func (p *discPeer) caches(e env, base, name string, m int, t discTrack) (*subscription, error) {
	return p.open(fmt.Sprintf("caches %d %s %s", m, base, name), t)
}

func (p *discPeer) provider(e env, base, name string, t discTrack) (*subscription, error) {
	return p.open(fmt.Sprintf("provider %s %s", base, name), t)
}

// stop ends the peer process and removes its classes.
func (p *discPeer) stop() {
	p.in.Close()
	go func() {
		for range p.replies {
		}
	}()
	select {
	case <-p.ended:
	case <-time.After(10 * time.Second):
		p.cmd.Process.Kill()
		<-p.ended
	}
	p.cmd.Wait()
	os.RemoveAll(p.classes)
}

// printDiscovery prints the discovery workload's results, each percentile
// with its ratio to the floor's.
func printDiscovery(rs []result) {
	if len(rs) == 0 {
		return
	}
	floors := floorRows(rs)
	curators := map[string]result{}
	for _, r := range rs {
		if r.Impl == "curator" {
			curators[r.Workload] = r
		}
	}
	fmt.Println()
	tw := tabwriter.NewWriter(os.Stdout, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "workload\timpl\tfollowers\tinstances\tvisible p50 µs\tvisible p99 µs\tp50 vs floor\tp50 vs curator\tremoved p50 µs\tremoved p99 µs\tp50 vs floor\tp50 vs curator\treq/instance/cache (client)\treq/instance/cache (server)\tnotif/instance/cache\tviolations\t")
	for _, r := range rs {
		if r.Error != "" {
			fmt.Fprintf(tw, "%s\t%s\t%d\terror: %s\t\t\t\t\t\t\t\t\t\t\t\t\t\n", r.Workload, r.Impl, r.Caches, r.Error)
			continue
		}
		f, c := floors[r.Workload], curators[r.Workload]
		vis50, vis99, visRatio, visCurator, client, server, notif := "–", "–", "–", "–", "–", "–", "–"
		if r.PropP50us > 0 {
			vis50, vis99 = fmt.Sprintf("%.0f", r.PropP50us), fmt.Sprintf("%.0f", r.PropP99us)
			visRatio, visCurator = ratioText(r.PropP50us, f.PropP50us), ratioText(r.PropP50us, c.PropP50us)
		}
		if r.ServerReqs > 0 {
			server = fmt.Sprintf("%.2f", r.ServerReqs)
		}
		if r.ClientReqs > 0 {
			client, notif = fmt.Sprintf("%.2f", r.ClientReqs), fmt.Sprintf("%.2f", r.NotifPerRel)
		}
		fmt.Fprintf(tw, "%s\t%s\t%d\t%d\t%s\t%s\t%s\t%s\t%.0f\t%.0f\t%s\t%s\t%s\t%s\t%s\t%d\t\n", r.Workload, r.Impl, r.Caches, r.Cycles, vis50, vis99, visRatio, visCurator,
			r.RemovalP50us, r.RemovalP99us, ratioText(r.RemovalP50us, f.RemovalP50us), ratioText(r.RemovalP50us, c.RemovalP50us), client, server, notif, r.Violations)
	}
	tw.Flush()
}
