package shared_test

import (
	"context"
	"fmt"
	"os"

	"github.com/gocurator/curator/framework"
	"github.com/gocurator/curator/recipes/shared"
)

// A count that several processes add to: read it, try to set the next
// value, and read again when another participant got there first.
func ExampleCount() {
	client, err := framework.New(os.Getenv("ZOOKEEPER_CONNECT"), framework.WithNamespace("example-count"))
	if err != nil {
		panic(err)
	}
	if err := client.Start(context.Background()); err != nil {
		panic(err)
	}
	defer client.Close()
	ctx := context.Background()

	jobs, err := shared.NewCount(client, "/jobs/done", 0)
	if err != nil {
		panic(err)
	}
	if err := jobs.Start(ctx); err != nil {
		panic(err)
	}
	defer jobs.Close()
	for {
		cur := jobs.Get()
		ok, err := jobs.TrySet(ctx, cur, cur.Value+1)
		if err != nil {
			panic(err)
		}
		if ok {
			fmt.Println("done:", cur.Value+1)
			break
		}
	}
	// Output: done: 1
}
