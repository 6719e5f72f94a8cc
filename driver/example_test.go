package driver_test

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/gocurator/curator/driver"
	"github.com/gocurator/curator/framework"
	"github.com/gocurator/curator/recipes/locks"
	"github.com/gocurator/curator/recipestest"
)

// HostDriver is a custom LockDriver: it names each node after the host that
// made it ("_c_<uuid>-web1-lock-0000000007"), so an operator listing the
// lock sees who waits. It embeds Standard and overrides one decision; the
// sort key, the text after the lock name, is still the sequence number.
type HostDriver struct {
	driver.Standard
	Host string
}

// CreatesTheLock puts the host name before the lock name.
func (d HostDriver) CreatesTheLock(ctx context.Context, client *framework.Client, path string, data []byte) (string, error) {
	dir, lockName := framework.SplitPath(path)
	return d.Standard.CreatesTheLock(ctx, client, framework.JoinPath(dir, d.Host+"-"+lockName), data)
}

func ExampleLockDriver() {
	client, _ := framework.New(connectString(nil), framework.WithNamespace("example-driver"))
	client.Start()
	defer client.Close()
	ctx := context.Background()

	m, _ := locks.NewMutexWithDriver(client, "/locks/jobs", HostDriver{Host: "web1"})
	h, err := m.Acquire(ctx)
	if err != nil {
		panic(err)
	}
	_, name := framework.SplitPath(h.Path())
	fmt.Println(strings.HasPrefix(framework.StripProtectedPrefix(name), "web1-lock-"))
	h.Release(ctx)
	// Output: true
}

// The example driver passes the conformance suite, as every driver here
// does.
func TestHostDriverConforms(t *testing.T) {
	recipestest.TestLockDriver(t, connectString(t), HostDriver{Host: "web1"}, locks.MutexLockName)
	recipestest.TestLockDriverWithStandard(t, connectString(t), HostDriver{Host: "web1"}, locks.MutexLockName)
}
