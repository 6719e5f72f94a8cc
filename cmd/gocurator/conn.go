package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"os"
	"strings"
	"time"

	"github.com/gocurator/curator/cmd/gocurator/internal/holdrun"
	"github.com/gocurator/curator/framework"
	"github.com/gocurator/curator/retry"
)

// The environment variables the connection settings come from; a flag
// overrides its variable.
const (
	envConnect        = "ZOOKEEPER_CONNECT"
	envNamespace      = "GOCURATOR_NAMESPACE"
	envSessionTimeout = "GOCURATOR_SESSION_TIMEOUT"
	// envDigest holds "user:password" for digest authentication. It is
	// read from the environment (or a file, envDigestFile), never from the
	// command line, where any user of the machine could read it.
	envDigest = "GOCURATOR_DIGEST"
)

// Connection defaults.
const (
	defaultConnect        = "127.0.0.1:2181"
	defaultSessionTimeout = 30 * time.Second
	defaultConnectTimeout = 15 * time.Second
)

// connFlags are the connection settings every subcommand takes.
type connFlags struct {
	connect        string
	namespace      string
	sessionTimeout time.Duration
	connectTimeout time.Duration
	verbose        bool
	acl            string // --acl's mode, "" for the default
	digestFile     string // --digest-file, "-" for standard input
	tls            tlsFlags
	envErr         error // a variable that does not parse
}

// register adds the connection flags to fs, with defaults from the
// environment.
func (c *connFlags) register(fs *flag.FlagSet, getenv func(string) string) {
	c.sessionTimeout = defaultSessionTimeout
	if v := getenv(envSessionTimeout); v != "" {
		d, err := time.ParseDuration(v)
		if err != nil {
			c.envErr = fmt.Errorf("$%s: %q is not a duration (such as 30s)", envSessionTimeout, v)
		}
		c.sessionTimeout = d
	}
	connect := getenv(envConnect)
	if connect == "" {
		connect = defaultConnect
	}
	fs.StringVar(&c.connect, "connect", connect, "")
	fs.StringVar(&c.namespace, "namespace", getenv(envNamespace), "")
	fs.DurationVar(&c.sessionTimeout, "session-timeout", c.sessionTimeout, "")
	fs.DurationVar(&c.connectTimeout, "connect-timeout", defaultConnectTimeout, "")
	fs.BoolVar(&c.verbose, "verbose", false, "")
	fs.StringVar(&c.acl, "acl", getenv(envACL), "")
	fs.StringVar(&c.digestFile, "digest-file", getenv(envDigestFile), "")
	c.tls.register(fs, getenv)
}

// newClient returns an unstarted client for the settings (nothing is sent
// before Start); id, if not empty, is the data of the nodes it creates.
// stdin is read for --digest-file -. Its errors are bad usage.
func (c *connFlags) newClient(getenv func(string) string, stdin io.Reader, id string) (*framework.Client, error) {
	switch {
	case c.envErr != nil:
		return nil, c.envErr
	case c.sessionTimeout <= 0:
		return nil, fmt.Errorf("--session-timeout must be above 0, not %v", c.sessionTimeout)
	case c.connectTimeout <= 0:
		return nil, fmt.Errorf("--connect-timeout must be above 0, not %v", c.connectTimeout)
	}
	opts := []framework.Option{
		framework.WithSessionTimeout(c.sessionTimeout),
		framework.WithConnectionTimeout(c.connectTimeout),
		framework.WithRetryPolicy(retry.BoundedExponentialBackoffRetry(100*time.Millisecond, 2*time.Second, 10)),
	}
	if c.namespace != "" {
		opts = append(opts, framework.WithNamespace(c.namespace))
	}
	cfg, err := c.tls.config()
	if err != nil {
		return nil, err
	}
	if cfg != nil {
		opts = append(opts, framework.WithTLS(cfg))
	}
	d, err := digestCredentials(getenv, c.digestFile, stdin)
	if err != nil {
		return nil, err
	}
	if d != "" {
		user, password, _ := strings.Cut(d, ":")
		opts = append(opts, framework.WithDigestAuth(user, password))
	}
	acl, err := aclProvider(c.acl, d != "")
	if err != nil {
		return nil, err
	}
	opts = append(opts, framework.WithACLProvider(acl))
	if id != "" {
		opts = append(opts, framework.WithDefaultData([]byte(id)))
	}
	if c.verbose {
		opts = append(opts, framework.WithLogger(slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: slog.LevelDebug}))))
	}
	client, err := framework.New(c.connect, opts...)
	if err != nil {
		return nil, errors.New(strings.TrimPrefix(err.Error(), framework.ErrInvalidArg.Error()+": "))
	}
	return client, nil
}

// holdAt returns the description of a hold of path taken through these
// settings, for the command run under it: where the path is and how to
// connect there.
func (c *connFlags) holdAt(path string) holdrun.Hold {
	h := holdrun.Hold{Path: path, Connect: c.connect, Namespace: c.namespace}
	c.tls.pass(&h)
	return h
}

// connectWithin starts client and waits until it is connected, for at
// most the connect timeout or until ctx ends.
func (c *connFlags) connectWithin(ctx context.Context, client *framework.Client) error {
	if err := client.Start(context.Background()); err != nil {
		return err
	}
	ctx, cancel := context.WithTimeout(ctx, c.connectTimeout)
	defer cancel()
	if err := client.BlockUntilConnected(ctx); err != nil {
		return fmt.Errorf("cannot connect to %s: %w", c.connect, err)
	}
	return nil
}

// connect is connectWithin that gives up at a terminating signal, which it
// returns.
func connect(conn *connFlags, client *framework.Client, sigs <-chan os.Signal) (os.Signal, error) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	done := make(chan error, 1)
	go func() { done <- conn.connectWithin(ctx, client) }()
	for {
		select {
		case err := <-done:
			return nil, err
		case s := <-sigs:
			if terminating(s) {
				cancel()
				<-done
				return s, nil
			}
		}
	}
}

// closeWithin closes client, waiting at most d: Close ends the session
// (its nodes go at once), but against a server that does not answer it
// can take seconds, and the session then ends on its own.
func closeWithin(client *framework.Client, d time.Duration) {
	done := make(chan struct{})
	go func() {
		client.Close()
		close(done)
	}()
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-done:
	case <-t.C:
	}
}

// defaultID is a participant's id unless --id says otherwise:
// "host:pid".
func defaultID() string {
	host, err := os.Hostname()
	if err != nil || host == "" {
		host = "unknown"
	}
	return fmt.Sprintf("%s:%d", host, os.Getpid())
}
