package locks_test

import (
	"context"
	"errors"
	"fmt"
	"os"
	"time"

	"github.com/gocurator/curator/framework"
	"github.com/gocurator/curator/recipes/locks"
)

func ExampleMutex() {
	client, err := framework.New(os.Getenv("ZOOKEEPER_CONNECT"), framework.WithNamespace("example-mutex")) // your ensemble: "zk1:2181,zk2:2181,zk3:2181"
	if err != nil {
		panic(err)
	}
	if err := client.Start(); err != nil {
		panic(err)
	}
	defer client.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second) // the acquire timeout
	defer cancel()

	m, err := locks.NewMutex(client, "/locks/printer")
	if err != nil {
		panic(err)
	}
	h, err := m.Acquire(ctx)
	if err != nil {
		panic(err)
	}
	defer h.Release(context.Background())

	// Stop the work if the hold is lost (node deleted, session lost,
	// connection suspended).
	select {
	case <-h.Lost():
		fmt.Println("lost:", h.Err())
	default:
		fmt.Println("printing while holding the lock")
	}
	// Output: printing while holding the lock
}

func ExampleMutex_reentrant() {
	client, err := framework.New(os.Getenv("ZOOKEEPER_CONNECT"), framework.WithNamespace("example-reentrant")) // your ensemble: "zk1:2181,zk2:2181,zk3:2181"
	if err != nil {
		panic(err)
	}
	if err := client.Start(); err != nil {
		panic(err)
	}
	defer client.Close()
	ctx := locks.WithOwner(context.Background(), locks.NewOwner()) // a Java thread's identity

	m, _ := locks.NewMutex(client, "/locks/account")
	outer, _ := m.Acquire(ctx)
	inner, _ := m.Acquire(ctx) // re-entry: no ZooKeeper call
	fmt.Println(outer == inner)
	inner.Release(ctx)
	outer.Release(ctx)
	fmt.Println(m.IsAcquiredInThisProcess())
	// Output:
	// true
	// false
}

func ExampleSemaphore() {
	client, err := framework.New(os.Getenv("ZOOKEEPER_CONNECT"), framework.WithNamespace("example-semaphore")) // your ensemble: "zk1:2181,zk2:2181,zk3:2181"
	if err != nil {
		panic(err)
	}
	if err := client.Start(); err != nil {
		panic(err)
	}
	defer client.Close()
	ctx := context.Background()

	s, _ := locks.NewSemaphore(client, "/semaphores/db", 3) // at most 3 leases at once
	leases, err := s.AcquireN(ctx, 2)
	if err != nil {
		panic(err)
	}
	nodes, _ := s.Participants(ctx)
	fmt.Println(len(nodes), "leases out")
	locks.ReleaseAll(ctx, leases)
	// Output: 2 leases out
}

func ExampleReadWriteLock() {
	client, err := framework.New(os.Getenv("ZOOKEEPER_CONNECT"), framework.WithNamespace("example-rw")) // your ensemble: "zk1:2181,zk2:2181,zk3:2181"
	if err != nil {
		panic(err)
	}
	if err := client.Start(); err != nil {
		panic(err)
	}
	defer client.Close()
	ctx := locks.WithOwner(context.Background(), locks.NewOwner())

	rw, _ := locks.NewReadWriteLock(client, "/locks/config")
	w, _ := rw.WriteLock().Acquire(ctx)
	r, _ := rw.ReadLock().Acquire(ctx) // downgrade: the writer may read
	w.Release(ctx)                     // ... and keeps reading, ahead of queued writers
	_, err = rw.WriteLock().Acquire(ctx)
	fmt.Println(err) // upgrading back is refused
	r.Release(ctx)
	// Output: locks: cannot upgrade a read lock to a write lock
}

func ExampleMultiLock() {
	client, err := framework.New(os.Getenv("ZOOKEEPER_CONNECT"), framework.WithNamespace("example-multi")) // your ensemble: "zk1:2181,zk2:2181,zk3:2181"
	if err != nil {
		panic(err)
	}
	if err := client.Start(); err != nil {
		panic(err)
	}
	defer client.Close()
	ctx := context.Background()

	all, _ := locks.NewMultiMutex(client, "/locks/from-account", "/locks/to-account")
	h, err := all.Acquire(ctx) // both, or neither
	if err != nil {
		panic(err)
	}
	fmt.Println(len(h.Holds()), "locks held")
	h.Release(ctx)
	// Output: 2 locks held
}

