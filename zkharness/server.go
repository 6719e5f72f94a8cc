package zkharness

import (
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"
)

// Option configures a Server or an Ensemble.
type Option func(*config)

type config struct {
	tickTime   time.Duration
	minSession time.Duration
	maxSession time.Duration
	noSync     bool
	stock      bool
	tls        bool
	noExtended bool
	cpus       []int
}

// WithTickTime sets ZooKeeper's tickTime (default 200ms). Session timeouts
// are clamped to [2, 20] ticks unless WithSessionTimeouts says otherwise.
func WithTickTime(d time.Duration) Option { return func(c *config) { c.tickTime = d } }

// WithSessionTimeouts sets the bounds the server clamps session timeouts to.
func WithSessionTimeouts(min, max time.Duration) Option {
	return func(c *config) { c.minSession, c.maxSession = min, max }
}

// WithoutFsync turns off the server's fsync of its transaction log
// (forceSync=no). Writes then cost the server's CPU rather than the disk's
// flush, which is what a benchmark of client libraries wants to compare; it
// is unsafe only if the machine itself crashes.
func WithoutFsync() Option { return func(c *config) { c.noSync = true } }

// WithStockSettings runs the server's JVM with the JVM's own defaults: both
// JIT compilers, its default garbage collector and heap, instead of the
// quick-starting, small ones tests use; and empty containers are reaped every
// minute (ZooKeeper's default) instead of every 100ms. (ZooKeeper's own
// scripts add a 1000 MB heap limit; a benchmark's server needs far less.) A benchmark wants a server like the ones
// it will be compared with; tests that wait for a container to go do not.
func WithStockSettings() Option { return func(c *config) { c.stock = true } }

// WithoutExtendedTypes starts the server without extended types
// (zookeeper.extendedTypesEnabled=false, ZooKeeper's own default): it refuses
// TTL nodes with an Unimplemented error. Without this option the kit's servers
// enable them, so that TTL recipes can be tested.
func WithoutExtendedTypes() Option { return func(c *config) { c.noExtended = true } }

// WithCPUs runs the server's JVM (each member's, in an ensemble) on these
// CPUs only, through util-linux's taskset, which must be on the PATH. A
// benchmark uses it to keep the server off the cores its clients run on, so
// that neither takes the other's CPU time.
func WithCPUs(cpus ...int) Option {
	return func(c *config) { c.cpus = slices.Clone(cpus) }
}

// ErrBadCPU is NewServer's and StartEnsemble's error for a CPU given to
// WithCPUs that cannot be one (a negative number).
var ErrBadCPU = errors.New("zkharness: WithCPUs: no such CPU")

// launcher returns the command and arguments the JVM's command line is
// given to: none, or taskset with the CPUs of WithCPUs.
func (c config) launcher() ([]string, error) {
	if len(c.cpus) == 0 {
		return nil, nil
	}
	list := make([]string, len(c.cpus))
	for i, cpu := range c.cpus {
		if cpu < 0 {
			return nil, fmt.Errorf("%w: %d", ErrBadCPU, cpu)
		}
		list[i] = strconv.Itoa(cpu)
	}
	taskset, err := exec.LookPath("taskset")
	if err != nil {
		return nil, fmt.Errorf("zkharness: WithCPUs needs taskset (util-linux): %w", err)
	}
	return []string{taskset, "-c", strings.Join(list, ",")}, nil
}

// jvmFlags returns the flags the server's JVM starts with.
func (c config) jvmFlags() []string {
	var flags []string
	if !c.stock {
		flags = []string{
			"-Xms32m", "-Xmx256m", "-XX:+UseSerialGC", "-XX:TieredStopAtLevel=1", "-Xshare:auto",
			"-Dznode.container.checkIntervalMs=100",
		}
	}
	return append(flags, "-Dzookeeper.extendedTypesEnabled="+strconv.FormatBool(!c.noExtended))
}

func newConfig(opts []Option) config {
	c := config{tickTime: 200 * time.Millisecond}
	for _, o := range opts {
		o(&c)
	}
	return c
}

// zooCfg writes the configuration every server shares; extra adds lines.
func (c config) zooCfg(dataDir string, clientPort int, extra ...string) string {
	lines := []string{
		"tickTime=" + strconv.Itoa(int(c.tickTime.Milliseconds())),
		"dataDir=" + filepath.ToSlash(dataDir), // Java's Properties reads a backslash as an escape
		"clientPort=" + strconv.Itoa(clientPort),
		"clientPortAddress=127.0.0.1",
		"maxClientCnxns=0",
		"admin.enableServer=false",
		"4lw.commands.whitelist=*",
		"autopurge.purgeInterval=0",
	}
	if c.minSession > 0 {
		lines = append(lines, "minSessionTimeout="+strconv.Itoa(int(c.minSession.Milliseconds())))
	}
	if c.maxSession > 0 {
		lines = append(lines, "maxSessionTimeout="+strconv.Itoa(int(c.maxSession.Milliseconds())))
	}
	if c.noSync {
		lines = append(lines, "forceSync=no")
	}
	return strings.Join(append(lines, extra...), "\n") + "\n"
}

