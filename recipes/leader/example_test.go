package leader_test

import (
	"context"
	"errors"
	"fmt"
	"os"
	"time"

	"github.com/gocurator/curator/framework"
	"github.com/gocurator/curator/recipes/leader"
)

func ExampleLatch() {
	client, err := framework.New(os.Getenv("ZOOKEEPER_CONNECT"), framework.WithNamespace("example-latch")) // your ensemble: "zk1:2181,zk2:2181,zk3:2181"
	if err != nil {
		panic(err)
	}
	if err := client.Start(context.Background()); err != nil {
		panic(err)
	}
	defer client.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()

	latch, err := leader.NewLatch(client, "/elections/scheduler", leader.WithID("host-a"))
	if err != nil {
		panic(err)
	}
	// Start's context is the latch's lifetime: the application's (a
	// signal.NotifyContext, say), never a timeout.
	if err := latch.Start(context.Background()); err != nil {
		panic(err)
	}
	defer latch.Close()

	term, err := latch.Await(ctx) // wait to lead
	if err != nil {
		panic(err)
	}
	// Lead until the term ends: the connection is suspended or lost, the
	// node is deleted, or the latch is closed.
	select {
	case <-term.Done():
		fmt.Println("no longer leading:", term.Err())
	default:
		p, _ := latch.Leader(ctx)
		fmt.Println("leading as", p.ID)
	}
	// Output: leading as host-a
}

func ExampleSelector() {
	client, err := framework.New(os.Getenv("ZOOKEEPER_CONNECT"), framework.WithNamespace("example-selector")) // your ensemble: "zk1:2181,zk2:2181,zk3:2181"
	if err != nil {
		panic(err)
	}
	if err := client.Start(context.Background()); err != nil {
		panic(err)
	}
	defer client.Close()
	// The application's lifetime: in a service,
	//   app, sigterm := signal.NotifyContext(context.Background(), syscall.SIGTERM)
	// Here sigterm() stands for the signal.
	app, sigterm := context.WithCancel(context.Background())
	defer sigterm()

	ran := make(chan string, 1)
	stopped := make(chan error, 1)
	sel, err := leader.NewSelector(client, "/elections/compactor", func(ctx context.Context, l *leader.Leadership) error {
		// The job runs while this process leads. ctx derives from app: it
		// ends the moment leadership does, or when the application's
		// context ends, and the selector then leaves the election.
		ran <- "compacting"
		<-ctx.Done()
		stopped <- context.Cause(ctx)
		return nil
	}, leader.WithID("host-b"), leader.WithAutoRequeue())
	if err != nil {
		panic(err)
	}
	if err := sel.Start(app); err != nil {
		panic(err)
	}
	defer sel.Close() // idempotent: a no-op once app's end has closed the selector
	fmt.Println(<-ran)
	sigterm() // SIGTERM: the term's work ends now, not at some later Close
	fmt.Println("stopped:", <-stopped)
	// Output:
	// compacting
	// stopped: leader: closed
}

// A leader's write commits only while its term lasts: a leader paused past
// its session, whose term another participant has since taken over, has its
// late write refused.
func ExampleLeadership_Fence() {
	client, err := framework.New(os.Getenv("ZOOKEEPER_CONNECT"), framework.WithNamespace("example-fence")) // your ensemble: "zk1:2181,zk2:2181,zk3:2181"
	if err != nil {
		panic(err)
	}
	if err := client.Start(context.Background()); err != nil {
		panic(err)
	}
	defer client.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if _, err := client.Create(ctx, "/config/owner", nil, framework.WithParents()); err != nil && !errors.Is(err, framework.ErrNodeExists) {
		panic(err)
	}
	defer client.Delete(context.Background(), "/config", framework.WithChildren()) // leave nothing behind

	latch, _ := leader.NewLatch(client, "/elections/config", leader.WithID("host-c"))
	latch.Start(context.Background())
	defer latch.Close()
	term, err := latch.Await(ctx)
	if err != nil {
		panic(err)
	}
	_, err = client.Txn(ctx, term.Fence(), framework.SetDataOp("/config/owner", []byte("host-c"), -1))
	fmt.Println("written:", err == nil)
	// Output: written: true
}

// Code that acts for a term outside the latch's listeners holds it with
// Retain: once the term ends, the latch keeps its node, and so no other
// participant leads, until that code has stopped (or the grace has
// passed).
func ExampleLeadership_Retain() {
	client, err := framework.New(os.Getenv("ZOOKEEPER_CONNECT"), framework.WithNamespace("example-retain")) // your ensemble: "zk1:2181,zk2:2181,zk3:2181"
	if err != nil {
		panic(err)
	}
	if err := client.Start(context.Background()); err != nil {
		panic(err)
	}
	defer client.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()

	latch, _ := leader.NewLatch(client, "/elections/scheduler", leader.WithID("host-e"))
	latch.Start(context.Background())
	defer latch.Close()
	term, err := latch.Await(ctx)
	if err != nil {
		panic(err)
	}
	release := term.Retain()
	if term.Err() != nil { // the term ended before the Retain: lead nothing
		release()
		return
	}
	stopped := make(chan error, 1)
	go func() { // the scheduler: every call it makes is bounded by term.Context()
		defer release()
		<-term.Context().Done()
		stopped <- term.Err()
	}()
	latch.Close() // ends the term, and deletes the node once the scheduler has let go
	fmt.Println("scheduler stopped:", <-stopped)
	// Output: scheduler stopped: leader: closed
}

func ExampleObserve() {
	client, err := framework.New(os.Getenv("ZOOKEEPER_CONNECT"), framework.WithNamespace("example-observe")) // your ensemble: "zk1:2181,zk2:2181,zk3:2181"
	if err != nil {
		panic(err)
	}
	if err := client.Start(context.Background()); err != nil {
		panic(err)
	}
	defer client.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()

	leaders, err := leader.Observe(ctx, client, "/elections/scheduler")
	if err != nil {
		panic(err)
	}
	fmt.Printf("leader: %q\n", (<-leaders).ID) // no participant yet

	latch, _ := leader.NewLatch(client, "/elections/scheduler", leader.WithID("host-d"))
	latch.Start(context.Background())
	defer latch.Close()
	fmt.Printf("leader: %q\n", (<-leaders).ID)
	// Output:
	// leader: ""
	// leader: "host-d"
}
