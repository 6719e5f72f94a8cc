// Command demo starts a throwaway ZooKeeper on a loopback port and shows
// gocurator at work: connection states, a few operations, several
// workers, each with its own session, passing one lock around, a leader
// failover, config publish/subscribe with caches, then a group and service
// discovery.
//
//	go run ./cmd/demo            (scripts/demo installs ZooKeeper first)
package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"strings"
	"sync"
	"time"

	"github.com/gocurator/curator/framework"
	"github.com/gocurator/curator/listener"
	"github.com/gocurator/curator/recipes/cache"
	"github.com/gocurator/curator/recipes/leader"
	"github.com/gocurator/curator/recipes/locks"
	"github.com/gocurator/curator/retry"
	"github.com/gocurator/curator/zkharness"
)

func main() {
	workers := flag.Int("workers", 4, "lock workers, each with its own session")
	rounds := flag.Int("rounds", 2, "times each worker takes the lock")
	flag.Parse()
	if err := run(*workers, *rounds); err != nil {
		fmt.Fprintln(os.Stderr, "demo:", err)
		os.Exit(1)
	}
}

func run(workers, rounds int) error {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()

	fmt.Println("starting a throwaway ZooKeeper on 127.0.0.1 ...")
	srv, err := zkharness.NewServer()
	if err != nil {
		return err
	}
	defer srv.Close()
	fmt.Println("ZooKeeper is up at", srv.ConnectString())

	// 1. Connection states.
	hooks := newTally()
	defer hooks.print() // after every client has closed, each delivering its last events first
	at := servers{connect: srv.ConnectString(), hooks: hooks}
	client, err := at.newClient()
	if err != nil {
		return err
	}
	defer client.Close()
	states := make(chan listener.ConnectionState, 16)
	client.AddConnectionStateListener(func(s listener.ConnectionState) {
		fmt.Println("  [connection]", s)
		select {
		case states <- s:
		default: // nobody waits any more
		}
	})
	if err := client.Start(context.Background()); err != nil {
		return err
	}
	if err := client.BlockUntilConnected(ctx); err != nil {
		return err
	}
	waitState(ctx, states, listener.Connected)
	fmt.Printf("session %#x, timeout %v\n", client.SessionID(), client.SessionTimeout())

	// 2. A few operations.
	fmt.Println("\n== operations (namespace \"demo\") ==")
	p, err := client.Create(ctx, "/config/db", []byte("postgres://db:5432"), framework.WithContainerParents())
	if err != nil {
		return err
	}
	data, stat, _ := client.Get(ctx, p)
	fmt.Printf("created %s = %q (version %d)\n", p, data, stat.Version)
	w, err := client.Create(ctx, "/workers/w-", nil, framework.WithMode(framework.EphemeralSequential),
		framework.WithProtection(), framework.WithContainerParents())
	if err != nil {
		return err
	}
	fmt.Println("protected ephemeral-sequential node:", w)
	if _, err := client.Set(ctx, p, []byte("postgres://db2:5432"), 0); err != nil {
		return err
	}
	_, err = client.Set(ctx, p, []byte("stale"), 0)
	fmt.Println("set with a stale version:", err)

	fmt.Println("\n== the server restarts: Suspended, then Reconnected on the same session ==")
	srv.Stop()
	waitState(ctx, states, listener.Suspended)
	if err := srv.Restart(); err != nil {
		return err
	}
	waitState(ctx, states, listener.Reconnected)
	fmt.Printf("session %#x\n", client.SessionID())

	// 3. The lock demo.
	fmt.Printf("\n== %d workers, each with its own session, pass /locks/demo around ==\n", workers)
	if err := lockDemo(ctx, at, workers, rounds); err != nil {
		return err
	}

	// 4. A leader failover.
	fmt.Println("\n== three candidates elect a leader at /elections/demo; the leader's session ends ==")
	if err := failoverDemo(ctx, at); err != nil {
		return err
	}

	// 5. Config publish/subscribe.
	fmt.Println("\n== a publisher updates /config; three subscribers' caches follow ==")
	if err := configDemo(ctx, client, at); err != nil {
		return err
	}

	// 6. Membership: a group, service discovery (membership.go).
	fmt.Println("\n== membership: a group, and services that find each other ==")
	if err := membershipDemo(ctx, client, at, os.Getenv("GOCURATOR_BIN")); err != nil {
		return err
	}

	// 7. The command line (issue 21; cli.go): only when scripts/demo built it.
	return cliDemo(ctx, client, srv.ConnectString(), os.Getenv("GOCURATOR_BIN"))
}

