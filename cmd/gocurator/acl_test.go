package main

import (
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/gocurator/curator/framework"
	"github.com/gocurator/curator/recipes/locks"
	"github.com/gocurator/curator/recipestest"
)

// The digest identity the ACL tests run gocurator as.
const (
	aclUser     = "ops"
	aclPassword = "s3cret"
)

// aclBoard is a board whose namespace holds /secure, a persistent node
// only the ops identity may change (anyone may read it): the parent the
// documentation says to make once.
func aclBoard(t *testing.T) (*board, *framework.Client) {
	b := newBoard(t)
	owner := recipestest.NewClient(t, server.ConnectString(), framework.WithNamespace(b.ns), framework.WithDigestAuth(aclUser, aclPassword))
	acl := append(framework.DigestACL(framework.PermAll, aclUser, aclPassword), framework.WorldACL(framework.PermRead)...)
	if _, err := owner.Create(b.ctx, "/secure", nil, framework.WithACL(acl)); err != nil {
		t.Fatal(err)
	}
	return b, owner
}

// creatorACL is the ACL gocurator gives its nodes with credentials and no
// --acl: the identity may do everything, anyone may read.
func wantCreatorACL() []framework.ACL {
	return append(framework.DigestACL(framework.PermAll, aclUser, aclPassword), framework.WorldACL(framework.PermRead)...)
}

// checkACL fails the test unless every path has the ACL want, as c reads
// it (a digest's hash shows only to a client with ADMIN on the node).
func checkACL(t *testing.T, b *board, c *framework.Client, want []framework.ACL, paths ...string) {
	t.Helper()
	for _, p := range paths {
		acl, _, err := c.GetACL(b.ctx, p)
		if err != nil || !slices.Equal(acl, want) {
			t.Errorf("ACL of %s: %v (%v), want %v", p, acl, err, want)
		}
	}
}

// With credentials, gocurator lock --shared gives every node it creates
// (the semaphore's directory, its leases and locks directories, the lease,
// a waiter's node in locks) to its identity: a client without credentials
// can read them but not delete the holder's lease or the waiter's node,
// write to them, or add nodes; both commands run in turn to their ends
// (exit 0, not 122).
func TestSharedLockKeepsAnonymousClientsOut(t *testing.T) {
	b, owner := aclBoard(t)
	anon := b.client()
	digest := "GOCURATOR_DIGEST=" + aclUser + ":" + aclPassword
	holder := b.start("S", b.env(append(b.helper("gate", "S", "slot"), digest)...), "lock", "--shared", "1", "--id", "S", "/secure/sem", "--", self)
	lease := field(b.next("IN S", holder).line, "node")
	if !strings.HasPrefix(lease, "/secure/sem/leases/") {
		t.Fatalf("lease node %q", lease)
	}
	waiter := b.start("W", b.env(append(b.helper("gate", "W", "slot"), digest)...), "lock", "--shared", "1", "--id", "W", "/secure/sem", "--", self)
	// The waiter waits holding the semaphore's lock, with its lease made:
	// one node in locks, two in leases. Its first, quick try made a lock
	// node, and a lease in the transaction that deleted that node, and
	// gave the lease back, the leases being out: so the leases are read
	// first, and a lock node seen after two leases is the one it waits
	// with.
	var waiting string
	recipestest.Eventually(t, "the waiter waiting, its lock node and its lease made", func() (bool, string) {
		leased, _, err := anon.Children(b.ctx, "/secure/sem/leases")
		if err != nil {
			return false, err.Error()
		}
		locked, _, err := anon.Children(b.ctx, "/secure/sem/locks")
		if err != nil {
			return false, err.Error()
		}
		if len(locked) != 1 || len(leased) != 2 {
			return false, fmt.Sprintf("locks %v, leases %v", locked, leased)
		}
		waiting = "/secure/sem/locks/" + locked[0]
		return true, ""
	})
	checkACL(t, b, owner, wantCreatorACL(), "/secure/sem", "/secure/sem/leases", "/secure/sem/locks", lease, waiting)
	for _, node := range []string{lease, waiting} {
		if err := anon.Delete(b.ctx, node); !errors.Is(err, framework.ErrNoAuth) {
			t.Errorf("an anonymous delete of %s: %v, want ErrNoAuth", node, err)
		}
		if _, err := anon.Set(b.ctx, node, locks.RevokeMessage, -1); !errors.Is(err, framework.ErrNoAuth) {
			t.Errorf("an anonymous write to %s: %v, want ErrNoAuth", node, err)
		}
	}
	for _, dir := range []string{"/secure/sem", "/secure/sem/leases", "/secure/sem/locks"} {
		if _, err := anon.Create(b.ctx, dir+"/x", nil); !errors.Is(err, framework.ErrNoAuth) {
			t.Errorf("an anonymous create in %s: %v, want ErrNoAuth", dir, err)
		}
	}
	holder.release()
	b.expectExit(holder, 0)
	b.next("IN W", waiter)
	waiter.release()
	b.expectExit(waiter, 0)
}

