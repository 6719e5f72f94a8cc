package main

import (
	"context"
	"encoding/json"
	"fmt"
	"net"
	"os"
	"strings"
	"time"

	"github.com/gocurator/curator/cmd/gocurator/internal/holdrun"
	"github.com/gocurator/curator/cmd/gocurator/internal/supervise"
	"github.com/gocurator/curator/discovery"
)

// The environment of a command run by gocurator register.
const (
	envServicePath = "GOCURATOR_SERVICE_PATH" // the instance's node: BASEPATH/NAME/ID
	envServiceID   = "GOCURATOR_SERVICE_ID"   // the instance's id
)

const registerHelp = `Usage: gocurator register [flags] BASEPATH NAME -- COMMAND [ARG...]

Registers an instance of the service NAME under BASEPATH, in Apache
Curator's service discovery format (curator-x-discovery: a Java
ServiceDiscovery on BASEPATH finds it), runs COMMAND, and unregisters the
instance when COMMAND and everything it left in its process group have
ended. The instance is DYNAMIC (an ephemeral node); if it is deleted or its
session is lost, it is registered again, and the command goes on running.

Flags:
  --id ID             the instance's id (default: a random UUID, as Curator's)
  --address ADDR      the address it serves on (default: this host's first
                      address that is neither loopback nor link-local)
  --port N            its port
  --ssl-port N        its TLS port
  --uri-spec TEMPLATE its URI template, such as "{scheme}://{address}:{port}/api"
  --payload JSON      its payload, as JSON (default: none); an object is
                      written with the Java class --payload-class names
  --payload-class C   the Java class of an object payload, for Java readers
                      whose payload class is a bean (default: a Java Map)
` + connectionHelp + `
The command runs in a process group of its own; the signals gocurator gets
(INT, TERM, HUP, QUIT, USR1, USR2) are passed on to the whole group, and
anything the command left running in its group is stopped (SIGTERM, then
SIGKILL 10s later) before the instance is unregistered. Its environment has
GOCURATOR_SERVICE_PATH (the instance's node), GOCURATOR_SERVICE_ID,
ZOOKEEPER_CONNECT, GOCURATOR_NAMESPACE and the TLS settings
(GOCURATOR_TLS, _CA, _CERT, _KEY).

Exit status:
  the command's own (128+N if signal N killed it)
  2    bad usage: flags, paths, payload, no "--" (nothing was sent)
  121  gocurator failed: cannot connect, or the registration failed
  126  the command cannot be run; 127: not found

Examples:
  gocurator register --port 8080 /services orders -- ./orders-server
  gocurator register --port 8080 --payload '{"region":"eu"}' /services orders -- ./orders-server
`

// leftoverGrace is how long processes the command left in its group get
// between SIGTERM and SIGKILL.
const leftoverGrace = 10 * time.Second