// configDemo runs three subscribers, each a cache of /config on a session
// of its own, while the publisher (client) creates, updates and deletes.
func configDemo(ctx context.Context, publisher *framework.Client, at servers) error {
	var print sync.Mutex
	seen := make(chan struct{}, 64)
	for i := range 3 {
		c, err := at.newClient()
		if err != nil {
			return err
		}
		defer c.Close()
		if err := c.Start(context.Background()); err != nil {
			return err
		}
		sub, err := cache.New(c, "/config")
		if err != nil {
			return err
		}
		sub.AddListener(func(ev cache.Event) {
			if ev.Path != "/config/feature" {
				return
			}
			print.Lock()
			if ev.Type == cache.Deleted {
				fmt.Printf("  subscriber %d: %-7v %s\n", i, ev.Type, ev.Path)
			} else {
				fmt.Printf("  subscriber %d: %-7v %s = %q\n", i, ev.Type, ev.Path, ev.Node.Data)
			}
			print.Unlock()
			seen <- struct{}{}
		})
		if err := sub.Start(context.Background()); err != nil {
			return err
		}
		defer sub.Close()
		<-sub.Initialized()
	}
	await := func() error { // every subscriber saw the change
		for range 3 {
			select {
			case <-seen:
			case <-ctx.Done():
				return ctx.Err()
			}
		}
		return nil
	}
	steps := []struct {
		what string
		do   func() error
	}{
		{`create /config/feature = "off"`, func() error {
			_, err := publisher.Create(ctx, "/config/feature", []byte("off"))
			return err
		}},
		{`set /config/feature = "on"`, func() error {
			_, err := publisher.Set(ctx, "/config/feature", []byte("on"), -1)
			return err
		}},
		{`delete /config/feature`, func() error { return publisher.Delete(ctx, "/config/feature") }},
	}
	for _, s := range steps {
		fmt.Println("publisher:", s.what)
		if err := s.do(); err != nil {
			return err
		}
		if err := await(); err != nil {
			return err
		}
	}
	fmt.Println("every subscriber followed; done.")
	return nil
}

func lockDemo(ctx context.Context, at servers, workers, rounds int) error {
	var wg sync.WaitGroup
	var print sync.Mutex
	errs := make(chan error, workers)
	clients := make([]*framework.Client, workers)
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
	for i, c := range clients {
		m, err := locks.NewMutex(c, "/locks/demo")
		if err != nil {
			return err
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			for round := range rounds {
				h, err := m.Acquire(ctx)
				if err != nil {
					errs <- err
					return
				}
				token, _ := h.Token(ctx)
				queue, _ := m.Participants(ctx)
				print.Lock()
				fmt.Printf("worker %d has the lock (round %d, fencing token %d); queue:\n", i, round+1, token)
				for n, q := range queue {
					mark := "  waiting"
					if q == h.Path() {
						mark = "  HOLDER "
					} else if n == 0 {
						mark = "  leaving"
					}
					fmt.Printf("%s %s\n", mark, short(q))
				}
				print.Unlock()
				time.Sleep(50 * time.Millisecond) // the critical section
				if err := h.Release(ctx); err != nil {
					errs <- err
					return
				}
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		return err
	}
	fmt.Println("every worker released; done.")
	return nil
}

// failoverDemo runs three selectors, expires the leader's session on the
// server, and shows the next candidate take over once the old term ended.
func failoverDemo(ctx context.Context, at servers) error {
	type term struct {
		id  string
		l   *leader.Leadership
		sel *leader.Selector
	}
	terms := make(chan term, 3)
	clients := make(map[string]*framework.Client)
	for _, id := range []string{"alpha", "bravo", "charlie"} {
		c, err := at.newClient()
		if err != nil {
			return err
		}
		defer c.Close()
		if err := c.Start(context.Background()); err != nil {
			return err
		}
		clients[id] = c
		var sel *leader.Selector
		sel, err = leader.NewSelector(c, "/elections/demo", func(ctx context.Context, l *leader.Leadership) error {
			token, _ := l.Token(ctx)
			fmt.Printf("%s leads (node %s, fencing token %d)\n", id, short(l.Node()), token)
			terms <- term{id, l, sel}
			<-ctx.Done() // lead until the term ends
			return nil
		}, leader.WithID(id))
		if err != nil {
			return err
		}
		if err := sel.Start(context.Background()); err != nil {
			return err
		}
		defer sel.Close()
		if err := waitJoined(ctx, sel, len(clients)); err != nil {
			return err
		}
	}
	first := <-terms
	queue, err := first.sel.Participants(ctx)
	if err != nil {
		return err
	}
	for _, p := range queue {
		fmt.Printf("  %-7s %s leader=%v\n", p.ID, short(p.Node), p.IsLeader)
	}
	fmt.Printf("expiring %s's session on the server ...\n", first.id)
	if err := clients[first.id].InjectSessionExpiration(ctx); err != nil {
		return err
	}
	select {
	case next := <-terms:
		select {
		case <-first.l.Done():
			fmt.Printf("%s's term had ended before: %v\n", first.id, first.l.Err())
		default:
			return fmt.Errorf("%s leads while %s's term goes on", next.id, first.id)
		}
		fmt.Printf("%s took over; done.\n", next.id)
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// waitJoined polls until the election has n participants.
func waitJoined(ctx context.Context, sel *leader.Selector, n int) error {
	for {
		ps, err := sel.Participants(ctx)
		if err != nil || len(ps) >= n {
			return err
		}
		select {
		case <-time.After(10 * time.Millisecond):
		case <-ctx.Done():
			return ctx.Err()
		}
	}
}

// short keeps a lock node's name readable: the uuid's first block.
func short(path string) string {
	_, name := framework.SplitPath(path)
	if id := framework.ProtectedID(name); id != "" {
		return strings.Replace(name, id, id[:8]+"…", 1)
	}
	return name
}

// servers is where the demo's clients connect, and the hook they report
// to.
type servers struct {
	connect string
	hooks   *tally
}

func (at servers) newClient() (*framework.Client, error) {
	return framework.New(at.connect,
		framework.WithHooks(at.hooks),
		framework.WithNamespace("demo"),
		framework.WithSessionTimeout(10*time.Second),
		framework.WithRetryPolicy(retry.ExponentialBackoffRetry(50*time.Millisecond, 10)))
}

// waitState waits until the listener has printed want.
func waitState(ctx context.Context, states <-chan listener.ConnectionState, want listener.ConnectionState) {
	for {
		select {
		case s := <-states:
			if s == want {
				return
			}
		case <-ctx.Done():
			return
		}
	}
}
