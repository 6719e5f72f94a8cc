package discovery_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/gocurator/curator/discovery"
	"github.com/gocurator/curator/recipestest"
)

// Go and curator-x-discovery 5.4 on one base path, payloads as Java Maps:
// each finds the other's instances with their payloads intact, and each
// writes the bytes the other writes.
func TestInteropMapPayload(t *testing.T) {
	recipestest.LeakCheck(t)
	ns := recipestest.Namespace(t)
	cs := clients(t, server.ConnectString(), ns, 1)
	ctx := ctxT(t)
	java := startPeer(t, ns, "map")
	d := started[map[string]any](t, cs[0])
	spec, _ := discovery.ParseURISpec("{scheme}://{address}:{port}/v1")
	if _, err := d.Register(ctx, discovery.Instance[map[string]any]{Name: "orders", ID: "go-1", Address: "10.0.0.1", Port: 8080,
		Payload: map[string]any{"region": "eu", "weight": 5}, URISpec: spec}); err != nil {
		t.Fatal(err)
	}
	javaJSON := java.do("REGISTERED ", "REGISTER orders java-1 9000 us 7")

	if got := java.do("NAMES ", "NAMES"); got != "orders" {
		t.Fatalf("Java's queryForNames: %q", got)
	}
	want := "go-1|10.0.0.1|8080|null|eu/5|true|http://10.0.0.1:8080/v1 java-1|10.0.0.9|9000|null|us/7|true|http://10.0.0.9:9000/v1"
	java.query("orders", want)
	insts, err := d.Instances(ctx, "orders")
	if err != nil || len(insts) != 2 {
		t.Fatalf("Go's Instances: %v, %v", insts, err)
	}
	j := insts[1]
	if j.ID != "java-1" || j.Address != "10.0.0.9" || j.Port != 9000 || fmt.Sprint(j.Payload) != "map[region:us weight:7]" ||
		j.URI() != "http://10.0.0.9:9000/v1" || j.Disabled || j.ServiceType != discovery.Dynamic {
		t.Fatalf("Go read Java's instance as %+v", j)
	}

	// The bytes: Java's node as Java wrote it, read and written again by
	// Go; Go's node read and written again by Java.
	data, _, err := cs[0].Get(ctx, "/services/orders/java-1")
	if err != nil || string(data) != javaJSON {
		t.Fatalf("Java's node holds %s, %v; Java said it wrote %s", data, err, javaJSON)
	}
	if again := goRoundTrip[map[string]any](t, data); again != javaJSON {
		t.Fatalf("Go wrote Java's instance back as\n%s\nJava wrote\n%s", again, javaJSON)
	}
	goData, _, _ := cs[0].Get(ctx, "/services/orders/go-1")
	if again := java.do("JSON ", "ROUNDTRIP /services/orders/go-1"); again != string(goData) {
		t.Fatalf("Java wrote Go's instance back as\n%s\nGo wrote\n%s", again, goData)
	}
}

// goRoundTrip reads an instance's JSON and writes it again.
func goRoundTrip[T any](t *testing.T, data []byte, opts ...discovery.Option) string {
	t.Helper()
	inst, err := discovery.Unmarshal[T](data)
	if err != nil {
		t.Fatal(err)
	}
	again, err := discovery.Marshal(inst, opts...)
	if err != nil {
		t.Fatal(err)
	}
	return string(again)
}

