package locks_test

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sync"
	"testing"

	"github.com/gocurator/curator/framework"
	"github.com/gocurator/curator/recipes/locks"
	"github.com/gocurator/curator/recipestest"
)

// asPrincipal are the options of a client that authenticates as user and
// gives its nodes creatorACL.
func asPrincipal(ns, user, password string) []framework.Option {
	return []framework.Option{framework.WithNamespace(ns), framework.WithDigestAuth(user, password), framework.WithACLProvider(creatorACL{})}
}

// With digest ACLs on the lock's nodes, another principal, or a client
// without credentials, can list the lock but cannot delete the holder's
// node, write to it (Curator's revoke) or take the lock: its create in the
// lock's directory is refused at once with ErrNoAuth, and leaves nothing
// behind. A second session of the holder's principal contends as usual.
func TestLockACLKeepsOtherPrincipalsOut(t *testing.T) {
	nsName := recipestest.Namespace(t)
	alice := newClientAt(t, server.ConnectString(), asPrincipal(nsName, "alice", "secret")...)
	ctx := ctxT(t)
	m, _ := locks.NewMutex(alice, "/locks/jobs")
	revoked := make(chan struct{}, 1)
	m.MakeRevocable(func() {
		select {
		case revoked <- struct{}{}:
		default:
		}
	})
	h, err := m.Acquire(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer h.Release(ctx)

	want := append(framework.DigestACL(framework.PermAll, "alice", "secret"), framework.WorldACL(framework.PermRead)...)
	for _, p := range []string{"/locks", "/locks/jobs", h.Path()} {
		acl, _, err := alice.GetACL(ctx, p)
		if err != nil || !slices.Equal(acl, want) {
			t.Fatalf("ACL of %s: %v (%v), want %v", p, acl, err, want)
		}
	}
	_, holder := framework.SplitPath(h.Path())

	for name, opts := range map[string][]framework.Option{
		"another principal": {framework.WithDigestAuth("mallory", "guess")},
		"no credentials":    nil,
	} {
		t.Run(name, func(t *testing.T) {
			other := newClientAt(t, server.ConnectString(), append(opts, framework.WithNamespace(nsName))...)
			if kids := children(t, other, "/locks/jobs"); !slices.Equal(kids, []string{holder}) {
				t.Fatalf("the lock's children seen by %s: %v, want the holder's %s", name, kids, holder)
			}
			// Reading the ACL shows the principal's name but not its
			// password's hash (ZooKeeper keeps that to ADMIN).
			acl, _, err := other.GetACL(ctx, h.Path())
			if err != nil || len(acl) != 2 || acl[0].Scheme != "digest" || acl[0].ID != "alice:x" {
				t.Errorf("the holder's ACL seen by %s: %v (%v), want the digest redacted to alice:x", name, acl, err)
			}
			if err := other.Delete(ctx, h.Path()); !errors.Is(err, framework.ErrNoAuth) {
				t.Errorf("deleting the holder's node: %v, want ErrNoAuth", err)
			}
			if err := locks.Revoke(ctx, other, h.Path()); !errors.Is(err, framework.ErrNoAuth) {
				t.Errorf("revoking (writing to the holder's node): %v, want ErrNoAuth", err)
			}
			om, _ := locks.NewMutex(other, "/locks/jobs")
			if _, err := om.Acquire(ctx); !errors.Is(err, framework.ErrNoAuth) || ctx.Err() != nil {
				t.Errorf("acquiring: %v, want ErrNoAuth before the context ends", err)
			}
			if _, err := om.TryAcquire(ctx); !errors.Is(err, framework.ErrNoAuth) {
				t.Errorf("trying: %v, want ErrNoAuth", err)
			}
			// Nothing left behind, nothing changed.
			if kids := children(t, other, "/locks/jobs"); !slices.Equal(kids, []string{holder}) {
				t.Errorf("the lock's children after the refusals: %v, want the holder's %s only", kids, holder)
			}
			data, st, err := alice.Get(ctx, h.Path())
			if err != nil || st.Version != 0 || slices.Equal(data, locks.RevokeMessage) {
				t.Errorf("the holder's node after the refusals: %q, version %v (%v), want it unwritten", data, st, err)
			}
			if err := h.Err(); err != nil {
				t.Errorf("the hold after the refusals: %v", err)
			}
		})
	}

	// The holder's principal, from another session, waits its turn, may
	// revoke the hold, and gets the lock once it is released.
	alice2 := newClientAt(t, server.ConnectString(), asPrincipal(nsName, "alice", "secret")...)
	m2, _ := locks.NewMutex(alice2, "/locks/jobs")
	if _, err := m2.TryAcquire(ctx); !errors.Is(err, locks.ErrBusy) {
		t.Fatalf("the same principal's try while held: %v, want ErrBusy", err)
	}
	got := make(chan error, 1)
	go func() {
		h2, err := m2.Acquire(ctx)
		if err == nil {
			err = h2.Release(ctx)
		}
		got <- err
	}()
	waitParticipants(t, m, 2)
	if err := locks.Revoke(ctx, alice2, h.Path()); err != nil {
		t.Fatalf("the same principal's revoke: %v", err)
	}
	select {
	case <-revoked:
	case <-ctx.Done():
		t.Fatal("the holder was not asked to release")
	}
	if err := h.Release(ctx); err != nil {
		t.Fatal(err)
	}
	if err := <-got; err != nil {
		t.Fatalf("the same principal's acquire after the release: %v", err)
	}
}

// The lock's directory is a container: once its last node goes the server
// deletes it, and the next client to lock makes it again with its own ACL.
// A persistent parent with the principal's ACL, made once, keeps that
// client from being another principal; without one, another principal can
// make the directory its own and lock everyone else out.
func TestLockACLNeedsAPersistentParent(t *testing.T) {
	for _, persistent := range []bool{false, true} {
		name := "container parents"
		if persistent {
			name = "persistent parent"
		}
		t.Run(name, func(t *testing.T) {
			nsName := recipestest.Namespace(t)
			alice := newClientAt(t, server.ConnectString(), asPrincipal(nsName, "alice", "secret")...)
			mallory := newClientAt(t, server.ConnectString(), asPrincipal(nsName, "mallory", "guess")...)
			observer := newClientAt(t, server.ConnectString()) // outside the namespace
			ctx := ctxT(t)
			if persistent {
				if _, err := alice.Create(ctx, "/locks", []byte{}); err != nil {
					t.Fatal(err)
				}
			}
			m, _ := locks.NewMutex(alice, "/locks/jobs")
			h, err := m.Acquire(ctx)
			if err != nil {
				t.Fatal(err)
			}
			if err := h.Release(ctx); err != nil {
				t.Fatal(err)
			}
			gone := "/" + nsName // the containers go up to the namespace's root
			if persistent {
				gone += "/locks/jobs"
			}
			waitGone(t, observer, gone)

			mm, _ := locks.NewMutex(mallory, "/locks/jobs")
			hm, err := mm.Acquire(ctx)
			if persistent {
				if !errors.Is(err, framework.ErrNoAuth) {
					t.Fatalf("another principal's acquire under the persistent parent: %v, want ErrNoAuth", err)
				}
				if kids := children(t, alice, "/locks"); len(kids) != 0 {
					t.Fatalf("the refused acquire left %v", kids)
				}
				h, err := m.Acquire(ctx)
				if err != nil {
					t.Fatalf("the principal's acquire after the refusal: %v", err)
				}
				h.Release(ctx)
				return
			}
			if err != nil {
				t.Fatalf("another principal's acquire once the containers went: %v", err)
			}
			defer hm.Release(ctx)
			if _, err := m.TryAcquire(ctx); !errors.Is(err, framework.ErrNoAuth) {
				t.Fatalf("the first principal's try on a directory another principal made: %v, want ErrNoAuth", err)
			}
		})
	}
}

// Every lock kind refuses another principal the same way: its first create
// (a semaphore's lease goes in a transaction) is refused with ErrNoAuth,
// before the context ends, and leaves nothing behind.
func TestLockACLCoversEveryLockKind(t *testing.T) {
	nsName := recipestest.Namespace(t)
	alice := newClientAt(t, server.ConnectString(), asPrincipal(nsName, "alice", "secret")...)
	mallory := newClientAt(t, server.ConnectString(), framework.WithNamespace(nsName), framework.WithDigestAuth("mallory", "guess"))
	ctx := ctxT(t)

	type acquirer interface {
		Acquire(context.Context) (*locks.Hold, error)
		Participants(context.Context) ([]string, error)
	}
	kinds := map[string]func(*framework.Client) acquirer{
		"semaphore":       func(c *framework.Client) acquirer { s, _ := locks.NewSemaphore(c, "/sem", 2); return s },
		"read lock":       func(c *framework.Client) acquirer { rw, _ := locks.NewReadWriteLock(c, "/rw"); return rw.ReadLock() },
		"write lock":      func(c *framework.Client) acquirer { rw, _ := locks.NewReadWriteLock(c, "/rw2"); return rw.WriteLock() },
		"semaphore mutex": func(c *framework.Client) acquirer { m, _ := locks.NewSemaphoreMutex(c, "/smutex"); return m },
	}
	for name, kind := range kinds {
		t.Run(name, func(t *testing.T) {
			held := kind(alice)
			h, err := held.Acquire(ctx)
			if err != nil {
				t.Fatal(err)
			}
			defer h.Release(ctx)
			before, err := held.Participants(ctx)
			if err != nil {
				t.Fatal(err)
			}
			if _, err := kind(mallory).Acquire(ctx); !errors.Is(err, framework.ErrNoAuth) || ctx.Err() != nil {
				t.Fatalf("another principal's acquire: %v, want ErrNoAuth before the context ends", err)
			}
			if after, err := held.Participants(ctx); err != nil || !slices.Equal(after, before) {
				t.Fatalf("participants after the refusal: %v (%v), want %v", after, err, before)
			}
		})
	}
}

// Every node every lock kind creates carries the ACL of the client's
// ACLProvider: holders' and waiters' nodes, a semaphore's leases and locks
// directories and the waiter's node in locks, a downgraded read node, the
// container parents and the namespace's root.
func TestLockNodesCarryTheProvidersACL(t *testing.T) {
	nsName := recipestest.Namespace(t)
	opts := asPrincipal(nsName, "alice", "secret")
	holder := newClientAt(t, server.ConnectString(), opts...)
	waiter := newClientAt(t, server.ConnectString(), opts...)
	ctx := ctxT(t)
	wctx, cancel := context.WithCancel(ctx)
	var waiting sync.WaitGroup
	defer waiting.Wait()
	defer cancel()

	type acquirer interface {
		Acquire(context.Context) (*locks.Hold, error)
	}
	hold := func(l acquirer) {
		t.Helper()
		h, err := l.Acquire(ctx)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { h.Release(context.Background()) })
	}
	queue := func(l acquirer, p participants, n int) {
		t.Helper()
		waiting.Add(1)
		go func() {
			defer waiting.Done()
			if h, err := l.Acquire(wctx); err == nil {
				h.Release(context.Background())
			}
		}()
		waitParticipants(t, p, n)
	}

	m, _ := locks.NewMutex(holder, "/kinds/mutex")
	mw, _ := locks.NewMutex(waiter, "/kinds/mutex")
	hold(m)
	queue(mw, m, 2)

	sem, _ := locks.NewSemaphore(holder, "/kinds/sem", 1)
	semw, _ := locks.NewSemaphore(waiter, "/kinds/sem", 1)
	hold(sem)
	waiting.Add(1)
	go func() {
		defer waiting.Done()
		if h, err := semw.Acquire(wctx); err == nil {
			h.Release(context.Background())
		}
	}()
	recipestest.Eventually(t, "the semaphore's waiter in locks", func() (bool, string) {
		kids, _, err := holder.Children(ctx, "/kinds/sem/locks")
		return err == nil && len(kids) == 1, fmt.Sprint(kids, err)
	})

	rw, _ := locks.NewReadWriteLock(holder, "/kinds/rw")
	owner := locks.NewOwner()
	octx := locks.WithOwner(ctx, owner)
	wh, err := rw.WriteLock().Acquire(octx)
	if err != nil {
		t.Fatal(err)
	}
	rh, err := rw.ReadLock().Acquire(octx) // the downgrade: a read node on the write node's sequence
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { rh.Release(context.Background()); wh.Release(context.Background()) })
	rww, _ := locks.NewReadWriteLock(waiter, "/kinds/rw")
	queue(rww.WriteLock(), rw, 3)

	sm, _ := locks.NewSemaphoreMutex(holder, "/kinds/smutex")
	hold(sm)

	want := append(framework.DigestACL(framework.PermAll, "alice", "secret"), framework.WorldACL(framework.PermRead)...)
	checked := recipestest.CheckACLs(t, holder, "/", want)
	for dir, n := range map[string]int{"/kinds/mutex": 2, "/kinds/sem/leases": 2, "/kinds/sem/locks": 1, "/kinds/rw": 3, "/kinds/smutex/leases": 1} {
		in := 0
		for _, p := range checked {
			if parent, _ := framework.SplitPath(p); parent == dir {
				in++
			}
		}
		if in != n {
			t.Errorf("checked %d nodes in %s, want %d: %v", in, dir, n, checked)
		}
	}
}
