package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/gocurator/curator/discovery"
	"github.com/gocurator/curator/framework"
)

// exitNoInstance: gocurator instances found nothing (no service, no
// instance).
const exitNoInstance = 1

const instancesHelp = `Usage: gocurator instances [flags] BASEPATH [NAME]

Lists the services registered under BASEPATH in Apache Curator's service
discovery format (curator-x-discovery), or, with NAME, the instances of the
service NAME, one line each, tab-separated:

  ID  ADDRESS  PORT  SSL-PORT  URI  enabled|disabled  PAYLOAD

(an empty column for a field that is not set; the payload as JSON, without
Jackson's "@class"), sorted by id.

Flags:
  --json    print each instance's node as it is stored (Curator's JSON), one
            per line
  --watch   with NAME: print the instances, then each change as it comes, as
            "added", "updated" or "removed" and the instance's columns, until
            interrupted
` + connectionHelp + `
Exit status:
  0    something was listed (with --watch: interrupted)
  1    no service, or no instance of NAME
  2    bad usage (nothing was sent)
  121  gocurator failed: cannot connect, a request failed

Examples:
  gocurator instances /services
  gocurator instances /services orders
  gocurator instances --watch /services orders
`

// instances is `gocurator instances`.
func (a *app) instances(args []string) int {
	const cmd = "instances"
	fs := newFlagSet(cmd)
	var conn connFlags
	conn.register(fs, a.getenv)
	raw := fs.Bool("json", false, "")
	watch := fs.Bool("watch", false, "")
	p, status := a.parseOrHelp(cmd, fs, args)
	if status >= 0 {
		return status
	}
	switch {
	case len(p.args) == 0 || len(p.args) > 2 || p.dashes:
		a.usageError(cmd, fmt.Sprintf("want BASEPATH and an optional NAME, got %q", append(p.args, p.command...)))
		return exitUsage
	case *watch && len(p.args) != 2:
		a.usageError(cmd, "--watch needs a NAME")
		return exitUsage
	case *watch && *raw:
		a.usageError(cmd, "--json does not go with --watch")
		return exitUsage
	}
	if msg := pathProblem(p.args[0]); msg != "" {
		a.usageError(cmd, msg)
		return exitUsage
	}
	if len(p.args) == 2 {
		if msg := nameProblem(p.args[1]); msg != "" {
			a.usageError(cmd, msg)
			return exitUsage
		}
	}
	client, _, sigs, done, status := a.startQuery(cmd, parsed{args: p.args[:1]}, &conn)
	if status >= 0 {
		return status
	}
	defer done()
	d, err := discovery.New[json.RawMessage](client, p.args[0])
	if err != nil {
		return a.fail(cmd, exitFailed, "%v", err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), conn.connectTimeout)
	defer cancel()
	switch {
	case len(p.args) == 1:
		names, err := d.Names(ctx)
		if err != nil {
			return a.fail(cmd, exitFailed, "%v", err)
		}
		for _, n := range names {
			fmt.Fprintln(a.stdout, display(n))
		}
		if len(names) == 0 {
			return exitNoInstance
		}
		return exitOK
	case *raw:
		return a.rawInstances(ctx, client, framework.JoinPath(p.args[0], p.args[1]))
	case !*watch:
		insts, err := d.Instances(ctx, p.args[1])
		if err != nil {
			return a.fail(cmd, exitFailed, "%v", err)
		}
		slices.SortFunc(insts, func(x, y discovery.Instance[json.RawMessage]) int { return strings.Compare(x.ID, y.ID) })
		for _, i := range insts {
			fmt.Fprintln(a.stdout, instanceLine(i))
		}
		if len(insts) == 0 {
			return exitNoInstance
		}
		return exitOK
	}
	cancel()
	c, err := d.NewCache(p.args[1])
	if err != nil {
		return a.fail(cmd, exitFailed, "%v", err)
	}
	changes, quit := make(chan string, 64), make(chan struct{})
	c.AddListener(func(ev discovery.Event[json.RawMessage]) {
		select {
		case changes <- strings.ToLower(ev.Type.String()) + "\t" + instanceLine(ev.Instance):
		case <-quit:
		}
	})
	life, stop := context.WithCancel(context.Background())
	defer stop()
	if err := c.Start(life); err != nil {
		return a.fail(cmd, exitFailed, "%v", err)
	}
	defer func() {
		close(quit) // first: a listener waiting to hand a line over gives up, and Close does not wait on it
		c.Close()
	}()
	for _, i := range c.Instances() {
		fmt.Fprintln(a.stdout, "added\t"+instanceLine(i))
	}
	for {
		select {
		case line := <-changes:
			fmt.Fprintln(a.stdout, line)
		case s := <-sigs:
			if terminating(s) {
				return exitOK
			}
		}
	}
}

// rawInstances prints the nodes of a service's instances as stored.
func (a *app) rawInstances(ctx context.Context, client *framework.Client, dir string) int {
	const cmd = "instances"
	kids, _, err := client.Children(ctx, dir)
	if err != nil && !errors.Is(err, framework.ErrNoNode) {
		return a.fail(cmd, exitFailed, "%v", err)
	}
	slices.Sort(kids)
	n := 0
	for _, kid := range kids {
		data, _, err := client.Get(ctx, framework.JoinPath(dir, kid))
		if errors.Is(err, framework.ErrNoNode) {
			continue
		}
		if err != nil {
			return a.fail(cmd, exitFailed, "%v", err)
		}
		fmt.Fprintln(a.stdout, jsonLine(data))
		n++
	}
	if n == 0 {
		return exitNoInstance
	}
	return exitOK
}

// instanceLine is an instance's columns.
func instanceLine(i discovery.Instance[json.RawMessage]) string {
	num := func(n int) string {
		if n == 0 {
			return ""
		}
		return strconv.Itoa(n)
	}
	state := "enabled"
	if i.Disabled {
		state = "disabled"
	}
	payload := jsonLine(i.Payload)
	if payload == "null" {
		payload = ""
	}
	// Every field comes from a node anyone who may write the service's
	// directory chose: each is shown as display shows it, one per column.
	field := func(s string) string { // an empty column stays empty
		if s == "" {
			return ""
		}
		return display(s)
	}
	return strings.Join([]string{field(i.ID), field(i.Address), num(i.Port), num(i.SSLPort), field(i.URI()), state, payload}, "\t")
}

// jsonLine shows data read from ZooKeeper on one line: valid JSON
// compacted (its strings escape every control character), anything else
// as display shows it.
func jsonLine(data []byte) string {
	var b bytes.Buffer
	if json.Compact(&b, data) != nil {
		return display(string(data))
	}
	return b.String()
}
