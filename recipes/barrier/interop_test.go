package barrier_test

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/gocurator/curator/recipes/barrier"
	"github.com/gocurator/curator/recipestest"
)

// curatorJar is Debian's libcurator-recipes-java; its manifest names the
// rest of Curator and ZooKeeper's client.
const curatorJar = "/usr/share/java/curator-recipes.jar"

// javaPeer is testdata/BarrierPeer.java running in a JVM of its own: it
// obeys commands on stdin and prints a line for each thing it does.
type javaPeer struct {
	t     *testing.T
	stdin io.WriteCloser
	lines chan string
}

// startJava compiles and starts the Java peer, which the test's cleanup
// stops.
func startJava(t *testing.T) *javaPeer {
	t.Helper()
	classes := t.TempDir()
	if out, err := exec.Command("javac", "-nowarn", "-cp", curatorJar, "-d", classes, filepath.Join("testdata", "BarrierPeer.java")).CombinedOutput(); err != nil {
		t.Fatalf("javac: %v\n%s\n(Curator comes from: apt-get install -y libcurator-recipes-java)", err, out)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cmd := exec.CommandContext(ctx, "java", "-Xshare:auto", "-XX:TieredStopAtLevel=1", "-cp", classes+":"+curatorJar, "BarrierPeer", server.ConnectString())
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
	p := &javaPeer{t: t, stdin: stdin, lines: make(chan string, 64)}
	done := make(chan struct{})
	go func() {
		defer close(done)
		defer close(p.lines)
		sc := bufio.NewScanner(stdout)
		for sc.Scan() {
			p.lines <- sc.Text()
		}
	}()
	t.Cleanup(func() {
		stdin.Close() // the peer exits at the end of stdin
		wait := time.AfterFunc(30*time.Second, cancel)
		for range p.lines {
		}
		<-done
		cmd.Wait()
		wait.Stop()
		cancel()
	})
	p.expect("READY")
	return p
}

func (p *javaPeer) send(line string) {
	p.t.Helper()
	if _, err := fmt.Fprintln(p.stdin, line); err != nil {
		p.t.Fatalf("the Java peer: %v", err)
	}
}

// expect waits for the peer's next line, which must start with prefix,
// and returns its fields after the prefix.
func (p *javaPeer) expect(prefix string) []string {
	p.t.Helper()
	select {
	case line, ok := <-p.lines:
		if !ok {
			p.t.Fatalf("the Java peer ended; want %s", prefix)
		}
		if !strings.HasPrefix(line, prefix) {
			p.t.Fatalf("the Java peer said %q; want %s", line, prefix)
		}
		return strings.Fields(strings.TrimPrefix(line, prefix))
	case <-time.After(time.Minute):
		p.t.Fatalf("the Java peer said nothing for a minute; want %s", prefix)
	}
	return nil
}

// quiet fails the test if the peer has said something.
func (p *javaPeer) quiet() {
	p.t.Helper()
	select {
	case line := <-p.lines:
		p.t.Fatalf("the Java peer said %q too early", line)
	default:
	}
}

// Curator 5.4's DistributedDoubleBarrier and Go's in one group of 6: 3 Java
// and 3 Go members. Five wait in Enter until the sixth comes, Go's in one
// round, Java's in the other; each Enter, on either side, returns with all
// six member nodes there and the ready node made (nobody leaves Enter
// before all entered); then every member leaves together, and nothing is
// left under the barrier's path.
func TestDoubleBarrierInteropWithCurator(t *testing.T) {
	const perSide, size = 3, 6
	java := startJava(t)
	for round, lastIsGo := range []bool{true, false} {
		t.Run(fmt.Sprint("last-is-go=", lastIsGo), func(t *testing.T) {
			java.t = t
			ns := recipestest.Namespace(t)
			ctx := ctxT(t)
			path := "/dbl"
			gos := members(t, ns, path, perSide, size)
			out := make(chan entered, perSide)
			javaMembers := perSide
			goMembers := perSide
			if lastIsGo {
				goMembers--
			} else {
				javaMembers--
			}
			for i := range javaMembers {
				java.send(fmt.Sprintf("MEMBER j%d-%d /%s%s %d", i, round, ns, path, size))
				java.expect("STARTED ")
			}
			for _, m := range gos[:goMembers] {
				enter(ctx, t, m, path, out)
			}
			recipestest.Eventually(t, "the first five members' nodes", func() (bool, string) {
				names, ready := view(t, gos[0].c, path)
				return len(names) == size-1 && !ready, fmt.Sprint(names, ready)
			})
			java.quiet()
			select {
			case e := <-out:
				t.Fatalf("a Go member entered with %d of %d members there: %+v", e.members, size, e)
			default:
			}
			if lastIsGo {
				enter(ctx, t, gos[perSide-1], path, out)
			} else {
				java.send(fmt.Sprintf("MEMBER j%d-%d /%s%s %d", perSide-1, round, ns, path, size))
				java.expect("STARTED ")
			}
			for range perSide {
				if e := <-out; e.err != nil || e.members != size || !e.ready {
					t.Fatalf("a Go member's Enter returned with %+v; want all %d members and the ready node", e, size)
				}
			}
			for range perSide {
				f := java.expect("ENTERED ")
				if len(f) != 3 || f[1] != fmt.Sprint(size) || f[2] != "true" {
					t.Fatalf("a Java member's enter returned with %v; want all %d members and the ready node", f, size)
				}
			}
			java.send("LEAVE")
			if f := java.expect("LEAVING "); f[0] != fmt.Sprint(perSide) {
				t.Fatalf("the Java peer let %v members leave, want %d", f, perSide)
			}
			left := make(chan error, perSide)
			for _, m := range gos {
				go func() { left <- m.b.Leave(ctx) }()
			}
			for range perSide {
				if err := <-left; err != nil {
					t.Fatalf("a Go member's Leave: %v", err)
				}
			}
			for range perSide {
				java.expect("LEFT ")
			}
			if names, ready := view(t, gos[0].c, path); len(names) != 0 || ready {
				t.Fatalf("after every Leave: members %v, ready %v", names, ready)
			}
		})
	}

	// One side's barrier holds the other's waiters until it removes it.
	t.Run("barrier", func(t *testing.T) {
		java.t = t
		ns := recipestest.Namespace(t)
		ctx := ctxT(t)
		c := members(t, ns, "/unused", 1, 1)[0].c
		b, err := barrier.NewBarrier(c, "/gate")
		if err != nil {
			t.Fatal(err)
		}
		javaPath := "/" + ns + "/gate"
		// Go sets, Java waits, Go removes.
		if err := b.Set(ctx); err != nil {
			t.Fatal(err)
		}
		java.send("WAIT " + javaPath)
		java.quiet()
		if err := b.Remove(ctx); err != nil {
			t.Fatal(err)
		}
		java.expect("WAITED")
		// Java sets, Go waits, Java removes.
		java.send("SET " + javaPath)
		java.expect("SET")
		done := make(chan error, 1)
		go func() { done <- b.Wait(ctx) }()
		select {
		case err := <-done:
			t.Fatalf("Go's Wait returned while Java's barrier was set: %v", err)
		default:
		}
		java.send("REMOVE " + javaPath)
		java.expect("REMOVED")
		if err := <-done; err != nil {
			t.Fatal(err)
		}
	})
}
