package group_test

import (
	"bufio"
	"io"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gocurator/curator/recipestest"
)

// curatorJar is Debian's libcurator-recipes-java; its manifest names the
// rest of Curator and ZooKeeper's client.
const curatorJar = "/usr/share/java/curator-recipes.jar"

// A Go Member and Curator 5's own GroupMember in one group: each sees the
// other with its data, a change of data, and the other leaving.
func TestInteropWithCurator(t *testing.T) {
	recipestest.LeakCheck(t)
	classes := t.TempDir()
	if out, err := exec.Command("javac", "-nowarn", "-cp", curatorJar, "-d", classes, filepath.Join("testdata", "GroupPeer.java")).CombinedOutput(); err != nil {
		t.Fatalf("javac: %v\n%s\n(Curator comes from: apt-get install -y libcurator-recipes-java)", err, out)
	}
	ns := recipestest.Namespace(t)
	cs := clients(t, server.ConnectString(), ns, 2)
	ctx := ctxT(t)
	cmd := exec.CommandContext(ctx, "java", "-Xshare:auto", "-XX:TieredStopAtLevel=1", "-cp", classes+":"+curatorJar,
		"GroupPeer", server.ConnectString(), ns, "/group", "java", "J")
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
	defer cmd.Wait()
	defer stdin.Close()
	lines := bufio.NewScanner(stdout)
	if !lines.Scan() || lines.Text() != "READY" {
		t.Fatalf("the Java peer did not start: %q", lines.Text())
	}
	// javaSees reads the peer's lines until it prints want.
	javaSees := func(want string) {
		t.Helper()
		var seen []string
		for lines.Scan() {
			if lines.Text() == "MEMBERS "+want {
				return
			}
			seen = append(seen, lines.Text())
		}
		t.Fatalf("the Java peer never saw %q; it saw %q", want, seen)
	}

	g := start(t, member(t, cs[0], "go", "G"))
	obs := start(t, member(t, cs[1], "obs", "O"))
	javaSees("go=G java=J obs=O")
	sees(t, g, "go=G java=J obs=O")
	if err := g.SetData(ctx, []byte("G2")); err != nil {
		t.Fatal(err)
	}
	javaSees("go=G2 java=J obs=O")
	if err := g.Close(); err != nil {
		t.Fatal(err)
	}
	javaSees("java=J obs=O")
	io.WriteString(stdin, "CLOSE\n")
	for lines.Scan() && !strings.HasPrefix(lines.Text(), "CLOSED") {
	}
	sees(t, obs, "obs=O")
}
