package recipestest

import (
	"context"
	"errors"
	"slices"
	"testing"
	"time"

	"github.com/gocurator/curator/framework"
)

// CheckACLs fails the test unless every node at and below root, as c sees
// them, has the ACL want: what a recipe creates must carry the ACL of the
// client's ACLProvider, its container parents and the namespace's root
// included. It returns the paths it checked; a node gone between its
// parent's listing and its own reading (a container the server reaped) is
// left out. c must be allowed to read every node (and to administer them,
// for a digest's hash to show).
func CheckACLs(tb testing.TB, c *framework.Client, root string, want []framework.ACL) []string {
	tb.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	var checked []string
	var walk func(path string)
	walk = func(path string) {
		acl, _, err := c.GetACL(ctx, path)
		if errors.Is(err, framework.ErrNoNode) {
			return
		}
		if err != nil {
			tb.Fatalf("reading the ACL of %s: %v", path, err)
		}
		if !slices.Equal(acl, want) {
			tb.Errorf("ACL of %s: %v, want %v", path, acl, want)
		}
		checked = append(checked, path)
		kids, _, err := c.Children(ctx, path)
		if errors.Is(err, framework.ErrNoNode) {
			return
		}
		if err != nil {
			tb.Fatalf("listing %s: %v", path, err)
		}
		for _, k := range kids {
			walk(framework.JoinPath(path, k))
		}
	}
	walk(root)
	return checked
}
