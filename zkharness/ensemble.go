package zkharness

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
)

// Ensemble is a real N-member ZooKeeper quorum on loopback ports.
//
// Restarting a killed member: Debian's ZooKeeper 3.8.0 has a follower-sync
// bug (ZOOKEEPER-4394) that a member restarted on its old data after a
// SIGKILL often hits, ending with that member's tree diverging from the
// others'. Restart therefore wipes a killed member's data (keeping its myid),
// so it rejoins with a full snapshot from the leader, but only while the
// other members running form a quorum that holds every committed write: a
// member restarted without one (a one-member ensemble, or a majority killed)
// keeps its data, which may be the only copy. A member stopped gracefully
// (Stop) keeps its data.
type Ensemble struct {
	zk      zooKeeper
	dir     string
	members []*member
}

type member struct {
	mu      sync.Mutex
	id      int
	addr    string
	cfgPath string
	logPath string
	dataDir string
	proc    *process
	killed  bool
}

// StartEnsemble starts an n-member quorum and waits until every member
// serves.
func StartEnsemble(n int, opts ...Option) (*Ensemble, error) {
	if n < 1 {
		return nil, fmt.Errorf("recipestest: ensemble of %d members", n)
	}
	if newConfig(opts).tls {
		return nil, errEnsembleTLS
	}
	zkp, err := findZooKeeper()
	if err != nil {
		return nil, err
	}
	ports, err := freePorts(3 * n)
	if err != nil {
		return nil, err
	}
	dir, err := os.MkdirTemp("", "recipestest-ensemble-")
	if err != nil {
		return nil, err
	}
	e := &Ensemble{zk: zkp, dir: dir}
	var servers []string
	for i := range n {
		servers = append(servers, fmt.Sprintf("server.%d=127.0.0.1:%d:%d", i+1, ports[3*i+1], ports[3*i+2]))
	}
	cfg := newConfig(opts)
	e.zk.jvmFlags = cfg.jvmFlags()
	if e.zk.launcher, err = cfg.launcher(); err != nil {
		os.RemoveAll(dir)
		return nil, err
	}
	for i := range n {
		mdir := filepath.Join(dir, "m"+strconv.Itoa(i+1))
		m := &member{
			id:      i + 1,
			addr:    "127.0.0.1:" + strconv.Itoa(ports[3*i]),
			cfgPath: filepath.Join(mdir, "zoo.cfg"),
			logPath: filepath.Join(mdir, "server.log"),
			dataDir: filepath.Join(mdir, "data"),
		}
		text := cfg.zooCfg(m.dataDir, ports[3*i], append([]string{"initLimit=20", "syncLimit=10", "reconfigEnabled=false"}, servers...)...)
		err := m.writeMyID()
		if err == nil {
			err = os.WriteFile(m.cfgPath, []byte(text), 0o644)
		}
		if err != nil {
			os.RemoveAll(dir)
			return nil, err
		}
		e.members = append(e.members, m)
	}
	for _, m := range e.members {
		if err := m.start(e.zk, false, false); err != nil {
			e.Close()
			return nil, err
		}
	}
	for _, m := range e.members {
		if err := m.wait(); err != nil {
			e.Close()
			return nil, err
		}
	}
	return e, nil
}

func (m *member) writeMyID() error {
	if err := os.MkdirAll(m.dataDir, 0o755); err != nil {
		return err
	}
	return os.WriteFile(filepath.Join(m.dataDir, "myid"), []byte(strconv.Itoa(m.id)+"\n"), 0o644)
}

// start starts the member's server; a killed member's data is wiped first
// if mayWipe is set (see the Ensemble doc).
func (m *member) start(zkp zooKeeper, wait, mayWipe bool) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.proc != nil {
		return nil
	}
	if m.killed && mayWipe {
		// A fresh data directory: see the Ensemble doc (ZOOKEEPER-4394).
		if err := os.RemoveAll(m.dataDir); err != nil {
			return err
		}
		if err := m.writeMyID(); err != nil {
			return err
		}
	}
	m.killed = false
	p, err := startProcess(zkp, m.cfgPath, m.logPath)
	if err != nil {
		return err
	}
	m.proc = p
	if wait {
		return waitServing(p, m.addr, m.logPath)
	}
	return nil
}

func (m *member) running() bool {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.proc != nil
}

func (m *member) wait() error {
	m.mu.Lock()
	p := m.proc
	m.mu.Unlock()
	if p == nil {
		return errors.New("member is stopped")
	}
	return waitServing(p, m.addr, m.logPath)
}

func (m *member) stop(sig syscall.Signal) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.proc != nil {
		m.proc.stop(sig)
		m.proc = nil
		m.killed = sig == syscall.SIGKILL
	}
}

// ConnectString returns every member's address, comma-separated.
func (e *Ensemble) ConnectString() string {
	addrs := make([]string, len(e.members))
	for i, m := range e.members {
		addrs[i] = m.addr
	}
	return strings.Join(addrs, ",")
}

// Size returns the number of members.
func (e *Ensemble) Size() int { return len(e.members) }

// Member returns the client address of member i (0-based), or "" if there
// is no such member.
func (e *Ensemble) Member(i int) string {
	if e.member(i) != nil {
		return ""
	}
	return e.members[i].addr
}

// member checks that member i exists.
func (e *Ensemble) member(i int) error {
	if i < 0 || i >= len(e.members) {
		return fmt.Errorf("recipestest: no member %d in an ensemble of %d", i, len(e.members))
	}
	return nil
}

// Kill ends member i with SIGKILL, as a crash would.
func (e *Ensemble) Kill(i int) error {
	if err := e.member(i); err != nil {
		return err
	}
	e.members[i].stop(syscall.SIGKILL)
	return nil
}

// Stop shuts member i down gracefully (SIGTERM), keeping its data.
func (e *Ensemble) Stop(i int) error {
	if err := e.member(i); err != nil {
		return err
	}
	e.members[i].stop(syscall.SIGTERM)
	return nil
}

// Restart starts member i again and waits until it serves. A killed member
// restarts with a wiped data directory while the other members running form
// a quorum, and on its own data otherwise (see the Ensemble doc).
func (e *Ensemble) Restart(i int) error {
	if err := e.member(i); err != nil {
		return err
	}
	running := 0
	for j, m := range e.members {
		if j != i && m.running() {
			running++
		}
	}
	return e.members[i].start(e.zk, true, running > len(e.members)/2)
}

// Leader returns the index of the member that leads.
func (e *Ensemble) Leader(ctx context.Context) (int, error) {
	for i, m := range e.members {
		if md, err := mode(ctx, m.addr); err == nil && md == "leader" {
			return i, nil
		}
	}
	return -1, errors.New("no member leads")
}

// Command sends a four-letter-word command to member i.
func (e *Ensemble) Command(ctx context.Context, i int, cmd string) (string, error) {
	if err := e.member(i); err != nil {
		return "", err
	}
	return FourLetter(ctx, e.members[i].addr, cmd)
}

// Close stops every member and deletes the ensemble's data.
func (e *Ensemble) Close() error {
	for _, m := range e.members {
		m.stop(syscall.SIGKILL)
	}
	return os.RemoveAll(e.dir)
}
