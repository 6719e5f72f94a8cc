package lockview

import (
	"bytes"
	"context"
	"errors"
	"testing"
	"time"

	"github.com/gocurator/curator/framework"
	"github.com/gocurator/curator/recipestest"
)

// List reads within its limits: past the number of nodes (in a lock's
// directory, or a semaphore's two together) or the bytes of data read in
// all, it fails with ErrTooLarge before reading more; each node's data is
// kept up to MaxData, with its full size beside it.
func TestListStaysWithinItsLimits(t *testing.T) {
	c := recipestest.NewClient(t, server.ConnectString(), framework.WithNamespace(recipestest.Namespace(t)))
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	for i := 0; i < 3; i++ {
		for _, dir := range []string{"/lock/lock-", "/sem/leases/lease-", "/sem/locks/lock-"} {
			if _, err := c.Create(ctx, dir, bytes.Repeat([]byte{'a' + byte(i)}, 4000), framework.WithMode(framework.EphemeralSequential), framework.WithContainerParents()); err != nil {
				t.Fatal(err)
			}
		}
	}
	ps, err := List(ctx, c, "/lock", 0, Limits{MaxNodes: 3, MaxData: 10, MaxTotal: 12000})
	if err != nil || len(ps) != 3 {
		t.Fatalf("within the limits: %v, %v", ps, err)
	}
	if p := ps[0]; string(p.Data) != "aaaaaaaaaa" || p.Size != 4000 {
		t.Errorf("the holder's data: %q, size %d; want 10 bytes of it and size 4000", p.Data, p.Size)
	}
	for _, tc := range []struct {
		name, path string
		lim        Limits
	}{
		{"nodes in a lock", "/lock", Limits{MaxNodes: 2, MaxData: 10, MaxTotal: 1 << 20}},
		{"nodes in a semaphore", "/sem", Limits{MaxNodes: 5, MaxData: 10, MaxTotal: 1 << 20}},
		{"data in a lock", "/lock", Limits{MaxNodes: 10, MaxData: 10, MaxTotal: 11999}},
		{"data in a semaphore", "/sem", Limits{MaxNodes: 10, MaxData: 10, MaxTotal: 23999}},
	} {
		if ps, err := List(ctx, c, tc.path, 0, tc.lim); !errors.Is(err, ErrTooLarge) {
			t.Errorf("%s past %+v: %d participants, %v; want ErrTooLarge", tc.name, tc.lim, len(ps), err)
		}
	}
}
