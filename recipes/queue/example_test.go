package queue_test

import (
	"context"
	"errors"
	"fmt"
	"os"
	"time"

	"github.com/gocurator/curator/framework"
	"github.com/gocurator/curator/recipes/queue"
)

// connect returns a started client in a namespace of the example's.
func connect(ns string) *framework.Client {
	client, err := framework.New(os.Getenv("ZOOKEEPER_CONNECT"), framework.WithNamespace(ns))
	if err != nil {
		panic(err)
	}
	if err := client.Start(context.Background()); err != nil {
		panic(err)
	}
	return client
}

// Raw bytes in and out, as ZooKeeper's own queue recipe: Take waits for
// an item, Poll and Peek do not.
func ExampleSimple() {
	client := connect("example-simple")
	defer client.Close()
	ctx := context.Background()

	jobs, err := queue.NewSimple(client, "/jobs")
	if err != nil {
		panic(err)
	}
	for _, job := range []string{"resize", "upload"} {
		if err := jobs.Offer(ctx, []byte(job)); err != nil {
			panic(err)
		}
	}
	first, _ := jobs.Take(ctx)
	next, _ := jobs.Peek(ctx)
	fmt.Printf("took %s, next %s\n", first, next)
	jobs.Poll(ctx) // takes "upload"
	if _, err := jobs.Poll(ctx); errors.Is(err, queue.ErrEmpty) {
		fmt.Println("then empty")
	}
	// Output:
	// took resize, next upload
	// then empty
}

// A lock-safe work queue: the Consumer runs on the queue's goroutine, and
// an item is removed only once it returns nil.
func ExampleQueue() {
	client := connect("example-queue")
	defer client.Close()
	ctx := context.Background()

	done := make(chan struct{})
	consume := func(ctx context.Context, order string) error {
		fmt.Println("shipping", order)
		if order == "order-3" {
			close(done)
		}
		return nil
	}
	orders, err := queue.New(client, "/orders", queue.String{}, consume, queue.WithLockPath("/orders-locks"))
	if err != nil {
		panic(err)
	}
	if err := orders.Start(ctx); err != nil {
		panic(err)
	}
	defer orders.Close()
	if err := orders.Put(ctx, "order-1"); err != nil {
		panic(err)
	}
	if err := orders.PutMulti(ctx, []string{"order-2", "order-3"}); err != nil { // one node, taken together
		panic(err)
	}
	<-done
	// Output:
	// shipping order-1
	// shipping order-2
	// shipping order-3
}

// Items put with an id can be withdrawn before a consumer takes them.
func ExampleIDQueue() {
	client := connect("example-idqueue")
	defer client.Close()
	ctx := context.Background()

	emails, err := queue.NewID[string](client, "/emails", queue.String{}, nil) // a producer only
	if err != nil {
		panic(err)
	}
	if err := emails.Start(ctx); err != nil {
		panic(err)
	}
	defer emails.Close()
	emails.Put(ctx, "welcome", "user-7")
	emails.Put(ctx, "reminder", "user-7")
	emails.Put(ctx, "welcome", "user-8")
	n, err := emails.Remove(ctx, "user-7") // user 7 unsubscribed
	if err != nil {
		panic(err)
	}
	fmt.Println("withdrawn:", n)
	// Output: withdrawn: 2
}

// Lower priorities come first; items of one priority in the order they
// were put.
func ExamplePriorityQueue() {
	client := connect("example-priority")
	defer client.Close()
	ctx := context.Background()

	producer, err := queue.NewPriority[string](client, "/tasks", queue.String{}, nil)
	if err != nil {
		panic(err)
	}
	if err := producer.Start(ctx); err != nil {
		panic(err)
	}
	defer producer.Close()
	producer.Put(ctx, "reindex", 10)
	producer.Put(ctx, "page the on-call", -1)
	producer.Put(ctx, "send report", 10)

	done := make(chan struct{})
	seen := 0
	consumer, err := queue.NewPriority(client, "/tasks", queue.String{}, func(ctx context.Context, task string) error {
		fmt.Println(task)
		if seen++; seen == 3 {
			close(done)
		}
		return nil
	})
	if err != nil {
		panic(err)
	}
	if err := consumer.Start(ctx); err != nil {
		panic(err)
	}
	defer consumer.Close()
	<-done
	// Output:
	// page the on-call
	// reindex
	// send report
}

// Items come out when they are due, earliest first.
func ExampleDelayQueue() {
	client := connect("example-delay")
	defer client.Close()
	ctx := context.Background()

	producer, err := queue.NewDelay[string](client, "/reminders", queue.String{}, nil)
	if err != nil {
		panic(err)
	}
	if err := producer.Start(ctx); err != nil {
		panic(err)
	}
	defer producer.Close()
	now := time.Now()
	producer.Put(ctx, "stand up", now.Add(200*time.Millisecond))
	producer.Put(ctx, "drink water", now.Add(100*time.Millisecond))

	done := make(chan struct{})
	reminders, err := queue.NewDelay(client, "/reminders", queue.String{}, func(ctx context.Context, r string) error {
		fmt.Println(r)
		if r == "stand up" {
			close(done)
		}
		return nil
	})
	if err != nil {
		panic(err)
	}
	if err := reminders.Start(ctx); err != nil {
		panic(err)
	}
	defer reminders.Close()
	<-done
	// Output:
	// drink water
	// stand up
}

// One queue spread over shards, as Curator's QueueSharder spreads it: each
// shard is a lock-safe Queue locked under a path of its own, and each put
// goes to a shard Queue picks. Java sharders on the same paths share the
// shards.
func ExampleSharder() {
	client := connect("example-sharder")
	defer client.Close()
	ctx := context.Background()

	got := make(chan string)
	consume := func(ctx context.Context, job string) error {
		select {
		case got <- job:
			return nil
		case <-ctx.Done():
			return ctx.Err()
		}
	}
	shard := func(path string) (*queue.Queue[string], error) {
		_, name := framework.SplitPath(path)
		return queue.New(client, path, queue.String{}, consume, queue.WithLockPath("/jobs-locks/"+name))
	}
	jobs, err := queue.NewSharder(client, "/jobs", "/jobs-leader", queue.SharderPolicies{Threshold: 1000, MaxShards: 4}, shard)
	if err != nil {
		panic(err)
	}
	if err := jobs.Start(ctx); err != nil {
		panic(err)
	}
	defer jobs.Close()
	q, err := jobs.Queue()
	if err != nil {
		panic(err)
	}
	if err := q.Put(ctx, "resize"); err != nil {
		panic(err)
	}
	fmt.Println(len(jobs.Paths()), "shard,", <-got)
	// Output: 1 shard, resize
}
