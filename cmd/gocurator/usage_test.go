package main

import (
	"bytes"
	"net"
	"strings"
	"sync/atomic"
	"testing"
)

// listener is a TCP listener that counts connections: a ZooKeeper that
// proves nobody called.
func listener(t *testing.T) (addr string, calls *atomic.Int32) {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	calls = new(atomic.Int32)
	done := make(chan struct{})
	go func() {
		defer close(done)
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			calls.Add(1)
			c.Close()
		}
	}()
	t.Cleanup(func() {
		ln.Close()
		<-done
	})
	return ln.Addr().String(), calls
}

// runApp runs the command line in this process with env as its whole
// environment.
func runApp(args []string, env map[string]string) (stdout, stderr string, status int) {
	var out, errOut bytes.Buffer
	a := &app{stdout: &out, stderr: &errOut, getenv: func(k string) string { return env[k] }}
	status = a.run(args)
	return out.String(), errOut.String(), status
}

// Bad usage gives one line on standard error and exit status 2, and sends
// nothing to ZooKeeper.
func TestBadUsage(t *testing.T) {
	addr, calls := listener(t)
	env := map[string]string{"ZOOKEEPER_CONNECT": addr}
	with := func(k, v string) map[string]string {
		e := map[string]string{"ZOOKEEPER_CONNECT": addr, k: v}
		return e
	}
	cases := []struct {
		args []string
		env  map[string]string
		want string // in the message
	}{
		{nil, env, "no command given"},
		{[]string{"unlock"}, env, "no such command"},
		{[]string{"lock", "/jobs/a", "true"}, env, "missing --"},
		{[]string{"lock", "--", "true"}, env, "no path"},
		{[]string{"lock", "/jobs/a", "--"}, env, "no command after --"},
		{[]string{"lock", "/jobs/a", "/jobs/b", "--", "true"}, env, "want one path"},
		{[]string{"lock", "jobs/a", "--", "true"}, env, "bad path"},
		{[]string{"lock", "/jobs//a", "--", "true"}, env, "bad path"},
		{[]string{"lock", "/jobs/a/", "--", "true"}, env, "bad path"},
		{[]string{"lock", "/", "--", "true"}, env, "bad path"},
		{[]string{"lock", "/jobs/../a", "--", "true"}, env, "bad path"},
		{[]string{"lock", "--shared", "-1", "/jobs/a", "--", "true"}, env, "--shared"},
		{[]string{"lock", "--shared", "2", "--read", "/jobs/a", "--", "true"}, env, "cannot be combined"},
		{[]string{"lock", "--read", "--write", "/jobs/a", "--", "true"}, env, "exclude each other"},
		{[]string{"lock", "--timeout", "-1s", "/jobs/a", "--", "true"}, env, "--timeout"},
		{[]string{"lock", "--timeout", "soon", "/jobs/a", "--", "true"}, env, "invalid value"},
		{[]string{"lock", "--timeout", "never", "/jobs/a", "--", "true"}, env, "or forever"},
		{[]string{"elect", "--timeout", "0", "/jobs/a", "--", "true"}, env, "cannot be tried once"},
		{[]string{"elect", "--timeout", "-1s", "/jobs/a", "--", "true"}, env, "--timeout"},
		{[]string{"lock", "--no-such-flag", "/jobs/a", "--", "true"}, env, "not defined"},
		{[]string{"lock", "--connect", "host:99999", "/jobs/a", "--", "true"}, env, "host:port"},
		{[]string{"lock", "--connect", "", "/jobs/a", "--", "true"}, env, "no server"},
		{[]string{"lock", "--connect", addr + "/app/", "/jobs/a", "--", "true"}, env, "chroot"},
		{[]string{"lock", "/jobs/a", "--", "true"}, with("ZOOKEEPER_CONNECT", "a:b:c"), "host:port"},
		{[]string{"lock", "--namespace", "/app", "/jobs/a", "--", "true"}, env, "namespace"},
		{[]string{"lock", "/jobs/a", "--", "true"}, map[string]string{"ZOOKEEPER_CONNECT": addr, "GOCURATOR_NAMESPACE": "a//b"}, "empty node name"},
		{[]string{"lock", "/jobs/a", "--", "true"}, map[string]string{"ZOOKEEPER_CONNECT": addr, "GOCURATOR_SESSION_TIMEOUT": "soon"}, "GOCURATOR_SESSION_TIMEOUT"},
		{[]string{"lock", "--session-timeout", "0s", "/jobs/a", "--", "true"}, env, "--session-timeout"},
		{[]string{"lock", "/jobs/a", "--", "true"}, map[string]string{"ZOOKEEPER_CONNECT": addr, "GOCURATOR_DIGEST": "no-colon"}, "user:password"},
		{[]string{"elect", "/jobs/a", "true"}, env, "missing --"},
		{[]string{"elect", "--requeue", "--", "true"}, env, "no path"},
		{[]string{"elect", "/a b/", "--", "true"}, env, "bad path"},
		{[]string{"leader"}, env, "no path"},
		{[]string{"leader", "/e", "/f"}, env, "want one path"},
		{[]string{"leader", "/e", "--", "true"}, env, "want one path"},
		{[]string{"leader", "e"}, env, "bad path"},
		{[]string{"holders", "--shared", "-2", "/l"}, env, "--shared"},
		{[]string{"holders", "/l", "--connect", "h:0"}, env, "host:port"},
		{[]string{"help", "unlock"}, env, "no such command"},
	}
	for _, tc := range cases {
		stdout, stderr, status := runApp(tc.args, tc.env)
		if status != exitUsage || stdout != "" {
			t.Errorf("%q: status %d, stdout %q; want 2 and nothing", tc.args, status, stdout)
		}
		if strings.Count(stderr, "\n") != 1 || !strings.HasSuffix(stderr, "\n") || !strings.Contains(stderr, tc.want) {
			t.Errorf("%q: stderr %q; want one line mentioning %q", tc.args, stderr, tc.want)
		}
	}
	if n := calls.Load(); n != 0 {
		t.Fatalf("bad usage connected to ZooKeeper %d times", n)
	}
}

