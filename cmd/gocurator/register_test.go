package main

import (
	"context"
	"encoding/json"
	"strings"
	"syscall"
	"testing"

	"github.com/gocurator/curator/discovery"
)

// gocurator register keeps a Curator-format instance registered while its
// command runs, and unregisters it when the command ends; gocurator
// instances lists the services and the instances, as columns and as the
// stored JSON.
func TestRegisterForTheCommandsLifetime(t *testing.T) {
	b := newBoard(t)
	c := b.client()
	r := b.start("R", b.env(b.helper("service", "R")...), "register", "--id", "go-1", "--address", "10.1.2.3", "--port", "8080",
		"--uri-spec", "{scheme}://{address}:{port}/v1", "--payload", `{"region":"eu"}`, "/services", "orders", "--", self)
	line := b.next("SERVICE R", r).line
	if field(line, "id") != "go-1" || field(line, "path") != "/services/orders/go-1" || field(line, "lockpath") != `""` {
		t.Fatalf("the command was told %q", line)
	}
	if out, errOut, status := b.run(b.env(), "instances", "/services"); status != 0 || out != "orders\n" {
		t.Fatalf("instances /services: %d %q %q", status, out, errOut)
	}
	want := "go-1\t10.1.2.3\t8080\t\thttp://10.1.2.3:8080/v1\tenabled\t{\"region\":\"eu\"}\n"
	if out, errOut, status := b.run(b.env(), "instances", "/services", "orders"); status != 0 || out != want {
		t.Fatalf("instances /services orders: %d %q %q, want %q", status, out, errOut, want)
	}
	out, _, status := b.run(b.env(), "instances", "--json", "/services", "orders")
	data, _, err := c.Get(b.ctx, "/services/orders/go-1")
	if status != 0 || err != nil || out != string(data)+"\n" || !strings.Contains(out, `"payload":{"@class":"java.util.LinkedHashMap","region":"eu"}`) {
		t.Fatalf("instances --json: %d %q; the node holds %q (%v)", status, out, data, err)
	}
	_, st, _ := c.Get(b.ctx, "/services/orders/go-1")
	if st == nil || st.EphemeralOwner == 0 {
		t.Fatalf("the instance's node is not ephemeral: %+v", st)
	}
	r.release()
	b.expectExit(r, 0)
	if ok, _, _ := c.Exists(b.ctx, "/services/orders/go-1"); ok {
		t.Fatal("the instance is still registered after its command ended")
	}
	if _, _, status := b.run(b.env(), "instances", "/services", "orders"); status != exitNoInstance {
		t.Fatalf("instances of a service with none: %d, want %d", status, exitNoInstance)
	}
}

// gocurator instances --watch prints the instances, then each change,
// until interrupted.
func TestInstancesWatch(t *testing.T) {
	b := newBoard(t)
	c := b.client()
	d, err := discovery.New[json.RawMessage](c, "/services")
	if err != nil {
		t.Fatal(err)
	}
	if err := d.Start(context.Background()); err != nil {
		t.Fatal(err)
	}
	defer d.Close()
	if _, err := d.Register(b.ctx, discovery.Instance[json.RawMessage]{Name: "orders", ID: "a", Address: "10.0.0.1", Port: 1}); err != nil {
		t.Fatal(err)
	}
	w := b.start("W", b.env(), "instances", "--watch", "/services", "orders")
	b.next("added\ta\t10.0.0.1\t1\t", w)
	bi, err := d.Register(b.ctx, discovery.Instance[json.RawMessage]{Name: "orders", ID: "b", Payload: json.RawMessage(`[1,2]`)})
	if err != nil {
		t.Fatal(err)
	}
	b.next("added\tb\t\t\t\t\tenabled\t[1,2]", w)
	bi.Disabled = true
	if err := d.Update(b.ctx, bi); err != nil {
		t.Fatal(err)
	}
	b.next("updated\tb\t\t\t\t\tdisabled", w)
	if err := d.Unregister(bi); err != nil {
		t.Fatal(err)
	}
	b.next("removed\tb\t", w)
	w.cmd.Process.Signal(syscall.SIGINT)
	b.expectExit(w, 0)
}

// Bad usage sends nothing and exits 2.
func TestRegisterAndInstancesUsage(t *testing.T) {
	b := newBoard(t)
	for _, args := range [][]string{
		{"register", "/services", "orders"},                          // no command
		{"register", "/services", "--", "true"},                      // no name
		{"register", "/services", "a/b", "--", "true"},               // bad name
		{"register", "services", "orders", "--", "true"},             // bad base path
		{"register", "--payload", "{", "/s", "orders", "--", "true"}, // bad JSON
		{"register", "--uri-spec", "{a", "/s", "orders", "--", "true"},
		{"instances"},
		{"instances", "/s", "a", "b"},
		{"instances", "--watch", "/s"},
		{"instances", "--watch", "--json", "/s", "a"},
		{"instances", "/s", ".."},
	} {
		if _, errOut, status := b.run(b.env("ZOOKEEPER_CONNECT=127.0.0.1:1"), args...); status != exitUsage {
			t.Errorf("%q: exit %d (%s), want %d", args, status, errOut, exitUsage)
		}
	}
}
