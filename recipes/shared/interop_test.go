package shared_test

import (
	"bufio"
	"encoding/binary"
	"fmt"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/gocurator/curator/recipes/shared"
	"github.com/gocurator/curator/recipestest"
)

// curatorJar is Debian's libcurator-recipes-java; its manifest names the
// rest of Curator and ZooKeeper's client.
const curatorJar = "/usr/share/java/curator-recipes.jar"

// Go's Count and Curator 5's SharedCount on one node: increments made by
// both sides with their try-sets all count, each side reads the other's,
// and the node holds the total as 4 big-endian bytes.
func TestCountInteropWithCurator(t *testing.T) {
	const increments = 40
	classes := t.TempDir()
	if out, err := exec.Command("javac", "-nowarn", "-cp", curatorJar, "-d", classes, filepath.Join("testdata", "SharedCountPeer.java")).CombinedOutput(); err != nil {
		t.Fatalf("javac: %v\n%s\n(Curator comes from: apt-get install -y libcurator-recipes-java)", err, out)
	}
	ns := recipestest.Namespace(t)
	c := recipestest.NewClient(t, server.ConnectString())
	ctx := ctxT(t)
	cnt, err := shared.NewCount(c, "/"+ns+"/count", 0)
	if err != nil {
		t.Fatal(err)
	}
	if err := cnt.Start(t.Context()); err != nil {
		t.Fatal(err)
	}
	defer cnt.Close()
	var mu sync.Mutex
	var heard []int32
	cnt.AddListener(func(n int32) {
		mu.Lock()
		heard = append(heard, n)
		mu.Unlock()
	})

	cmd := exec.CommandContext(ctx, "java", "-Xshare:auto", "-XX:TieredStopAtLevel=1", "-cp", classes+":"+curatorJar,
		"SharedCountPeer", server.ConnectString(), "/"+ns+"/count", fmt.Sprint(increments))
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	lines := bufio.NewScanner(stdout)
	if !lines.Scan() || !strings.HasPrefix(lines.Text(), "READY ") {
		t.Fatalf("the Java peer did not start: %q", lines.Text())
	}
	for range increments { // at the same time as the Java peer
		for {
			cur := cnt.Get()
			ok, err := cnt.TrySet(ctx, cur, cur.Value+1)
			if err != nil {
				t.Fatal(err)
			}
			if ok {
				break
			}
		}
	}
	if !lines.Scan() {
		t.Fatalf("the Java peer ended without DONE: %v", cmd.Wait())
	}
	var javaSaw, refusals int
	if _, err := fmt.Sscanf(lines.Text(), "DONE %d %d", &javaSaw, &refusals); err != nil {
		t.Fatalf("the Java peer said %q", lines.Text())
	}
	if err := cmd.Wait(); err != nil {
		t.Fatalf("the Java peer: %v", err)
	}
	data, _, err := c.Get(ctx, "/"+ns+"/count")
	if err != nil {
		t.Fatal(err)
	}
	if len(data) != 4 || binary.BigEndian.Uint32(data) != 2*increments {
		t.Fatalf("the node holds %x, want %d as 4 big-endian bytes", data, 2*increments)
	}
	if javaSaw < increments {
		t.Fatalf("Curator's SharedCount saw %d at its end, fewer than its own %d increments", javaSaw, increments)
	}
	recipestest.Eventually(t, "Go's count and listener to reach the total", func() (bool, string) {
		mu.Lock()
		defer mu.Unlock()
		last := int32(-1)
		if len(heard) > 0 {
			last = heard[len(heard)-1]
		}
		return cnt.Get().Value == 2*increments && last == 2*increments, fmt.Sprint(cnt.Get(), " heard last ", last)
	})
	t.Logf("Java's try-sets were refused %d times", refusals)
}
