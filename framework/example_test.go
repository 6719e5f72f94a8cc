package framework_test

import (
	"context"
	"errors"
	"fmt"
	"os"
	"time"

	"github.com/gocurator/curator/framework"
	"github.com/gocurator/curator/listener"
	"github.com/gocurator/curator/retry"
)

func ExampleClient() {
	client, err := framework.New(os.Getenv("ZOOKEEPER_CONNECT"), // your ensemble: "zk1:2181,zk2:2181,zk3:2181"
		framework.WithRetryPolicy(retry.ExponentialBackoffRetry(100*time.Millisecond, 3)),
		framework.WithNamespace("example-client"))
	if err != nil {
		panic(err)
	}
	connected := make(chan struct{})
	client.AddConnectionStateListener(func(s listener.ConnectionState) {
		if s == listener.Connected {
			close(connected)
		}
	})
	if err := client.Start(context.Background()); err != nil {
		panic(err)
	}
	defer client.Close()
	<-connected

	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	path, err := client.Create(ctx, "/workers/w-", []byte("hello"),
		framework.WithMode(framework.EphemeralSequential),
		framework.WithProtection(),
		framework.WithContainerParents())
	if err != nil {
		panic(err)
	}
	_, name := framework.SplitPath(path)
	fmt.Println(framework.StripProtectedPrefix(name))
	// Output: w-0000000000
}

// Publishing a configuration: OrSetData creates the node the first time and
// sets its data every time after, as Curator's create().orSetData() does.
func ExampleOrSetData() {
	client, err := framework.New(os.Getenv("ZOOKEEPER_CONNECT"), framework.WithNamespace("example-orsetdata"))
	if err != nil {
		panic(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if err := client.Start(context.Background()); err != nil {
		panic(err)
	}
	defer client.Close()
	for _, cfg := range []string{`{"pool": 10}`, `{"pool": 20}`} {
		if _, err := client.Create(ctx, "/config/db", []byte(cfg), framework.OrSetData(), framework.WithParents()); err != nil {
			panic(err)
		}
	}
	data, stat, err := client.Get(ctx, "/config/db")
	if err != nil {
		panic(err)
	}
	fmt.Println(string(data), stat.Version)
	client.Delete(ctx, "/config", framework.WithChildren())
	// Output: {"pool": 20} 1
}

// Watching many nodes without a goroutine or a Watch per watch, as a tree
// cache does: one listener for the subtree, and reads that set their watch
// for it (Curator's watched()).
func ExampleClient_GetWatched() {
	client, err := framework.New(os.Getenv("ZOOKEEPER_CONNECT"), framework.WithNamespace("example-watched"))
	if err != nil {
		panic(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if err := client.Start(context.Background()); err != nil {
		panic(err)
	}
	defer client.Close()
	defer client.Delete(ctx, "/app", framework.WithChildren())
	for _, p := range []string{"/app/a", "/app/b"} {
		if _, err := client.Create(ctx, p, []byte("v1"), framework.WithParents()); err != nil {
			panic(err)
		}
	}
	changed := make(chan framework.WatchEvent, 8)
	remove, err := client.AddWatchListener("/app", func(ev framework.WatchEvent) {
		changed <- ev // on the connection's goroutine: hand it on, never block
	})
	if err != nil {
		panic(err)
	}
	defer remove()
	for _, p := range []string{"/app/a", "/app/b"} {
		if _, _, err := client.GetWatched(ctx, p); err != nil {
			panic(err)
		}
	}
	if _, err := client.Set(ctx, "/app/b", []byte("v2"), -1); err != nil {
		panic(err)
	}
	ev := <-changed
	fmt.Println(ev.Type, ev.Path)
	// Output: NodeDataChanged /app/b
}

// A persistent recursive watch: every create, change and delete under a
// path, with one watch, until it is removed.
func ExampleClient_AddWatch() {
	client, err := framework.New(os.Getenv("ZOOKEEPER_CONNECT"), framework.WithNamespace("example-addwatch"))
	if err != nil {
		panic(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if err := client.Start(context.Background()); err != nil {
		panic(err)
	}
	defer client.Close()
	defer client.Delete(ctx, "/jobs", framework.WithChildren())
	changed := make(chan framework.WatchEvent, 8)
	remove, err := client.AddWatchListener("/jobs", func(ev framework.WatchEvent) {
		changed <- ev // on the connection's goroutine: hand it on, never block
	})
	if err != nil {
		panic(err)
	}
	defer remove()
	w, err := client.AddWatch(ctx, "/jobs", framework.WatchPersistentRecursive)
	if err != nil {
		panic(err)
	}
	defer w.Remove(ctx) // after a reconnect, w.Set(ctx) sets it again
	if _, err := client.Create(ctx, "/jobs/j1/step", []byte("queued"), framework.WithParents()); err != nil {
		panic(err)
	}
	if _, err := client.Set(ctx, "/jobs/j1/step", []byte("done"), -1); err != nil {
		panic(err)
	}
	for range 4 {
		ev := <-changed
		fmt.Println(ev.Type, ev.Path)
	}
	// Output:
	// NodeCreated /jobs
	// NodeCreated /jobs/j1
	// NodeCreated /jobs/j1/step
	// NodeDataChanged /jobs/j1/step
}

// Reading many nodes in one request: each read answered on its own, a
// missing node's error in its own result.
func ExampleClient_MultiRead() {
	client, err := framework.New(os.Getenv("ZOOKEEPER_CONNECT"), framework.WithNamespace("example-multiread"))
	if err != nil {
		panic(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if err := client.Start(context.Background()); err != nil {
		panic(err)
	}
	defer client.Close()
	defer client.Delete(ctx, "/hosts", framework.WithChildren())
	for _, p := range []string{"/hosts/a", "/hosts/b"} {
		if _, err := client.Create(ctx, p, []byte(p[len("/hosts/"):]+":8080"), framework.WithParents()); err != nil {
			panic(err)
		}
	}
	res, err := client.MultiRead(ctx,
		framework.ChildrenOp("/hosts"),
		framework.GetOp("/hosts/a"),
		framework.GetOp("/hosts/b"),
		framework.GetOp("/hosts/c"))
	if err != nil {
		panic(err)
	}
	fmt.Println(len(res[0].Children), "hosts")
	for _, r := range res[1:] {
		if errors.Is(r.Err, framework.ErrNoNode) {
			fmt.Println("gone")
			continue
		}
		fmt.Println(string(r.Data), "version", r.Stat.Version)
	}
	// Output:
	// 2 hosts
	// a:8080 version 0
	// b:8080 version 0
	// gone
}
