package main

// The membership step of the demo (issue 30): a group, and services that
// register and find each other in curator-x-discovery's format.

import (
	"context"
	"fmt"
	"maps"
	"os"
	"os/exec"
	"slices"
	"strings"
	"time"

	"github.com/gocurator/curator/discovery"
	"github.com/gocurator/curator/framework"
	"github.com/gocurator/curator/recipes/group"
)

// details is the demo services' payload.
type details struct {
	Region string `json:"region"`
}

// membershipDemo joins three members to a group, registers three
// instances of "orders", and follows them with a cache and a provider
// while one's session expires and another leaves.
func membershipDemo(ctx context.Context, client *framework.Client, at servers, bin string) error {
	regions := []string{"eu-west", "us-east", "ap-south"}
	clients := make([]*framework.Client, len(regions))
	for i := range clients {
		c, err := at.newClient()
		if err != nil {
			return err
		}
		defer c.Close()
		if err := c.Start(context.Background()); err != nil {
			return err
		}
		clients[i] = c
	}

	fmt.Println("three processes join the group /groups/orders (Curator's GroupMember):")
	var first *group.Member
	for i, c := range clients {
		m, err := group.New(c, "/groups/orders", fmt.Sprintf("orders-%d", i+1), []byte(regions[i]))
		if err != nil {
			return err
		}
		if err := m.Start(ctx); err != nil {
			return err
		}
		defer m.Close()
		if first == nil {
			first = m
		}
	}
	<-first.Initialized()
	if err := waitFor(ctx, func() bool { return len(first.Members()) == len(regions) }); err != nil {
		return err
	}
	members := first.Members()
	for _, id := range slices.Sorted(maps.Keys(members)) {
		fmt.Printf("  %s: %s\n", id, members[id])
	}

	fmt.Println("\neach registers an instance of \"orders\" under /services (curator-x-discovery's format):")
	services := make([]*discovery.Discovery[details], len(clients))
	spec, _ := discovery.ParseURISpec("{scheme}://{address}:{port}/orders")
	for i, c := range clients {
		d, err := discovery.New[details](c, "/services", discovery.WithPayloadClass("com.example.Details"))
		if err != nil {
			return err
		}
		if err := d.Start(ctx); err != nil {
			return err
		}
		defer d.Close()
		if _, err := d.Register(ctx, discovery.Instance[details]{Name: "orders", ID: fmt.Sprintf("orders-%d", i+1),
			Address: fmt.Sprintf("10.0.0.%d", i+1), Port: 8080, Payload: details{regions[i]}, URISpec: spec}); err != nil {
			return err
		}
		services[i] = d
	}
	data, _, err := client.Get(ctx, "/services/orders/orders-1")
	if err != nil {
		return err
	}
	fmt.Printf("  /services/orders/orders-1 = %s\n", data)

	consumer, err := discovery.New[details](client, "/services")
	if err != nil {
		return err
	}
	if err := consumer.Start(ctx); err != nil {
		return err
	}
	defer consumer.Close()
	p, err := consumer.NewProvider("orders", discovery.ProviderConfig[details]{})
	if err != nil {
		return err
	}
	if err := p.Start(ctx); err != nil {
		return err
	}
	defer p.Close()
	changes := make(chan string, 16)
	c, err := consumer.NewCache("orders")
	if err != nil {
		return err
	}
	c.AddListener(func(ev discovery.Event[details]) {
		changes <- fmt.Sprintf("  [cache] %-7v %s (%s)", ev.Type, ev.Instance.ID, ev.Instance.Payload.Region)
	})
	if err := c.Start(ctx); err != nil {
		return err
	}
	defer c.Close()
	fmt.Print("a consumer's provider picks round-robin:")
	for range 4 {
		inst, _ := p.Instance()
		fmt.Printf(" %s", inst.URI())
	}
	fmt.Println()

	next := func() error {
		select {
		case line := <-changes:
			fmt.Println(line)
			return nil
		case <-ctx.Done():
			return ctx.Err()
		}
	}
	fmt.Println("\norders-2's session expires on the server: its instance goes, and is registered again")
	if err := clients[1].InjectSessionExpiration(ctx); err != nil {
		return err
	}
	for range 2 { // Removed, then Added
		if err := next(); err != nil {
			return err
		}
	}
	fmt.Println("orders-3 shuts down (Close unregisters it):")
	if err := services[2].Close(); err != nil {
		return err
	}
	if err := next(); err != nil {
		return err
	}
	var ids []string
	if err := waitFor(ctx, func() bool { // the provider's own cache follows too
		ids = ids[:0]
		for _, i := range p.Instances() {
			ids = append(ids, i.ID)
		}
		return len(ids) == 2
	}); err != nil {
		return err
	}
	fmt.Printf("the provider now picks among: %s\n", strings.Join(ids, ", "))

	if bin != "" {
		fmt.Println("$ gocurator instances /services orders")
		cmd := exec.CommandContext(ctx, bin, "instances", "/services", "orders")
		cmd.Env = append(os.Environ(), "ZOOKEEPER_CONNECT="+at.connect, "GOCURATOR_NAMESPACE=demo")
		cmd.Stdout, cmd.Stderr = os.Stdout, os.Stderr
		if err := cmd.Run(); err != nil {
			return err
		}
	}
	fmt.Println("done.")
	return nil
}

// waitFor polls cond until it holds or ctx ends.
func waitFor(ctx context.Context, cond func() bool) error {
	for !cond() {
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(10 * time.Millisecond):
		}
	}
	return nil
}
