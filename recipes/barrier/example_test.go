package barrier_test

import (
	"context"
	"fmt"
	"os"

	"github.com/gocurator/curator/framework"
	"github.com/gocurator/curator/recipes/barrier"
)

// A gate that holds workers until an operator removes it.
func ExampleBarrier() {
	client, err := framework.New(os.Getenv("ZOOKEEPER_CONNECT"), framework.WithNamespace("example-barrier"))
	if err != nil {
		panic(err)
	}
	if err := client.Start(context.Background()); err != nil {
		panic(err)
	}
	defer client.Close()
	ctx := context.Background()

	gate, err := barrier.NewBarrier(client, "/deploy/gate")
	if err != nil {
		panic(err)
	}
	if err := gate.Set(ctx); err != nil {
		panic(err)
	}
	released := make(chan error)
	go func() { released <- gate.Wait(ctx) }() // a worker
	if err := gate.Remove(ctx); err != nil {   // the operator
		panic(err)
	}
	fmt.Println("released:", <-released)
	// Output: released: <nil>
}

// Two workers start a job together and finish it together.
func ExampleDoubleBarrier() {
	ctx := context.Background()
	work := func() error {
		client, err := framework.New(os.Getenv("ZOOKEEPER_CONNECT"), framework.WithNamespace("example-double-barrier"))
		if err != nil {
			return err
		}
		if err := client.Start(context.Background()); err != nil {
			return err
		}
		defer client.Close()
		group, err := barrier.NewDoubleBarrier(client, "/jobs/reindex", 2)
		if err != nil {
			return err
		}
		if err := group.Enter(ctx); err != nil { // waits for the other worker
			return err
		}
		// ... this worker's share of the job ...
		return group.Leave(ctx) // waits until the other is done too
	}
	done := make(chan error)
	go func() { done <- work() }()
	go func() { done <- work() }()
	fmt.Println(<-done, <-done)
	// Output: <nil> <nil>
}
