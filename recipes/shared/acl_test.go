package shared_test

import (
	"testing"

	"github.com/gocurator/curator/framework"
	"github.com/gocurator/curator/recipes/shared"
	"github.com/gocurator/curator/recipestest"
)

// creatorACL gives nodes to the identity that creates them; anyone reads.
type creatorACL struct{}

func (creatorACL) DefaultACL() []framework.ACL {
	return append(framework.AuthACL(framework.PermAll), framework.WorldACL(framework.PermRead)...)
}
func (creatorACL) ACLForPath(string) []framework.ACL { return nil }

// A Value's and a Count's nodes, their container parents and the
// namespace's root carry the ACL of the client's ACLProvider.
func TestSharedNodesCarryTheProvidersACL(t *testing.T) {
	c := clients(t, 1, framework.WithDigestAuth("ops", "s3cret"), framework.WithACLProvider(creatorACL{}))[0]
	values(t, "/app/value", []byte("v"), c)
	n, err := shared.NewCount(c, "/app/count", 7)
	if err != nil {
		t.Fatal(err)
	}
	if err := n.Start(ctxT(t)); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { n.Close() })
	want := append(framework.DigestACL(framework.PermAll, "ops", "s3cret"), framework.WorldACL(framework.PermRead)...)
	if checked := recipestest.CheckACLs(t, c, "/", want); len(checked) != 4 {
		t.Errorf("checked %v, want the root, /app, the value and the count", checked)
	}
}