// Server is a real standalone ZooKeeper on a free 127.0.0.1 port, with its
// data in a temporary directory. It is safe for concurrent use.
type Server struct {
	zk      zooKeeper
	dir     string
	addr    string
	cfgPath string
	logPath string

	secureAddr string      // with WithTLS
	clientTLS  *tls.Config // with WithTLS
	clientPEM  pemFiles    // the same as PEM, with WithTLS

	mu   sync.Mutex
	proc *process // nil while stopped
}

// NewServer starts a standalone server and waits until it serves.
func NewServer(opts ...Option) (*Server, error) {
	zkp, err := findZooKeeper()
	if err != nil {
		return nil, err
	}
	c := newConfig(opts)
	if zkp.launcher, err = c.launcher(); err != nil {
		return nil, err
	}
	nports := 1
	if c.tls {
		nports = 2
	}
	ports, err := freePorts(nports)
	if err != nil {
		return nil, err
	}
	dir, err := os.MkdirTemp("", "recipestest-zk-")
	if err != nil {
		return nil, err
	}
	s := &Server{
		zk:      zkp,
		dir:     dir,
		addr:    "127.0.0.1:" + strconv.Itoa(ports[0]),
		cfgPath: filepath.Join(dir, "zoo.cfg"),
		logPath: filepath.Join(dir, "server.log"),
	}
	s.zk.jvmFlags = c.jvmFlags()
	var extra []string
	if c.tls {
		if extra, err = s.setUpTLS(ports[1]); err != nil {
			os.RemoveAll(dir)
			return nil, err
		}
	}
	cfg := c.zooCfg(filepath.Join(dir, "data"), ports[0], extra...)
	if err := os.WriteFile(s.cfgPath, []byte(cfg), 0o644); err != nil {
		os.RemoveAll(dir)
		return nil, err
	}
	if err := s.Restart(); err != nil {
		os.RemoveAll(dir)
		return nil, err
	}
	return s, nil
}

// ConnectString returns the server's "host:port".
func (s *Server) ConnectString() string { return s.addr }

// Addr returns the server's "host:port".
func (s *Server) Addr() string { return s.addr }

// LogPath returns the file the server logs to.
func (s *Server) LogPath() string { return s.logPath }

// Stop kills the server (SIGKILL), keeping its data. Sessions live on in the
// data and survive a Restart within their timeout.
func (s *Server) Stop() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.proc != nil {
		s.proc.stop(syscall.SIGKILL)
		s.proc = nil
	}
	return nil
}

// Restart starts a stopped server on the same port and data and waits until
// it serves. It is a no-op on a running server.
func (s *Server) Restart() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.proc != nil {
		return nil
	}
	if s.dir == "" {
		return fmt.Errorf("recipestest: server is closed")
	}
	p, err := startProcess(s.zk, s.cfgPath, s.logPath)
	if err != nil {
		return err
	}
	if err := waitServing(p, s.addr, s.logPath); err != nil {
		p.stop(syscall.SIGKILL)
		return err
	}
	s.proc = p
	return nil
}

// Close stops the server and deletes its data.
func (s *Server) Close() error {
	s.Stop()
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.dir == "" {
		return nil
	}
	err := os.RemoveAll(s.dir)
	s.dir = ""
	return err
}

// Command sends a four-letter-word command ("srvr", "mntr", "cons", ...).
func (s *Server) Command(ctx context.Context, cmd string) (string, error) {
	return FourLetter(ctx, s.addr, cmd)
}

// Received returns the server's count of packets received (srvr's
// "Received:", pings included), for counting a client's requests.
func (s *Server) Received(ctx context.Context) (int64, error) { return Received(ctx, s.addr) }

// Received returns the "Received:" count of the server at addr. Asking adds
// one (the command itself), as every four-letter command does.
func Received(ctx context.Context, addr string) (int64, error) {
	return srvrCount(ctx, addr, "Received")
}

// NodeCount returns the number of znodes the server at addr holds (srvr's
// "Node count:"). Asking makes no ZooKeeper request and no session, but like
// every four-letter command it adds one to Received: a harness that polls it
// while counting requests subtracts its polls.
func NodeCount(ctx context.Context, addr string) (int64, error) {
	return srvrCount(ctx, addr, "Node count")
}

// srvrCount returns the figure on srvr's line "name: N".
func srvrCount(ctx context.Context, addr, name string) (int64, error) {
	out, err := FourLetter(ctx, addr, "srvr")
	if err != nil {
		return 0, err
	}
	for _, line := range strings.Split(out, "\n") {
		if v, ok := strings.CutPrefix(line, name+": "); ok {
			return strconv.ParseInt(strings.TrimSpace(v), 10, 64)
		}
	}
	return 0, fmt.Errorf("recipestest: no %s line in srvr: %q", name, out)
}
