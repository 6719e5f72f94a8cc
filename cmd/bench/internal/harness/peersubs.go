package harness

import (
	"bufio"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"time"
)

// The propagation workload's peers: a Java process with Curator's
// CuratorCache, and Python processes with Kazoo's DataWatch and TreeCache.
// Each runs subscribers only; the harness publishes. It is driven line by
// line on its standard input:
//
//	clock                  → clock <CLOCK_MONOTONIC ns>
//	open <m> <base> <cfg>  → ready, once m subscribers (a session each) have their first copy
//	close                  → closed, once they are closed
//
// and writes "seen <subscriber> <value> <ns>" whenever a subscriber's
// listener sees the config node's value, stamped with CLOCK_MONOTONIC
// (Java's System.nanoTime, Python's time.monotonic_ns) as the listener
// starts.

// peerSub is one peer row, or why it cannot run.
type peerSub struct {
	name   string
	proc   *peerSubs
	warmup time.Duration
	err    error
}

// peerSubscribers starts the processes of a peer's rows: curator's
// CuratorCache, or kazoo's DataWatch and TreeCache.
func peerSubscribers(peer string, e env, o options) []peerSub {
	switch peer {
	case "curator":
		classes, err := compileCurator()
		if err != nil {
			return []peerSub{{name: "curator", err: err}}
		}
		p, err := startPeerSubs("curator", func() { os.RemoveAll(classes) }, "java", "-Xss512k", "-cp", classes+":"+curatorJar, "CuratorBench", e.addr, "propagation-subscribers")
		return []peerSub{{"curator", p, e.peerWarmup, err}}
	case "kazoo":
		if out, err := exec.Command(debianPython, "-c", "import kazoo").CombinedOutput(); err != nil {
			err = fmt.Errorf("kazoo is not installed (apt-get install -y python3-kazoo): %s", out)
			return []peerSub{{name: "kazoo", err: err}, {name: "kazoo-tree", err: err}}
		}
		script := filepath.Join(peerDir(), "kazoo_bench.py")
		var ps []peerSub
		for _, row := range [][2]string{{"kazoo", "datawatch"}, {"kazoo-tree", "treecache"}} {
			p, err := startPeerSubs(row[0], nil, debianPython, script, e.addr, "propagation-subscribers", row[1])
			ps = append(ps, peerSub{row[0], p, o.warmup, err})
		}
		return ps
	}
	return nil
}

// peerSubs is a running peer process.
type peerSubs struct {
	name    string
	cmd     *exec.Cmd
	in      io.WriteCloser
	replies chan string // every line but "seen"; closed when the process's output ends
	stderr  *tailBuffer
	cleanup func()
	ended   chan struct{} // closed once the process's output is read to its end

	mu   sync.Mutex
	seen seenFunc // the open subscribers' tracker; nil between turns
}

// startPeerSubs starts a peer process and checks that it stamps with this
// process's clock. cleanup, if not nil, runs when it stops.
func startPeerSubs(name string, cleanup func(), prog string, args ...string) (*peerSubs, error) {
	p := &peerSubs{name: name, replies: make(chan string, 16), stderr: &tailBuffer{max: 4000}, cleanup: cleanup, ended: make(chan struct{})}
	p.cmd = exec.Command(prog, args...)
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
		if cleanup != nil {
			cleanup()
		}
		return nil, fmt.Errorf("%s peer: %w", name, err)
	}
	p.in = in
	go p.read(out)
	before := mono()
	r, err := p.call("clock", propagationWait)
	if err == nil {
		var t int64
		t, err = strconv.ParseInt(strings.TrimPrefix(r, "clock "), 10, 64)
		if err == nil && (t < before || t > mono()) {
			err = fmt.Errorf("its clock (%d) is not this process's CLOCK_MONOTONIC (%d and later)", t, before)
		}
	}
	if err != nil {
		p.stop()
		return nil, fmt.Errorf("%s peer: %w", name, err)
	}
	return p, nil
}

// read hands "seen" lines to the open subscribers' tracker and the rest to
// call, until the process's output ends.
func (p *peerSubs) read(out io.Reader) {
	defer close(p.ended)
	defer close(p.replies)
	sc := bufio.NewScanner(out)
	for sc.Scan() {
		line := sc.Text()
		if f := strings.Fields(line); len(f) == 4 && f[0] == "seen" {
			sub, err1 := strconv.Atoi(f[1])
			at, err2 := strconv.ParseInt(f[3], 10, 64)
			p.mu.Lock()
			seen := p.seen
			p.mu.Unlock()
			if err1 == nil && err2 == nil && seen != nil {
				seen(sub, f[2], at)
			}
			continue
		}
		p.replies <- line
	}
}

// call sends a command and returns the peer's answer.
func (p *peerSubs) call(cmd string, timeout time.Duration) (string, error) {
	if _, err := fmt.Fprintln(p.in, cmd); err != nil {
		return "", fmt.Errorf("%s: %w: %s", cmd, err, p.stderr)
	}
	t := time.NewTimer(timeout)
	defer t.Stop()
	select {
	case r, ok := <-p.replies:
		if !ok {
			return "", fmt.Errorf("%s: the peer ended: %s", cmd, p.stderr)
		}
		return r, nil
	case <-t.C:
		return "", fmt.Errorf("%s: no answer within %v: %s", cmd, timeout, p.stderr)
	}
}

// open is the row's propRow.open: the peer opens m subscribers.
func (p *peerSubs) open(_ env, base, cfg string, m int, seen seenFunc) (*subscription, error) {
	p.mu.Lock()
	p.seen = seen
	p.mu.Unlock()
	forget := func() {
		p.mu.Lock()
		p.seen = nil
		p.mu.Unlock()
	}
	if r, err := p.call(fmt.Sprintf("open %d %s %s", m, base, cfg), 2*propagationWait); err != nil || r != "ready" {
		forget()
		if err == nil {
			err = fmt.Errorf("open: the peer answered %q: %s", r, p.stderr)
		}
		return nil, err
	}
	return &subscription{close: func() {
		p.call("close", 2*propagationWait)
		forget()
	}}, nil
}

// stop ends the peer process: its input closes, and it is killed if it has
// not exited within a few seconds.
func (p *peerSubs) stop() {
	p.in.Close()
	go func() { // take what is left, so that read never blocks; it ends when read does
		for range p.replies {
		}
	}()
	t := time.NewTimer(10 * time.Second)
	defer t.Stop()
	select {
	case <-p.ended:
	case <-t.C:
		p.cmd.Process.Kill()
		<-p.ended
	}
	p.cmd.Wait()
	if p.cleanup != nil {
		p.cleanup()
	}
}

// tailBuffer keeps the last max bytes written to it.
type tailBuffer struct {
	mu  sync.Mutex
	max int
	b   []byte
}

func (t *tailBuffer) Write(b []byte) (int, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.b = append(t.b, b...)
	if len(t.b) > t.max {
		t.b = t.b[len(t.b)-t.max:]
	}
	return len(b), nil
}

func (t *tailBuffer) String() string {
	t.mu.Lock()
	defer t.mu.Unlock()
	return string(t.b)
}
