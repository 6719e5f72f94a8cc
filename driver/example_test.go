package driver_test

import (
	"context"
	"fmt"

	"github.com/gocurator/curator/driver"
	"github.com/gocurator/curator/framework"
	"github.com/gocurator/curator/recipes/locks"
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

// A lock on a custom driver is made as on the standard one. (The example
// needs a ZooKeeper server at 127.0.0.1:2181, so it is compiled, not run;
// recipestest's TestCustomDriverConforms runs the same driver through the
// conformance suite on a real server.)
func ExampleLockDriver() {
	client, _ := framework.New("127.0.0.1:2181", framework.WithNamespace("example-driver"))
	client.Start(context.Background())
	defer client.Close()
	ctx := context.Background()

	m, _ := locks.NewMutexWithDriver(client, "/locks/jobs", HostDriver{Host: "web1"})
	h, err := m.Acquire(ctx)
	if err != nil {
		panic(err)
	}
	defer h.Release(ctx)
	_, name := framework.SplitPath(h.Path())
	fmt.Println(framework.StripProtectedPrefix(name)) // web1-lock-0000000000
}
