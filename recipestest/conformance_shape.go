package recipestest

import (
	"context"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/gocurator/curator/driver"
	"github.com/gocurator/curator/framework"
)

// shapeTimeout bounds the quick checks: a driver that fails them fails in
// seconds, not at the end of a deadlocked acquire.
const shapeTimeout = 20 * time.Second

// containerReapWait is how long checkNodeShape waits for the server to reap
// the lock's emptied directory. zkharness's servers reap containers every
// 100 ms; ZooKeeper's default is 60 s, too slow for this check.
const containerReapWait = 10 * time.Second

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
// container, which the server removes once the lock is empty.
func checkNodeShape(t *testing.T, connect string, drv driver.LockDriver, lockName string) {
	ctx, cancel := context.WithTimeout(context.Background(), shapeTimeout+containerReapWait)
	defer cancel()
	c := conformanceClient(t, connect, Namespace(t))
	p, err := drv.CreatesTheLock(ctx, c, framework.JoinPath("/lock", lockName), nil)
	if err != nil {
		t.Fatalf("CreatesTheLock: %v", err)
	}
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
	ok, _, gone, err := c.ExistsW(ctx, "/lock")
	if err != nil || !ok {
		t.Fatalf("the lock's directory: exists %v (%v)", ok, err)
	}
	if err := c.Delete(ctx, p); err != nil {
		t.Fatal(err)
	}
	reap, cancelReap := context.WithTimeout(ctx, containerReapWait)
	defer cancelReap()
	for {
		ev, err := gone.Wait(reap)
		switch {
		case err != nil:
			t.Fatalf("the lock's directory is still there %v after its last node went: it must be a container (WithContainerParents), or every lock ever taken stays (%v)", containerReapWait, err)
		case ev.Type == framework.EventNodeDeleted:
			return
		}
		if ok, _, gone, err = c.ExistsW(ctx, "/lock"); err != nil || !ok { // another change: watch again
			return
		}
	}
}
