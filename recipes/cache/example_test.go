package cache_test

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"time"

	"github.com/gocurator/curator/framework"
	"github.com/gocurator/curator/recipes/cache"
)

// A tree cache (Curator's CuratorCache or TreeCache) of a service's
// configuration, with a listener that reacts to each change.
func ExampleCache() {
	client, err := framework.New(os.Getenv("ZOOKEEPER_CONNECT"), framework.WithNamespace("example-cache")) // your ensemble: "zk1:2181,zk2:2181,zk3:2181"
	if err != nil {
		panic(err)
	}
	if err := client.Start(context.Background()); err != nil {
		panic(err)
	}
	defer client.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	client.Create(ctx, "/config/db/url", []byte("postgres://db1"), framework.WithParents())
	defer client.Delete(context.Background(), "/config", framework.WithChildren()) // leave nothing behind

	c, err := cache.New(client, "/config")
	if err != nil {
		panic(err)
	}
	changed := make(chan cache.Event, 16)
	c.AddListener(func(ev cache.Event) {
		if ev.Type == cache.Changed {
			changed <- ev
		}
	})
	if err := c.Start(context.Background()); err != nil {
		panic(err)
	}
	defer c.Close()
	<-c.Initialized()
	n, _ := c.Get("/config/db/url")
	fmt.Printf("%s = %s\n", n.Path, n.Data)

	client.Set(ctx, "/config/db/url", []byte("postgres://db2"), -1) // a publisher's write
	ev := <-changed
	fmt.Printf("%s: %s -> %s\n", ev.Path, ev.Old.Data, ev.Node.Data)
	// Output:
	// /config/db/url = postgres://db1
	// /config/db/url: postgres://db1 -> postgres://db2
}

// One node (Curator's NodeCache): depth 0.
func ExampleWithMaxDepth_node() {
	client, err := framework.New(os.Getenv("ZOOKEEPER_CONNECT"), framework.WithNamespace("example-nodecache")) // your ensemble: "zk1:2181,zk2:2181,zk3:2181"
	if err != nil {
		panic(err)
	}
	if err := client.Start(context.Background()); err != nil {
		panic(err)
	}
	defer client.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	client.Create(ctx, "/flags/dark-mode", []byte("on"), framework.WithParents())
	defer client.Delete(context.Background(), "/flags", framework.WithChildren()) // leave nothing behind

	c, _ := cache.New(client, "/flags/dark-mode", cache.WithMaxDepth(0))
	c.Start(context.Background())
	defer c.Close()
	<-c.Initialized()
	n, ok := c.Get("/flags/dark-mode")
	fmt.Println(ok, string(n.Data))
	// Output: true on
}

// A node's children (Curator's PathChildrenCache): the children only,
// never the parent's own events.
func ExampleWithChildrenOnly() {
	client, err := framework.New(os.Getenv("ZOOKEEPER_CONNECT"), framework.WithNamespace("example-childrencache")) // your ensemble: "zk1:2181,zk2:2181,zk3:2181"
	if err != nil {
		panic(err)
	}
	if err := client.Start(context.Background()); err != nil {
		panic(err)
	}
	defer client.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	client.Create(ctx, "/members/m1", []byte("10.0.0.1"), framework.WithParents())
	client.Create(ctx, "/members/m2", []byte("10.0.0.2"), framework.WithParents())
	defer client.Delete(context.Background(), "/members", framework.WithChildren()) // leave nothing behind

	c, _ := cache.New(client, "/members", cache.WithChildrenOnly())
	added := 0
	c.AddListener(func(ev cache.Event) {
		if ev.Type == cache.Created {
			added++ // m1 and m2: /members itself is never reported
		}
	})
	c.Start(context.Background())
	defer c.Close()
	<-c.Initialized()
	for _, name := range c.Children("/members") {
		n, _ := c.Get("/members/" + name)
		fmt.Println(name, string(n.Data))
	}
	c.Close() // delivers the queued events
	fmt.Println("added:", added)
	// Output:
	// m1 10.0.0.1
	// m2 10.0.0.2
	// added: 2
}

