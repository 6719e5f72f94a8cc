package main

import (
	"fmt"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
)

// curatorJar is Debian's libcurator-recipes-java (Curator 5.4.0); its
// manifest names the rest of Curator and ZooKeeper's client.
const curatorJar = "/usr/share/java/curator-recipes.jar"

// peerSource is the Java peer of the locks' interop test, which this
// package's test drives the same way.
var peerSource = filepath.Join("..", "..", "recipes", "locks", "testdata", "CuratorPeer.java")

// A Curator 5.4 process (recipes/locks' peer, peerSource) and gocurator
// lock processes take one mutex in
// turns: the Java peer's critical sections and the gocurator commands' (a
// helper doing the same occupancy check through ZooKeeper) never overlap.
// The Java peer holds first and waits until a gocurator process has queued
// behind it, so the two are seen in one queue.
func TestLockExcludesCuratorProcesses(t *testing.T) {
	classes := t.TempDir()
	if out, err := exec.Command("javac", "-nowarn", "-cp", curatorJar, "-d", classes, peerSource).CombinedOutput(); err != nil {
		t.Fatalf("javac: %v\n%s\n(Curator comes from: apt-get install -y libcurator-recipes-java)", err, out)
	}
	b := newBoard(t)
	c := b.client()
	const javaCycles, goWorkers, goCycles = 8, 2, 4
	java := b.startProgram("java", "java", nil, "-Xshare:auto", "-XX:TieredStopAtLevel=1", "-Dpeer.waitForQueue=true",
		"-cp", classes+":"+curatorJar, "CuratorPeer",
		server.ConnectString(), "mutex", "/"+b.ns+"/lock", "/"+b.ns+"/occ", fmt.Sprint(javaCycles))
	b.waitNodes(c, 1, "/lock")
	javaNode, _, err := c.Children(b.ctx, "/lock")
	if err != nil {
		t.Fatal(err)
	}

	errs := make(chan error, goWorkers*goCycles)
	var wg sync.WaitGroup
	for w := range goWorkers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range goCycles {
				id := fmt.Sprintf("go-%d-%d", w, i)
				cmd := exec.CommandContext(b.ctx, bin, "lock", "--id", id, "/lock", "--", self)
				cmd.Env = append(cmd.Environ(), b.env(b.helper("zkmark", id)...)...)
				if out, err := cmd.CombinedOutput(); err != nil || len(out) != 0 {
					errs <- fmt.Errorf("%s: %v: %s", id, err, out)
				}
			}
		}()
	}
	holding := b.next("HOLDING ", java)
	queue := strings.Split(strings.TrimPrefix(holding.line, "HOLDING "), ",")
	if len(queue) < 2 || !strings.HasSuffix(queue[0], javaNode[0]) {
		t.Fatalf("the Curator holder saw the queue %q; its own node is %s", queue, javaNode[0])
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
	if done := b.next("DONE", java); done.line != "DONE violations=0" {
		t.Fatalf("Curator peer: %s\n%s", done.line, b.dump())
	}
	b.expectExit(java, 0)
	if kids, _, err := c.Children(b.ctx, "/lock"); err != nil && !isNoNode(err) || len(kids) != 0 {
		t.Fatalf("left in /lock: %v %v", kids, err)
	}
}