func ExampleSemaphoreMutex() {
	client, err := framework.New(os.Getenv("ZOOKEEPER_CONNECT"), framework.WithNamespace("example-smutex")) // your ensemble: "zk1:2181,zk2:2181,zk3:2181"
	if err != nil {
		panic(err)
	}
	if err := client.Start(); err != nil {
		panic(err)
	}
	defer client.Close()
	ctx := context.Background()

	m, _ := locks.NewSemaphoreMutex(client, "/locks/batch")
	h, _ := m.Acquire(ctx)
	nodes, _ := m.Participants(ctx)
	_, name := framework.SplitPath(nodes[0])
	fmt.Println(framework.StripProtectedPrefix(name)[:6])
	h.Release(ctx)
	// Output: lease-
}

func ExampleHold_Fence() {
	client, err := framework.New(os.Getenv("ZOOKEEPER_CONNECT"), framework.WithNamespace("example-fence")) // your ensemble: "zk1:2181,zk2:2181,zk3:2181"
	if err != nil {
		panic(err)
	}
	if err := client.Start(); err != nil {
		panic(err)
	}
	defer client.Close()
	ctx := context.Background()
	client.Create(ctx, "/resource", []byte("v0"))

	m, _ := locks.NewMutex(client, "/locks/resource")
	h, _ := m.Acquire(ctx)
	// The write commits only while the hold is current.
	_, err = client.Txn(ctx, h.Fence(), framework.SetDataOp("/resource", []byte("v1"), -1))
	fmt.Println(err)
	h.Release(ctx)
	// Output: <nil>
}

// creatorACL is an ACL provider that keeps what a client creates to the
// client's own identity: the identity that creates a node may do
// everything with it (ZooKeeper's CREATOR_ALL_ACL, the "auth" scheme), and
// anyone may read it (READ_ACL_UNSAFE), so that tools can list who holds a
// lock and who waits.
type creatorACL struct{}

// DefaultACL is the creator's identity with every permission, and read
// access for anyone.
func (creatorACL) DefaultACL() []framework.ACL {
	return append(framework.AuthACL(framework.PermAll), framework.WorldACL(framework.PermRead)...)
}

// ACLForPath has nothing special for any path.
func (creatorACL) ACLForPath(string) []framework.ACL { return nil }

// A lock only one identity can take, break or revoke: the client
// authenticates with a digest, and its ACL provider gives the lock's
// nodes, and the parents made for them, an ACL for that identity. Make the
// lock's parent ("/locks" here) once, as a persistent node, so that no
// other identity can make the lock's directory its own while it is gone.
func ExampleMutex_digestACL() {
	client, err := framework.New(os.Getenv("ZOOKEEPER_CONNECT"), framework.WithNamespace("example-acl"), framework.WithDigestAuth("jobs", "s3cret"), framework.WithACLProvider(creatorACL{})) // your ensemble: "zk1:2181,zk2:2181,zk3:2181"
	if err != nil {
		panic(err)
	}
	if err := client.Start(); err != nil {
		panic(err)
	}
	defer client.Close()
	ctx := context.Background()
	if _, err := client.Create(ctx, "/locks", []byte{}); err != nil && !errors.Is(err, framework.ErrNodeExists) {
		panic(err)
	}

	m, _ := locks.NewMutex(client, "/locks/nightly")
	h, err := m.Acquire(ctx)
	if err != nil {
		panic(err)
	}
	defer h.Release(ctx)

	anonymous, err := framework.New(os.Getenv("ZOOKEEPER_CONNECT"), framework.WithNamespace("example-acl")) // your ensemble: "zk1:2181,zk2:2181,zk3:2181"
	if err != nil {
		panic(err)
	}
	if err := anonymous.Start(); err != nil {
		panic(err)
	}
	defer anonymous.Close()
	other, _ := locks.NewMutex(anonymous, "/locks/nightly")
	_, err = other.Acquire(ctx)
	fmt.Println(errors.Is(err, framework.ErrNoAuth))
	// Output: true
}
