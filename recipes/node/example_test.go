package node_test

import (
	"context"
	"fmt"
	"os"
	"time"

	"github.com/gocurator/curator/framework"
	"github.com/gocurator/curator/recipes/node"
)

// A process says "I am here" with an ephemeral node that outlives lost
// sessions: the node is made again whenever it goes, until Close.
func ExampleNode() {
	client, err := framework.New(os.Getenv("ZOOKEEPER_CONNECT"), framework.WithNamespace("example-node"))
	if err != nil {
		panic(err)
	}
	if err := client.Start(context.Background()); err != nil {
		panic(err)
	}
	defer client.Close()
	ctx := context.Background()

	n, err := node.New(client, "/workers/worker-", []byte("host-1:8080"), node.WithMode(framework.EphemeralSequential))
	if err != nil {
		panic(err)
	}
	if err := n.Start(ctx); err != nil {
		panic(err)
	}
	defer n.Close()
	if err := n.WaitForInitialCreate(ctx); err != nil {
		panic(err)
	}
	_, name := framework.SplitPath(n.Path())
	fmt.Println("protected:", framework.IsProtected(name), "name:", framework.StripProtectedPrefix(name)[:len("worker-")])
	if err := n.SetData(ctx, []byte("host-1:8081")); err != nil {
		panic(err)
	}
	data, _, _ := client.Get(ctx, n.Path())
	fmt.Println("data:", string(data))
	// Output:
	// protected: true name: worker-
	// data: host-1:8081
}

// A node that stays while some process keeps it alive, and goes about a
// TTL after the last one stops (the server must allow TTL nodes).
func ExampleTTLNode() {
	client, err := framework.New(os.Getenv("ZOOKEEPER_CONNECT"), framework.WithNamespace("example-ttl-node"))
	if err != nil {
		panic(err)
	}
	if err := client.Start(context.Background()); err != nil {
		panic(err)
	}
	defer client.Close()
	ctx := context.Background()

	n, err := node.NewTTL(client, "/jobs/nightly", []byte("running"), 10*time.Second)
	if err != nil {
		panic(err)
	}
	if err := n.Start(ctx); err != nil { // node.ErrTTLUnsupported on a server without TTL nodes
		panic(err)
	}
	defer n.Close()
	data, _, _ := client.Get(ctx, "/jobs/nightly")
	fmt.Println(string(data))
	// Output: running
}
