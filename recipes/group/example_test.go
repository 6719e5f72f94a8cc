package group_test

import (
	"context"
	"fmt"
	"os"

	"github.com/gocurator/curator/framework"
	"github.com/gocurator/curator/recipes/group"
)

// A process joins a group under its id and reads the membership.
func ExampleMember() {
	client, err := framework.New(os.Getenv("ZOOKEEPER_CONNECT"), framework.WithNamespace("example-group"))
	if err != nil {
		panic(err)
	}
	if err := client.Start(context.Background()); err != nil {
		panic(err)
	}
	defer client.Close()
	ctx := context.Background()

	m, err := group.New(client, "/workers", "worker-1", []byte("10.0.0.1:8080"))
	if err != nil {
		panic(err)
	}
	joined := make(chan string, 1)
	remove, _ := m.AddListener(func(ev group.Event) {
		if ev.Type == group.Joined && ev.ID == m.ID() {
			joined <- fmt.Sprintf("%s (%s)", ev.ID, ev.Data)
		}
	})
	defer remove()
	if err := m.Start(ctx); err != nil {
		panic(err)
	}
	defer m.Close()
	fmt.Println("joined:", <-joined) // this member's node, seen by its view
	for id, data := range m.Members() {
		fmt.Printf("member: %s (%s)\n", id, data)
	}
	// Output:
	// joined: worker-1 (10.0.0.1:8080)
	// member: worker-1 (10.0.0.1:8080)
}
