package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"runtime"
	"strings"
	"syscall"
	"time"

	"github.com/gocurator/curator/cmd/gocurator/internal/holdrun"
	"github.com/gocurator/curator/framework"
)

// The test binary is also the command the tests run under gocurator: with
// $GOCURATOR_TEST_HELPER set it runs one of these modes instead of the
// tests.
//
//   - gate: take a slot (below), print an IN line, and exit 0 when its
//     standard input ends: the test decides when the command ends.
//   - read: gate, with a shared slot: readers share, writers exclude them.
//   - hold: take a slot, print an IN line, and stay until killed.
//   - stubborn: hold, ignoring SIGTERM: only SIGKILL ends it.
//   - zkmark: the Java peer's occupancy check: an ephemeral node under
//     /occ, a listing, a VIOLATION line if another is there.
//   - run: print a RUN line and exit 0.
//   - stdin: print what standard input holds, quoted, on a STDIN line.
//   - status: print the lines of /proc/self/status (Linux) that hold
//     the signal masks, prefixed with STATUS, and exit 0.
//   - service: print a SERVICE line with the registered instance's id and
//     node, and exit 0 when its standard input ends.
//
// A slot is a file in $HELPER_SLOTS (a comma-separated list) locked with
// flock(2), exclusively (or shared, for read), without waiting. The kernel
// releases the lock only when every process holding the file open has
// died, so a command that finds no slot free has proof that an earlier
// command, or a process it left behind, still runs: it prints a VIOLATION
// line and exits 3.
const helperEnv = "GOCURATOR_TEST_HELPER"

// holdFor bounds how long a hold or stubborn helper stays, so that one a
// failed test leaves behind goes by itself.
const holdFor = 2 * time.Minute

func runHelper(mode string) int {
	id := os.Getenv("HELPER_ID")
	switch mode {
	case "run":
		fmt.Printf("RUN %s\n", id)
		return 0
	case "stdin":
		in, err := io.ReadAll(os.Stdin)
		if err != nil {
			fmt.Printf("VIOLATION %s %v\n", id, err)
			return 3
		}
		fmt.Printf("STDIN %q\n", in)
		return 0
	case "status":
		status, err := os.ReadFile("/proc/self/status")
		if err != nil {
			fmt.Printf("VIOLATION %s %v\n", id, err)
			return 3
		}
		for _, l := range strings.Split(string(status), "\n") {
			if strings.HasPrefix(l, "Sig") {
				fmt.Printf("STATUS %s\n", l)
			}
		}
		return 0
	case "service": // a registered command: say what it was told, stay until stdin ends
		fmt.Printf("SERVICE %s id=%s path=%s lockpath=%q\n", id, os.Getenv(envServiceID), os.Getenv(envServicePath), os.Getenv(holdrun.EnvPath))
		io.Copy(io.Discard, os.Stdin)
		return 0
	case "zkmark":
		if err := zkMark(id); err != nil {
			fmt.Printf("VIOLATION %s %v\n", id, err)
			return 3
		}
		return 0
	case "stubborn":
		signal.Ignore(syscall.SIGTERM)
	}
	slot, err := takeSlot(os.Getenv("HELPER_SLOTS"), mode == "read")
	if err != nil {
		fmt.Printf("VIOLATION %s %v\n", id, err)
		return 3
	}
	defer runtime.KeepAlive(slot) // its finalizer would close it, unlocking it
	fmt.Printf("IN %s node=%s token=%s session=%s path=%s pid=%d\n", id,
		os.Getenv(holdrun.EnvNode), os.Getenv(holdrun.EnvToken), os.Getenv(holdrun.EnvSession),
		os.Getenv(holdrun.EnvPath), os.Getpid())
	switch mode {
	case "gate", "read":
		io.Copy(io.Discard, os.Stdin)
	default:
		time.Sleep(holdFor)
	}
	return 0
}

// takeSlot locks the first free slot file and returns it open.
func takeSlot(slots string, shared bool) (*os.File, error) {
	how := syscall.LOCK_EX
	if shared {
		how = syscall.LOCK_SH
	}
	for _, path := range strings.Split(slots, ",") {
		f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE, 0o644)
		if err != nil {
			return nil, err
		}
		if err := syscall.Flock(int(f.Fd()), how|syscall.LOCK_NB); err == nil {
			return f, nil
		}
		f.Close()
	}
	return nil, errors.New("every slot is taken: another command still runs")
}

// zkMark is CuratorPeer's occupancy check, on the hold's own connection
// settings (TLS included).
func zkMark(id string) error {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	var opts []framework.Option
	if ns := os.Getenv(holdrun.EnvNamespace); ns != "" {
		opts = append(opts, framework.WithNamespace(ns))
	}
	if os.Getenv(holdrun.EnvTLS) == "true" {
		t := tlsFlags{on: true, ca: os.Getenv(holdrun.EnvTLSCA), cert: os.Getenv(holdrun.EnvTLSCert), key: os.Getenv(holdrun.EnvTLSKey)}
		cfg, err := t.config()
		if err != nil {
			return err
		}
		opts = append(opts, framework.WithTLS(cfg))
	}
	c, err := framework.New(os.Getenv(holdrun.EnvConnect), opts...)
	if err != nil {
		return err
	}
	defer c.Close()
	if err := c.Start(context.Background()); err != nil {
		return err
	}
	mine, err := c.Create(ctx, "/occ/w-", nil, framework.WithMode(framework.EphemeralSequential), framework.WithContainerParents())
	if err != nil {
		return err
	}
	inside, _, err := c.Children(ctx, "/occ")
	if err != nil {
		return err
	}
	if err := c.Delete(ctx, mine); err != nil {
		return err
	}
	if len(inside) > 1 {
		return fmt.Errorf("%s saw %v in /occ", id, inside)
	}
	return nil
}