// A command that does not exist or cannot run is found out before the
// lock is taken: 127 and 126, as a shell says, and nothing is sent.
func TestCommandNotFoundIsSaidBeforeLocking(t *testing.T) {
	addr, calls := listener(t)
	env := map[string]string{"ZOOKEEPER_CONNECT": addr}
	for _, tc := range []struct {
		args   []string
		status int
	}{
		{[]string{"lock", "/a", "--", "no-such-command-anywhere"}, exitNotFound},
		{[]string{"lock", "/a", "--", "/no/such/command"}, exitNotFound},
		{[]string{"elect", "/a", "--", "no-such-command-anywhere"}, exitNotFound},
		{[]string{"lock", "/a", "--", t.TempDir()}, exitCannotRun}, // a directory
	} {
		_, stderr, status := runApp(tc.args, env)
		if status != tc.status || strings.Count(stderr, "\n") != 1 {
			t.Errorf("%q: status %d, stderr %q; want %d and one line", tc.args, status, stderr, tc.status)
		}
	}
	if n := calls.Load(); n != 0 {
		t.Fatalf("connected to ZooKeeper %d times", n)
	}
}

// Every command has a --help with examples, on standard output, exit 0.
func TestHelp(t *testing.T) {
	for _, cmd := range []string{"lock", "elect", "leader", "holders"} {
		for _, args := range [][]string{{cmd, "--help"}, {cmd, "-h"}, {"help", cmd}, {cmd, "/p", "--help", "--", "true"}} {
			stdout, stderr, status := runApp(args, nil)
			if status != exitOK || stderr != "" || !strings.HasPrefix(stdout, "Usage: gocurator "+cmd) || !strings.Contains(stdout, "Examples:") {
				t.Errorf("%q: status %d, stderr %q, stdout starting %.40q", args, status, stderr, stdout)
			}
		}
	}
	for _, args := range [][]string{{"--help"}, {"help"}, {"-h"}} {
		stdout, _, status := runApp(args, nil)
		if status != exitOK || !strings.Contains(stdout, "gocurator lock") || !strings.Contains(stdout, "Examples:") {
			t.Errorf("%q: status %d, stdout starting %.40q", args, status, stdout)
		}
	}
}
