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
	if err := client.Start(context.Background()); err != nil {
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
	if err := client.Start(context.Background()); err != nil {
		panic(err)
	}
	defer client.Close()
	m, _ := locks.NewMutex(client, "/locks/account")

	// debit takes the lock itself, so it may be called alone or by a caller
	// that holds the lock already.
	debit := func(ctx context.Context) error {
		h, err := m.Acquire(ctx) // re-enters when ctx's owner holds the lock: no ZooKeeper call
		if err != nil {
			return err
		}
		defer h.Release(ctx)
		fmt.Println("debit, owner holds the lock:", m.IsOwnedBy(locks.OwnerFrom(ctx)))
		return nil
	}
	transfer := func(ctx context.Context) error {
		h, err := m.Acquire(ctx)
		if err != nil {
			return err
		}
		defer h.Release(ctx)
		return debit(ctx)
	}

	// What a Java thread was to Curator: give one Owner to each request or job.
	ctx := locks.WithOwner(context.Background(), locks.NewOwner())
	fmt.Println("transfer:", transfer(ctx))
	// Without an Owner nothing re-enters: debit's Acquire would wait on its
	// own caller's hold, so it is refused at once.
	err = transfer(context.Background())
	fmt.Println("without an Owner:", errors.Is(err, locks.ErrSelfDeadlock))
	fmt.Println("held after both:", m.IsAcquiredInThisProcess())
	// Output:
	// debit, owner holds the lock: true
	// transfer: <nil>
	// without an Owner: true
	// held after both: false
}

func ExampleSemaphore() {
	client, err := framework.New(os.Getenv("ZOOKEEPER_CONNECT"), framework.WithNamespace("example-semaphore")) // your ensemble: "zk1:2181,zk2:2181,zk3:2181"
	if err != nil {
		panic(err)
	}
	if err := client.Start(context.Background()); err != nil {
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
	if err := client.Start(context.Background()); err != nil {
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
	// Output: cannot upgrade a read lock to a write lock
}

func ExampleReadWriteLock_Downgrade() {
	client, err := framework.New(os.Getenv("ZOOKEEPER_CONNECT"), framework.WithNamespace("example-downgrade")) // your ensemble: "zk1:2181,zk2:2181,zk3:2181"
	if err != nil {
		panic(err)
	}
	if err := client.Start(context.Background()); err != nil {
		panic(err)
	}
	defer client.Close()
	ctx := context.Background() // no Owner: the holds say who is downgrading

	rw, _ := locks.NewReadWriteLock(client, "/locks/config")
	w, _ := rw.WriteLock().Acquire(ctx)
	_, err = rw.ReadLock().Acquire(ctx) // this goroutine's own write hold is in the way
	fmt.Println(errors.Is(err, locks.ErrSelfDeadlock))
	r, err := rw.Downgrade(ctx, w) // the read lock, in the write hold's place
	if err != nil {
		panic(err)
	}
	w.Release(ctx) // still reading, ahead of queued writers
	_, err = rw.WriteLock().Acquire(ctx)
	fmt.Println(errors.Is(err, locks.ErrUpgrade))
	r.Release(ctx)
	// Output:
	// true
	// true
}

func ExampleMultiLock() {
	client, err := framework.New(os.Getenv("ZOOKEEPER_CONNECT"), framework.WithNamespace("example-multi")) // your ensemble: "zk1:2181,zk2:2181,zk3:2181"
	if err != nil {
		panic(err)
	}
	if err := client.Start(context.Background()); err != nil {
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
	if err := client.Start(context.Background()); err != nil {
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
	if err := client.Start(context.Background()); err != nil {
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
	if err := client.Start(context.Background()); err != nil {
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
	if err := anonymous.Start(context.Background()); err != nil {
		panic(err)
	}
	defer anonymous.Close()
	other, _ := locks.NewMutex(anonymous, "/locks/nightly")
	_, err = other.Acquire(ctx)
	fmt.Println(errors.Is(err, framework.ErrNoAuth))
	// Output: true
}
