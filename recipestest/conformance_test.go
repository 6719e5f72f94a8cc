package recipestest_test

import (
	"context"
	"os"
	"os/exec"
	"slices"
	"strings"
	"testing"

	"github.com/gocurator/curator/driver"
	"github.com/gocurator/curator/framework"
	"github.com/gocurator/curator/recipes/locks"
	"github.com/gocurator/curator/recipestest"
	"github.com/gocurator/curator/zkharness"
)

// The conformance suite fails a broken driver, and says why. Each broken
// driver runs the suite in a child process (a failing suite fails the test
// that runs it), whose output must name the check that caught it.
func TestLockDriverFailsBrokenDrivers(t *testing.T) {
	if os.Getenv(brokenDriverEnv) != "" {
		t.Skip("in the child process")
	}
	for _, tt := range []struct {
		driver, check, says string
	}{
		{"one-lease", "order", "with maxLeases 2: held false, want true"},
		{"watches-predecessor", "order", "want the node maxLeases places ahead"},
		{"persistent", "session-bound", "a dead holder would keep the lock"},
		{"wrong-sort", "order", "it must sort on the sequence"},
		{"unprotected-persistent-parents", "node-shape", "is not protected"},
		{"persistent-parents", "node-shape", "was not made as a container"},
		{"nil", "", "needs a driver, got nil"},
	} {
		t.Run(tt.driver, func(t *testing.T) {
			cmd := exec.Command(os.Args[0], "-test.run=^TestLockDriverOnBrokenDriver$", "-test.v", "-test.count=1")
			cmd.Env = append(os.Environ(), brokenDriverEnv+"="+tt.driver)
			out, err := cmd.CombinedOutput()
			if err == nil {
				t.Fatalf("the suite passed the %s driver:\n%s", tt.driver, out)
			}
			if tt.check != "" && !strings.Contains(string(out), "--- FAIL: TestLockDriverOnBrokenDriver/"+tt.check+" ") {
				t.Errorf("the %s check did not fail:\n%s", tt.check, out)
			}
			if !strings.Contains(string(out), tt.says) {
				t.Errorf("the output does not say %q:\n%s", tt.says, out)
			}
			if strings.Contains(string(out), "panic:") {
				t.Errorf("the suite panicked:\n%s", out)
			}
		})
	}
}

// hostDriver is a custom driver, driver's example: it names each node after
// the host that made it, and keeps the standard decisions.
type hostDriver struct {
	driver.Standard
	host string
}

func (d hostDriver) CreatesTheLock(ctx context.Context, client *framework.Client, path string, data []byte) (string, error) {
	dir, lockName := framework.SplitPath(path)
	return d.Standard.CreatesTheLock(ctx, client, framework.JoinPath(dir, d.host+"-"+lockName), data)
}

// A correct custom driver passes the suite, and contends with Curator's own
// decisions on one lock.
func TestCustomDriverConforms(t *testing.T) {
	recipestest.TestLockDriver(t, server.ConnectString(), hostDriver{host: "web1"}, locks.MutexLockName)
	recipestest.TestLockDriverWithStandard(t, server.ConnectString(), hostDriver{host: "web1"}, locks.MutexLockName)
}

// brokenDriverEnv names the broken driver the child process runs the suite on.
const brokenDriverEnv = "RECIPESTEST_BROKEN_DRIVER"

// TestLockDriverOnBrokenDriver is the child process of
// TestLockDriverFailsBrokenDrivers; it is skipped in any other run.
func TestLockDriverOnBrokenDriver(t *testing.T) {
	drivers := map[string]driver.LockDriver{
		"one-lease":                      oneLeaseDriver{},
		"watches-predecessor":            predecessorDriver{},
		"persistent":                     persistentDriver{},
		"wrong-sort":                     wrongSortDriver{},
		"unprotected-persistent-parents": plainDriver{},
		"persistent-parents":             persistentParentsDriver{},
		"nil":                            nil,
	}
	name := os.Getenv(brokenDriverEnv)
	if name == "" {
		t.Skip("runs only as the child process of TestLockDriverFailsBrokenDrivers")
	}
	recipestest.TestLockDriver(t, server.ConnectString(), drivers[name], locks.MutexLockName)
}

// oneLeaseDriver ignores maxLeases: one holder at most, whatever the limit.
type oneLeaseDriver struct{ driver.Standard }

func (d oneLeaseDriver) GetsTheLock(children []string, our string, _ int) (driver.Result, error) {
	return d.Standard.GetsTheLock(children, our, 1)
}

// predecessorDriver watches the node just ahead, not the one maxLeases
// places ahead as Curator does: with maxLeases 2, a waiter whose lease came
// free waits on a holder that stays.
type predecessorDriver struct{ driver.Standard }

func (d predecessorDriver) GetsTheLock(children []string, our string, max int) (driver.Result, error) {
	r, err := d.Standard.GetsTheLock(children, our, max)
	if err == nil && !r.Held {
		r.Watch = children[slices.Index(children, our)-1]
	}
	return r, err
}

// persistentDriver makes nodes that outlive their session.
type persistentDriver struct{ driver.Standard }

func (persistentDriver) CreatesTheLock(ctx context.Context, c *framework.Client, path string, data []byte) (string, error) {
	return c.Create(ctx, path, data, framework.WithMode(framework.PersistentSequential),
		framework.WithProtection(), framework.WithContainerParents())
}

// wrongSortDriver sorts on the whole name, uuid first: the order of the
// protected prefixes, not of the sequence.
type wrongSortDriver struct{ driver.Standard }

func (wrongSortDriver) FixForSorting(name, _ string) string { return name }

// plainDriver makes unprotected nodes under persistent parents: a create
// retried after a lost reply leaves a node behind, and the directory stays.
type plainDriver struct{ driver.Standard }

func (plainDriver) CreatesTheLock(ctx context.Context, c *framework.Client, path string, data []byte) (string, error) {
	return c.Create(ctx, path, data, framework.WithMode(framework.EphemeralSequential), framework.WithParents())
}

// persistentParentsDriver makes protected nodes, but under persistent
// parents: every lock's directory stays after its last node went.
type persistentParentsDriver struct{ driver.Standard }

func (persistentParentsDriver) CreatesTheLock(ctx context.Context, c *framework.Client, path string, data []byte) (string, error) {
	return c.Create(ctx, path, data, framework.WithMode(framework.EphemeralSequential), framework.WithProtection(), framework.WithParents())
}

// The suite needs no quick reaper: it passes the standard driver on a server
// with ZooKeeper's stock settings, which reaps empty containers once a
// minute. (Its node-shape check waited for the reaper, and failed there.)
func TestLockDriverOnStockServer(t *testing.T) {
	stock, err := zkharness.NewServer(zkharness.WithStockSettings())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { stock.Close() })
	recipestest.TestLockDriver(t, stock.ConnectString(), driver.Standard{}, locks.MutexLockName)
}
