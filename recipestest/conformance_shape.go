package recipestest

import (
	"context"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/gocurator/curator/driver"
	"github.com/gocurator/curator/framework"
	"github.com/gocurator/curator/zkharness"
)

// shapeTimeout bounds the quick checks: a driver that fails them fails in
// seconds, not at the end of a deadlocked acquire.
const shapeTimeout = 20 * time.Second

// checkOrder creates nodes through the driver one after another and checks,
// before anything contends, that it sorts them in the order they were made
// (their sequence, the text after the lock name), that GetsTheLock holds
// the first maxLeases and has each other watch the node maxLeases places
// ahead. A driver that fails this would deadlock or let two in, later.
func checkOrder(t *testing.T, connect string, drv driver.LockDriver, lockName string) {
	ctx, cancel := context.WithTimeout(context.Background(), shapeTimeout)
	defer cancel()
	c := conformanceClient(t, connect, Namespace(t))
	var made []string
	for range 6 { // a wrong order passes by chance once in 720

		p, err := drv.CreatesTheLock(ctx, c, framework.JoinPath("/lock", lockName), nil)
		if err != nil {
			t.Fatalf("CreatesTheLock: %v", err)
		}
		_, name := framework.SplitPath(p)
		made = append(made, name)
	}
	defer func() {
		for _, name := range made {
			c.Delete(context.WithoutCancel(ctx), framework.JoinPath("/lock", name), framework.Quietly())
		}
	}()
	kids, _, err := c.Children(ctx, "/lock")
	if err != nil {
		t.Fatal(err)
	}
	sorted := driver.SortChildren(kids, lockName, drv.FixForSorting)
	if !slices.Equal(sorted, made) {
		t.Fatalf("the driver sorts the nodes %v, but they were made in the order %v: it must sort on the sequence, the text after the lock name %q (FixForSorting)", sorted, made, lockName)
	}
	for _, max := range []int{1, 2} {
		for i, ours := range sorted {
			res, err := drv.GetsTheLock(sorted, ours, max)
			switch {
			case err != nil:
				t.Fatalf("GetsTheLock(%v, %s, %d): %v", sorted, ours, max, err)
			case res.Held != (i < max):
				t.Fatalf("GetsTheLock: node %d of %d with maxLeases %d: held %v, want %v", i, len(sorted), max, res.Held, i < max)
			case !res.Held && res.Watch != sorted[i-max]:
				t.Fatalf("GetsTheLock: node %d with maxLeases %d watches %q, want the node maxLeases places ahead, %q", i, max, res.Watch, sorted[i-max])
			}
		}
	}
}

// checkNodeShape checks what Curator's nodes are: protected names
// (_c_<uuid>-, so that a create retried after a lost reply finds its node
// instead of leaving one behind), ephemeral, in a directory made as a
// container, which the server removes once the lock is empty. A stat does
// not tell a container from a persistent node (the server shows clients an
// ephemeralOwner of 0 for both), and waiting for the reaper would take a
// minute on a server with ZooKeeper's defaults, so the check reads the
// driver's requests on the wire: the directory must be made by a
// createContainer request.
func checkNodeShape(t *testing.T, connect string, drv driver.LockDriver, lockName string) {
	ctx, cancel := context.WithTimeout(context.Background(), shapeTimeout)
	defer cancel()
	ns := Namespace(t)
	wire := zkharness.NewCounter()
	c := conformanceClient(t, connect, ns, framework.WithDialer(wire.Dialer(nil)))
	p, err := drv.CreatesTheLock(ctx, c, framework.JoinPath("/lock", lockName), nil)
	if err != nil {
		t.Fatalf("CreatesTheLock: %v", err)
	}
	defer c.Delete(context.WithoutCancel(ctx), p, framework.Quietly())
	_, name := framework.SplitPath(p)
	if !framework.IsProtected(name) {
		t.Errorf("node %s is not protected (_c_<uuid>-...): after a lost reply a retried create leaves it behind (WithProtection)", name)
	}
	if !strings.Contains(name, lockName) {
		t.Errorf("node %s lacks the lock name %q: Curator sorts it after every other node", name, lockName)
	}
	if _, stat, err := c.Exists(ctx, p); err != nil || stat == nil || stat.EphemeralOwner != c.SessionID() {
		t.Errorf("node %s is not an ephemeral node of the creating session (%+v, %v)", p, stat, err)
	}
	dir := "/" + ns + "/lock" // as sent, after a chroot if there is one
	if !slices.ContainsFunc(wire.ContainersCreated(), func(sent string) bool { return strings.HasSuffix(sent, dir) }) {
		t.Errorf("the lock's directory %s was not made as a container (the driver's createContainer requests: %q): "+
			"the server never removes it, so every lock ever taken stays (WithContainerParents)", dir, wire.ContainersCreated())
	}
}