// register is `gocurator register`.
func (a *app) register(args []string) int {
	const cmd = "register"
	fs := newFlagSet(cmd)
	var conn connFlags
	conn.register(fs, a.getenv)
	id := fs.String("id", "", "")
	address := fs.String("address", localAddress(), "")
	port := fs.Int("port", 0, "")
	sslPort := fs.Int("ssl-port", 0, "")
	uriSpec := fs.String("uri-spec", "", "")
	payload := fs.String("payload", "", "")
	class := fs.String("payload-class", "", "")
	p, status := a.parseOrHelp(cmd, fs, args)
	if status >= 0 {
		return status
	}
	if msg := serviceCommandProblem(p); msg != "" {
		a.usageError(cmd, msg)
		return exitUsage
	}
	inst := discovery.Instance[json.RawMessage]{Name: p.args[1], ID: *id, Address: *address, Port: *port, SSLPort: *sslPort}
	if *uriSpec != "" {
		spec, err := discovery.ParseURISpec(*uriSpec)
		if err != nil {
			a.usageError(cmd, fmt.Sprintf("--uri-spec: %v", err))
			return exitUsage
		}
		inst.URISpec = spec
	}
	if *payload != "" {
		if !json.Valid([]byte(*payload)) {
			a.usageError(cmd, fmt.Sprintf("--payload %q is not JSON", *payload))
			return exitUsage
		}
		inst.Payload = json.RawMessage(*payload)
	}
	client, err := conn.newClient(a.getenv, a.stdin, "")
	if err != nil {
		a.usageError(cmd, err.Error())
		return exitUsage
	}
	var opts []discovery.Option
	if *class != "" {
		opts = append(opts, discovery.WithPayloadClass(*class))
	}
	d, err := discovery.New[json.RawMessage](client, p.args[0], opts...)
	if err != nil {
		a.usageError(cmd, err.Error())
		return exitUsage
	}
	command, err := holdrun.Lookup(p.command)
	if err != nil {
		return a.fail(cmd, lookupStatus(err), "%v", err)
	}
	sigs, ignoring, restore := catchSignals()
	defer restore()
	command.DefaultSignals = ignoring
	defer closeWithin(client, 2*time.Second)
	if sig, err := connect(&conn, client, sigs); sig != nil || err != nil {
		if sig != nil {
			return a.fail(cmd, signalStatus(sig), "%v while connecting", sig)
		}
		return a.fail(cmd, exitFailed, "%v", err)
	}
	if err := d.Start(context.Background()); err != nil {
		return a.fail(cmd, exitFailed, "%v", err)
	}
	defer d.Close()
	ctx, cancel := context.WithTimeout(context.Background(), conn.connectTimeout)
	inst, err = d.Register(ctx, inst)
	cancel()
	if err != nil {
		return a.fail(cmd, exitFailed, "%v", err)
	}
	command.Env = serviceEnv(conn.holdAt(p.args[0]), p.args[0]+"/"+inst.Name+"/"+inst.ID, inst.ID)
	res, err := supervise.Run(command, supervise.Watch{Signals: sigs, Grace: func() time.Duration { return leftoverGrace }})
	if err != nil {
		return a.fail(cmd, lookupStatus(err), "%v", err)
	}
	if res.Leftovers {
		fmt.Fprintf(a.stderr, "gocurator %s: the command exited and left processes in its group: stopped them\n", cmd)
	}
	return res.Status.ExitCode()
}

// serviceCommandProblem checks the shape of a register command line:
// BASEPATH, NAME, "--", a command.
func serviceCommandProblem(p parsed) string {
	switch {
	case len(p.args) != 2:
		return fmt.Sprintf("want BASEPATH and NAME before --, got %q", p.args)
	case !p.dashes:
		return "missing -- before the command"
	case len(p.command) == 0:
		return "no command after --"
	}
	if msg := pathProblem(p.args[0]); msg != "" {
		return msg
	}
	return nameProblem(p.args[1])
}

// nameProblem checks a service name: one node name.
func nameProblem(name string) string {
	if name == "" || strings.Contains(name, "/") || pathProblem("/"+name) != "" {
		return fmt.Sprintf("bad service name %q: want a node name (no /, not . or ..)", name)
	}
	return ""
}

// serviceEnv is the environment of a registered command: the connection's
// variables as a lock's command gets them (and never the digest), without
// a lock's, and the instance's.
func serviceEnv(h holdrun.Hold, path, id string) []string {
	var env []string
	for _, kv := range h.Env(os.Environ()) {
		name, _, _ := strings.Cut(kv, "=")
		switch name {
		case holdrun.EnvPath, holdrun.EnvNode, holdrun.EnvSession, holdrun.EnvToken:
			continue
		}
		env = append(env, kv)
	}
	return append(env, envServicePath+"="+path, envServiceID+"="+id)
}

// localAddress returns this host's first address that is neither loopback
// nor link-local, as Curator's ServiceInstanceBuilder picks its default
// address; "" if it has none.
func localAddress() string {
	addrs, err := net.InterfaceAddrs()
	if err != nil {
		return ""
	}
	for _, a := range addrs {
		if ip, ok := a.(*net.IPNet); ok && !ip.IP.IsLoopback() && !ip.IP.IsLinkLocalUnicast() && !ip.IP.IsLinkLocalMulticast() {
			return ip.IP.String()
		}
	}
	return ""
}