// With credentials, the holder's node of every lock kind and the leader's
// node of an election refuse a client without credentials: it cannot
// delete them, nor write into them (a fake revocation, or another id for
// holders and leader to print).
func TestHolderNodesKeepAnonymousClientsOut(t *testing.T) {
	for _, tc := range []struct {
		name, path string
		flags      []string
	}{
		{"mutex", "/secure/m", []string{"lock"}},
		{"read", "/secure/rw", []string{"lock", "--read"}},
		{"write", "/secure/rw2", []string{"lock", "--write"}},
		{"elect", "/secure/e", []string{"elect"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			b, owner := aclBoard(t)
			anon := b.client()
			env := b.env(append(b.helper("gate", "H", "slot"), "GOCURATOR_DIGEST="+aclUser+":"+aclPassword)...)
			p := b.start("H", env, append(tc.flags, "--id", "H", tc.path, "--", self)...)
			node := field(b.next("IN H", p).line, "node")
			checkACL(t, b, owner, wantCreatorACL(), tc.path, node)
			if _, err := anon.Set(b.ctx, node, locks.RevokeMessage, -1); !errors.Is(err, framework.ErrNoAuth) {
				t.Errorf("an anonymous write to the holder's node: %v, want ErrNoAuth", err)
			}
			if err := anon.Delete(b.ctx, node); !errors.Is(err, framework.ErrNoAuth) {
				t.Errorf("an anonymous delete of the holder's node: %v, want ErrNoAuth", err)
			}
			if tc.name == "elect" {
				if out, errOut, status := b.run(b.env(), "leader", tc.path); status != 0 || out != "H\n" {
					t.Errorf("leader printed %q (status %d, stderr %q), want H", out, status, errOut)
				}
			}
			p.release()
			b.expectExit(p, 0)
		})
	}
}

// --acl (or $GOCURATOR_ACL) chooses: open gives anyone everything even
// with credentials; creator-only keeps even reading to the identity; the
// creator modes without credentials, or an unknown mode, are bad usage
// before anything is sent.
func TestACLFlag(t *testing.T) {
	b, _ := aclBoard(t)
	anon := b.client()
	digest := "GOCURATOR_DIGEST=" + aclUser + ":" + aclPassword

	p := b.start("O", b.env(append(b.helper("gate", "O", "slot"), digest)...), "lock", "--acl", "open", "--id", "O", "/secure/open", "--", self)
	node := field(b.next("IN O", p).line, "node")
	checkACL(t, b, anon, framework.WorldACL(framework.PermAll), "/secure/open", node)
	p.release()
	b.expectExit(p, 0)

	p = b.start("P", b.env(append(b.helper("gate", "P", "slot"), digest, "GOCURATOR_ACL=creator-only")...), "lock", "--id", "P", "/secure/private", "--", self)
	b.next("IN P", p)
	if _, _, err := anon.Children(b.ctx, "/secure/private"); !errors.Is(err, framework.ErrNoAuth) {
		t.Errorf("an anonymous listing of a creator-only lock: %v, want ErrNoAuth", err)
	}
	p.release()
	b.expectExit(p, 0)

	for _, tc := range []struct {
		env  []string
		acl  string
		want string
	}{
		{nil, "creator", "needs credentials"},
		{nil, "creator-only", "needs credentials"},
		{[]string{digest}, "everyone", "want open, creator or creator-only"},
	} {
		_, errOut, status := b.run(b.env(tc.env...), "lock", "--acl", tc.acl, "/secure/x", "--", "true")
		if status != exitUsage || !strings.Contains(errOut, tc.want) {
			t.Errorf("--acl %s (env %q): status %d, stderr %q; want %d and %q", tc.acl, tc.env, status, errOut, exitUsage, tc.want)
		}
	}
}
