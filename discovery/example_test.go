package discovery_test

import (
	"context"
	"fmt"
	"os"

	"github.com/gocurator/curator/discovery"
	"github.com/gocurator/curator/framework"
)

// InstanceDetails is a service's payload. A Java peer reading it as a bean
// names its class (WithPayloadClass); one reading a Map needs nothing.
type InstanceDetails struct {
	Region string `json:"region"`
}

// A service registers itself, and a client finds it and builds its URI.
func Example() {
	client, err := framework.New(os.Getenv("ZOOKEEPER_CONNECT"), framework.WithNamespace("example-discovery"))
	if err != nil {
		panic(err)
	}
	if err := client.Start(context.Background()); err != nil {
		panic(err)
	}
	defer client.Close()
	ctx := context.Background()

	d, err := discovery.New[InstanceDetails](client, "/services", discovery.WithPayloadClass("com.example.InstanceDetails"))
	if err != nil {
		panic(err)
	}
	if err := d.Start(ctx); err != nil {
		panic(err)
	}
	defer d.Close() // unregisters

	spec, _ := discovery.ParseURISpec("{scheme}://{address}:{port}/api")
	if _, err := d.Register(ctx, discovery.Instance[InstanceDetails]{
		Name: "orders", ID: "orders-1", Address: "10.0.0.7", Port: 8080,
		Payload: InstanceDetails{Region: "eu-west"}, URISpec: spec,
	}); err != nil {
		panic(err)
	}

	p, err := d.NewProvider("orders", discovery.ProviderConfig[InstanceDetails]{})
	if err != nil {
		panic(err)
	}
	if err := p.Start(ctx); err != nil {
		panic(err)
	}
	defer p.Close()
	if inst, ok := p.Instance(); ok {
		fmt.Println(inst.URI(), inst.Payload.Region)
	}
	// Output: http://10.0.0.7:8080/api eu-west
}
