package discovery_test

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/gocurator/curator/discovery"
	"github.com/gocurator/curator/framework"
	"github.com/gocurator/curator/recipestest"
	"github.com/gocurator/curator/zkharness"
)

// server is the package's shared ZooKeeper; each test works in a namespace
// of its own.
var server *zkharness.Server

// classes holds the Java peer's classes, compiled once for the package's
// tests (peerClasses).
var classes struct {
	once sync.Once
	dir  string
	err  error
}

// TestMain is recipestest.RunWithServer, which also removes the Java
// peer's classes at the end.
func TestMain(m *testing.M) {
	s, err := zkharness.NewServer()
	if err != nil {
		fmt.Fprintln(os.Stderr, "discovery tests:", err)
		os.Exit(1)
	}
	server = s
	os.Setenv(recipestest.ConnectEnv, s.ConnectString())
	recipestest.VerifyTestMain(m, func() {
		s.Close()
		if classes.dir != "" {
			os.RemoveAll(classes.dir)
		}
	})
}

// peerClasses compiles the Java peer once and returns its class directory.
func peerClasses(t testing.TB) string {
	t.Helper()
	classes.once.Do(func() {
		if classes.dir, classes.err = os.MkdirTemp("", "discovery-peer-"); classes.err != nil {
			return
		}
		if out, err := exec.Command("javac", "-nowarn", "-cp", discoveryClasspath, "-d", classes.dir, filepath.Join("testdata", "DiscoveryPeer.java")).CombinedOutput(); err != nil {
			classes.err = fmt.Errorf("javac: %v\n%s\n(Curator's discovery comes from: apt-get install -y libcurator-discovery-java)", err, out)
		}
	})
	if classes.err != nil {
		t.Fatal(classes.err)
	}
	return classes.dir
}

// Details is the bean payload of the interop tests (DiscoveryPeer$Details
// in Java).
type Details struct {
	Region string `json:"region"`
	Weight int    `json:"weight"`
}

// ctxT bounds a test's calls so that a bug fails the test instead of
// hanging it; it is not a speed assertion.
func ctxT(t testing.TB) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	t.Cleanup(cancel)
	return ctx
}

// clients starts n clients, each with its own session, in namespace ns on
// connect.
func clients(t testing.TB, connect, ns string, n int) []*framework.Client {
	t.Helper()
	cs := make([]*framework.Client, n)
	for i := range cs {
		cs[i] = recipestest.NewClient(t, connect, framework.WithNamespace(ns))
	}
	return cs
}

// started returns a started Discovery on c, closed when the test ends.
func started[T any](t testing.TB, c *framework.Client, opts ...discovery.Option) *discovery.Discovery[T] {
	t.Helper()
	d, err := discovery.New[T](c, "/services", opts...)
	if err != nil {
		t.Fatal(err)
	}
	if err := d.Start(context.Background()); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { d.Close() })
	return d
}

// ids returns the instances' ids, in order, space-separated.
func ids[T any](insts []discovery.Instance[T]) string {
	var s []string
	for _, i := range insts {
		s = append(s, i.ID)
	}
	return strings.Join(s, " ")
}

// discoveryClasspath is Debian's libcurator-discovery-java with the
// recipes jar, whose CuratorCache its ServiceCache uses (its manifest
// does not name it).
const discoveryClasspath = "/usr/share/java/curator-x-discovery.jar:/usr/share/java/curator-recipes.jar"

// javaPeer is a running DiscoveryPeer.
type javaPeer struct {
	t       testing.TB
	cmd     *exec.Cmd
	stdin   io.WriteCloser
	answers chan string
	changes chan string
	done    chan struct{}
}

// startPeer compiles and starts a DiscoveryPeer on the base path
// /services of namespace ns, with payload class mode ("map" or "bean"); it
// is closed when the test ends.
func startPeer(t testing.TB, ns, mode string) *javaPeer {
	t.Helper()
	classes := peerClasses(t)
	cmd := exec.Command("java", "-Xshare:auto", "-XX:TieredStopAtLevel=1", "-cp", classes+":"+discoveryClasspath,
		"DiscoveryPeer", server.ConnectString(), ns, "/services", mode)
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	p := &javaPeer{t: t, cmd: cmd, stdin: stdin, answers: make(chan string, 100), changes: make(chan string, 100), done: make(chan struct{})}
	go func() {
		defer close(p.done)
		lines := bufio.NewScanner(stdout)
		lines.Buffer(nil, 1<<20)
		for lines.Scan() {
			if l := lines.Text(); strings.HasPrefix(l, "CHANGED ") || l == "CHANGED" {
				p.changes <- strings.TrimSpace(strings.TrimPrefix(l, "CHANGED"))
			} else {
				p.answers <- l
			}
		}
	}()
	t.Cleanup(func() {
		io.WriteString(stdin, "CLOSE\n")
		stdin.Close()
		select {
		case <-p.done:
		case <-time.After(20 * time.Second):
			cmd.Process.Kill()
			<-p.done
		}
		cmd.Wait()
	})
	if got := p.answer(); got != "READY" {
		t.Fatalf("the Java peer did not start: %q", got)
	}
	return p
}

// answer returns the peer's next answer.
func (p *javaPeer) answer() string {
	p.t.Helper()
	select {
	case l := <-p.answers:
		return l
	case <-p.done:
		p.t.Fatal("the Java peer ended")
	case <-time.After(30 * time.Second):
		p.t.Fatal("the Java peer did not answer")
	}
	return ""
}

// do sends a command and returns the answer, which must start with want.
func (p *javaPeer) do(want string, command string, args ...any) string {
	p.t.Helper()
	line := command
	for _, a := range args {
		line += " " + fmt.Sprint(a)
	}
	if _, err := io.WriteString(p.stdin, line+"\n"); err != nil {
		p.t.Fatal(err)
	}
	got := p.answer()
	if !strings.HasPrefix(got, want) {
		p.t.Fatalf("Java peer, %s: %q, want %s...", line, got, want)
	}
	return strings.TrimSpace(strings.TrimPrefix(got, want))
}

// sees waits until the peer's ServiceCache reports exactly ids.
func (p *javaPeer) sees(want string) {
	p.t.Helper()
	var seen []string
	for {
		select {
		case got := <-p.changes:
			if got == want {
				return
			}
			seen = append(seen, got)
		case <-time.After(30 * time.Second):
			p.t.Fatalf("the Java ServiceCache never saw %q; it saw %q", want, seen)
		}
	}
}

// query asks the peer's queryForInstances until it answers want. Curator's
// ServiceDiscovery registers its instances again when its connection-state
// listener hears CONNECTED, which can come after start() and the first
// registration: it then deletes and creates its own instance again, and a
// query in between misses it.
func (p *javaPeer) query(name, want string) {
	p.t.Helper()
	recipestest.Eventually(p.t, "Java's queryForInstances to answer "+want, func() (bool, string) {
		got := p.do("INSTANCES ", "QUERY "+name)
		return got == want, got
	})
}