// Kazoo's DataWatch: a function called now and on every change.
func ExampleWatchData() {
	client, err := framework.New(os.Getenv("ZOOKEEPER_CONNECT"), framework.WithNamespace("example-datawatch")) // your ensemble: "zk1:2181,zk2:2181,zk3:2181"
	if err != nil {
		panic(err)
	}
	if err := client.Start(context.Background()); err != nil {
		panic(err)
	}
	defer client.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()

	seen := make(chan string, 4)
	// The watcher's context is its lifetime (the application's), not ctx,
	// which bounds this example's calls.
	w, err := cache.WatchData(context.Background(), client, "/config/limit", func(n cache.Node, exists bool, missed int) {
		if missed > 0 { // it fell behind: changes came and went unseen
			seen <- fmt.Sprintf("(%d changes unseen)", missed)
		}
		seen <- fmt.Sprintf("exists=%v data=%q", exists, n.Data)
	})
	if err != nil {
		panic(err)
	}
	defer w.Close()
	defer client.Delete(context.Background(), "/config", framework.WithChildren()) // leave nothing behind
	fmt.Println(<-seen)                                                            // called before WatchData returned: the node does not exist yet
	client.Create(ctx, "/config/limit", []byte("100"), framework.WithParents())
	fmt.Println(<-seen)
	// Output:
	// exists=false data=""
	// exists=true data="100"
}

// Kazoo's ChildrenWatch.
func ExampleWatchChildren() {
	client, err := framework.New(os.Getenv("ZOOKEEPER_CONNECT"), framework.WithNamespace("example-childrenwatch")) // your ensemble: "zk1:2181,zk2:2181,zk3:2181"
	if err != nil {
		panic(err)
	}
	if err := client.Start(context.Background()); err != nil {
		panic(err)
	}
	defer client.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	client.Create(ctx, "/workers/w1", nil, framework.WithParents())
	defer client.Delete(context.Background(), "/workers", framework.WithChildren()) // leave nothing behind

	seen := make(chan []string, 4)
	w, err := cache.WatchChildren(context.Background(), client, "/workers", func(children []string, exists bool, missed int) {
		seen <- children // missed > 0: joins and departures came and went unseen
	})
	if err != nil {
		panic(err)
	}
	defer w.Close()
	fmt.Println(<-seen)
	client.Create(ctx, "/workers/w2", nil)
	fmt.Println(<-seen)
	// Output:
	// [w1]
	// [w1 w2]
}

// A typed view of a config cache: each node holds JSON.
func ExampleDecoder() {
	client, err := framework.New(os.Getenv("ZOOKEEPER_CONNECT"), framework.WithNamespace("example-decoder")) // your ensemble: "zk1:2181,zk2:2181,zk3:2181"
	if err != nil {
		panic(err)
	}
	if err := client.Start(context.Background()); err != nil {
		panic(err)
	}
	defer client.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	client.Create(ctx, "/services/billing", []byte(`{"replicas": 3, "region": "eu"}`), framework.WithParents())
	defer client.Delete(context.Background(), "/services", framework.WithChildren()) // leave nothing behind

	type service struct {
		Replicas int    `json:"replicas"`
		Region   string `json:"region"`
	}
	c, _ := cache.New(client, "/services")
	c.Start(context.Background())
	defer c.Close()
	<-c.Initialized()
	services, _ := cache.NewDecoder(c, func(b []byte) (service, error) {
		var s service
		err := json.Unmarshal(b, &s)
		return s, err
	})
	s, ok, err := services.Get("/services/billing")
	fmt.Println(s.Replicas, s.Region, ok, err)
	// Output: 3 eu true <nil>
}

// A cache of two levels kept by one persistent recursive watch, as a
// whole tree's is by default: the server holds one watch for the tree, and
// the cache leaves out what it tells of the levels below.
func ExampleWithPersistentWatch() {
	client, err := framework.New(os.Getenv("ZOOKEEPER_CONNECT"), framework.WithNamespace("example-persistent")) // your ensemble: "zk1:2181,zk2:2181,zk3:2181"
	if err != nil {
		panic(err)
	}
	if err := client.Start(context.Background()); err != nil {
		panic(err)
	}
	defer client.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	client.Create(ctx, "/flags/beta", []byte("off"), framework.WithParents())
	defer client.Delete(context.Background(), "/flags", framework.WithChildren()) // leave nothing behind

	c, err := cache.New(client, "/flags", cache.WithMaxDepth(2), cache.WithPersistentWatch())
	if err != nil {
		panic(err)
	}
	created := make(chan cache.Event, 16)
	c.AddListener(func(ev cache.Event) {
		if ev.Type == cache.Created {
			created <- ev
		}
	})
	if err := c.Start(context.Background()); err != nil {
		panic(err)
	}
	defer c.Close()
	<-c.Initialized()
	fmt.Println(c.Children("/flags"))

	client.Create(ctx, "/flags/beta/eu", []byte("on"), framework.WithParents()) // a node two levels down
	for ev := range created {
		if ev.Path == "/flags/beta/eu" {
			fmt.Printf("%s = %s\n", ev.Path, ev.Node.Data)
			break
		}
	}
	// Output:
	// [beta]
	// /flags/beta/eu = on
}