// The same with a bean payload (Java's DiscoveryPeer$Details, Go's
// Details): Go names the bean's class, and a Java reader of beans reads
// Go's payload; without the class, Java refuses it, as it refuses any
// payload of another class.
func TestInteropBeanPayload(t *testing.T) {
	recipestest.LeakCheck(t)
	ns := recipestest.Namespace(t)
	cs := clients(t, server.ConnectString(), ns, 2)
	ctx := ctxT(t)
	java := startPeer(t, ns, "bean")
	class := discovery.WithPayloadClass("DiscoveryPeer$Details")
	d := started[Details](t, cs[0], class)
	if _, err := d.Register(ctx, discovery.Instance[Details]{Name: "orders", ID: "go-1", Address: "10.0.0.1", Port: 8080, SSLPort: 8443,
		Payload: Details{"eu", 5}}); err != nil {
		t.Fatal(err)
	}
	javaJSON := java.do("REGISTERED ", "REGISTER orders java-1 9000 us 7")
	want := "go-1|10.0.0.1|8080|8443|eu/5|true| java-1|10.0.0.9|9000|null|us/7|true|http://10.0.0.9:9000/v1"
	java.query("orders", want)
	j, ok, err := d.Instance(ctx, "orders", "java-1")
	if err != nil || !ok || j.Payload != (Details{"us", 7}) {
		t.Fatalf("Go read Java's instance as %+v, %v, %v", j, ok, err)
	}
	data, _, _ := cs[0].Get(ctx, "/services/orders/java-1")
	if again := goRoundTrip[Details](t, data, class); again != javaJSON {
		t.Fatalf("Go wrote Java's instance back as\n%s\nJava wrote\n%s", again, javaJSON)
	}
	goData, _, _ := cs[0].Get(ctx, "/services/orders/go-1")
	if again := java.do("JSON ", "ROUNDTRIP /services/orders/go-1"); again != string(goData) {
		t.Fatalf("Java wrote Go's instance back as\n%s\nGo wrote\n%s", again, goData)
	}

	// Without the class, Go writes a Map, which a bean reader refuses.
	plain := started[Details](t, cs[1])
	if _, err := plain.Register(ctx, discovery.Instance[Details]{Name: "plain", ID: "go-2", Payload: Details{"eu", 1}}); err != nil {
		t.Fatal(err)
	}
	if got := java.do("ERR ", "QUERY plain"); !strings.Contains(got, "ClassCastException") {
		t.Fatalf("Java read a Map payload as a bean: %q", got)
	}
}

// A Java ServiceCache sees a Go instance come and go, a Go Cache sees a
// Java instance come and go, and each side's provider picks the other's
// instances.
func TestInteropCachesAndProviders(t *testing.T) {
	recipestest.LeakCheck(t)
	ns := recipestest.Namespace(t)
	cs := clients(t, server.ConnectString(), ns, 2)
	ctx := ctxT(t)
	java := startPeer(t, ns, "map")
	if got := java.do("CACHED", "CACHE svc"); got != "" {
		t.Fatalf("Java's cache started with %q", got)
	}
	d := started[map[string]any](t, cs[0])
	goInst, err := d.Register(ctx, discovery.Instance[map[string]any]{Name: "svc", ID: "go-1", Payload: map[string]any{"region": "eu"}})
	if err != nil {
		t.Fatal(err)
	}
	java.sees("go-1")
	if err := d.Unregister(goInst); err != nil {
		t.Fatal(err)
	}
	java.sees("")

	watcher := started[map[string]any](t, cs[1])
	c, _ := watcher.NewCache("svc")
	events := make(chan string, 10)
	c.AddListener(func(ev discovery.Event[map[string]any]) {
		events <- fmt.Sprint(ev.Type, " ", ev.Instance.ID, " ", ev.Instance.Payload["region"])
	})
	if err := c.Start(ctx); err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	next := func(want string) {
		t.Helper()
		select {
		case got := <-events:
			if got != want {
				t.Fatalf("Go's cache: %q, want %q", got, want)
			}
		case <-ctx.Done():
			t.Fatalf("Go's cache never saw %q", want)
		}
	}
	java.do("REGISTERED ", "REGISTER svc java-1 9000 us 7")
	next("Added java-1 us")
	java.do("UNREGISTERED", "UNREGISTER svc java-1")
	next("Removed java-1 us")

	// Providers: one instance from each side; each provider picks both.
	if _, err := d.Register(ctx, goInst); err != nil {
		t.Fatal(err)
	}
	java.do("REGISTERED ", "REGISTER svc java-1 9000 us 7")
	java.do("PROVIDED", "PROVIDER svc")
	p, _ := watcher.NewProvider("svc", discovery.ProviderConfig[map[string]any]{})
	if err := p.Start(ctx); err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	recipestest.Eventually(t, "both providers to pick both instances", func() (bool, string) {
		javaPicks := map[string]bool{}
		for range 4 {
			javaPicks[java.do("PICKED ", "PICK")] = true
		}
		goPicks := map[string]bool{}
		for range 4 {
			i, _ := p.Instance()
			goPicks[i.ID] = true
		}
		ok := javaPicks["go-1"] && javaPicks["java-1"] && goPicks["go-1"] && goPicks["java-1"]
		return ok, fmt.Sprint("Java picked ", javaPicks, ", Go picked ", goPicks)
	})
}
