package atomic_test

import (
	"context"
	"errors"
	"fmt"
	"os"
	"time"

	"github.com/gocurator/curator/framework"
	"github.com/gocurator/curator/recipes/atomic"
	"github.com/gocurator/curator/retry"
)

// A counter that Java's DistributedAtomicLong and this one share: a few
// optimistic tries, then the lock. Succeeded must be checked; an error
// wrapping framework.ErrOutcomeUnknown means the increment may have been
// applied.
func ExampleInt64() {
	client, err := framework.New(os.Getenv("ZOOKEEPER_CONNECT"), framework.WithNamespace("example-atomic-long"))
	if err != nil {
		panic(err)
	}
	if err := client.Start(context.Background()); err != nil {
		panic(err)
	}
	defer client.Close()
	ctx := context.Background()

	hits, err := atomic.NewInt64(client, "/stats/hits", retry.RetryNTimes(5, 10*time.Millisecond),
		atomic.WithPromotion(atomic.Promotion{LockPath: "/stats/hits-lock", Timeout: time.Second}))
	if err != nil {
		panic(err)
	}
	res, err := hits.Increment(ctx)
	switch {
	case errors.Is(err, framework.ErrOutcomeUnknown):
		fmt.Println("the increment to", res.Post, "may have been applied")
	case err != nil:
		panic(err)
	case !res.Succeeded:
		fmt.Println("too much contention: not incremented")
	default:
		fmt.Println(res.Pre, "->", res.Post)
	}
	// Output: 0 -> 1
}

// A 32-bit counter, in the 4 bytes Java's DistributedAtomicInteger uses,
// with a first value set only if the node is new.
func ExampleInt32() {
	client, err := framework.New(os.Getenv("ZOOKEEPER_CONNECT"), framework.WithNamespace("example-atomic-int"))
	if err != nil {
		panic(err)
	}
	if err := client.Start(context.Background()); err != nil {
		panic(err)
	}
	defer client.Close()
	ctx := context.Background()

	slots, err := atomic.NewInt32(client, "/slots", retry.RetryNTimes(5, 10*time.Millisecond))
	if err != nil {
		panic(err)
	}
	if _, err := slots.Initialize(ctx, 10); err != nil {
		panic(err)
	}
	res, err := slots.Subtract(ctx, 3)
	if err != nil || !res.Succeeded {
		panic(fmt.Sprint(res, err))
	}
	n, err := slots.Get(ctx)
	if err != nil {
		panic(err)
	}
	fmt.Println(n)
	// Output: 7
}

// Raw bytes set only over the value expected.
func ExampleValue() {
	client, err := framework.New(os.Getenv("ZOOKEEPER_CONNECT"), framework.WithNamespace("example-atomic-value"))
	if err != nil {
		panic(err)
	}
	if err := client.Start(context.Background()); err != nil {
		panic(err)
	}
	defer client.Close()
	ctx := context.Background()

	mode, err := atomic.NewValue(client, "/mode", retry.RetryNTimes(5, 10*time.Millisecond))
	if err != nil {
		panic(err)
	}
	if err := mode.ForceSet(ctx, []byte("blue")); err != nil {
		panic(err)
	}
	res, err := mode.CompareAndSet(ctx, []byte("blue"), []byte("green"))
	if err != nil {
		panic(err)
	}
	fmt.Printf("%t %s -> %s\n", res.Succeeded, res.Pre, res.Post)
	// Output: true blue -> green
}

// Ids handed out from blocks of 100 reserved in a shared counter, as
// Curator's CachedAtomicLong hands them out: one update per 100 ids, and
// no id twice, whoever else (Java's too) takes ids from the counter.
func ExampleCachedInt64() {
	client, err := framework.New(os.Getenv("ZOOKEEPER_CONNECT"), framework.WithNamespace("example-atomic-cached"))
	if err != nil {
		panic(err)
	}
	if err := client.Start(context.Background()); err != nil {
		panic(err)
	}
	defer client.Close()
	ctx := context.Background()

	counter, err := atomic.NewInt64(client, "/ids", retry.RetryNTimes(10, 10*time.Millisecond))
	if err != nil {
		panic(err)
	}
	ids, err := atomic.NewCached(counter, 100)
	if err != nil {
		panic(err)
	}
	for range 3 {
		res, err := ids.Next(ctx)
		if err != nil || !res.Succeeded {
			panic(fmt.Sprint(res, err))
		}
		fmt.Print(res.Post, " ")
	}
	reserved, _ := counter.Get(ctx)
	fmt.Println("reserved up to", reserved)
	// Output: 1 2 3 reserved up to 100
}
