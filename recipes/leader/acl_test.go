package leader_test

import (
	"context"
	"testing"

	"github.com/gocurator/curator/framework"
	"github.com/gocurator/curator/recipes/leader"
	"github.com/gocurator/curator/recipestest"
)

// creatorACL gives nodes to the identity that creates them; anyone reads.
type creatorACL struct{}

func (creatorACL) DefaultACL() []framework.ACL {
	return append(framework.AuthACL(framework.PermAll), framework.WorldACL(framework.PermRead)...)
}
func (creatorACL) ACLForPath(string) []framework.ACL { return nil }

// Every node a latch and a selector create, the election's container
// parents and the namespace's root included, carries the ACL of the
// client's ACLProvider, leader and follower alike.
func TestElectionNodesCarryTheProvidersACL(t *testing.T) {
	cs := clients(t, 2, framework.WithDigestAuth("ops", "s3cret"), framework.WithACLProvider(creatorACL{}))
	ctx := ctxT(t)
	for i, c := range cs {
		l, err := leader.NewLatch(c, "/app/latch", leader.WithID("l"))
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { l.Close() })
		if err := l.Start(ctx); err != nil {
			t.Fatal(err)
		}
		if i == 0 {
			if _, err := l.Await(ctx); err != nil {
				t.Fatal(err)
			}
		}
	}
	leading := make(chan struct{})
	for i, c := range cs {
		s, err := leader.NewSelector(c, "/app/selector", func(ctx context.Context, _ *leader.Leadership) error {
			if i == 0 {
				close(leading)
			}
			<-ctx.Done()
			return nil
		}, leader.WithID("s"))
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { s.Close() })
		if err := s.Start(ctx); err != nil {
			t.Fatal(err)
		}
		if i == 0 {
			select {
			case <-leading:
			case <-ctx.Done():
				t.Fatal(ctx.Err())
			}
		}
	}
	want := append(framework.DigestACL(framework.PermAll, "ops", "s3cret"), framework.WorldACL(framework.PermRead)...)
	recipestest.Eventually(t, "both elections have two nodes", func() (bool, string) {
		a, _, err1 := cs[0].Children(ctx, "/app/latch")
		b, _, err2 := cs[0].Children(ctx, "/app/selector")
		return err1 == nil && err2 == nil && len(a) == 2 && len(b) == 2, ""
	})
	if checked := recipestest.CheckACLs(t, cs[0], "/", want); len(checked) != 8 {
		t.Errorf("checked %v, want the root, /app, two elections and two nodes in each", checked)
	}
}
