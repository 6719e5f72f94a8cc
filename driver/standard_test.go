package driver_test

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/gocurator/curator/driver"
)

func TestStandardFixForSorting(t *testing.T) {
	for _, tt := range []struct{ name, lock, want string }{
		{"_c_0f1e-lock-0000000007", "lock-", "0000000007"},
		{"lock-0000000001", "lock-", "0000000001"},
		{"lock-lock-0000000003", "lock-", "0000000003"}, // the last occurrence
		{"other-0000000002", "lock-", "other-0000000002"},
		{"x__READ__0000000004", "__READ__", "0000000004"},
	} {
		if got := driver.StandardFixForSorting(tt.name, tt.lock); got != tt.want {
			t.Errorf("StandardFixForSorting(%q, %q) = %q, want %q", tt.name, tt.lock, got, tt.want)
		}
	}
}

// Curator's order: by sequence whatever the protected prefix, and a node
// without the lock name sorts on its whole name, after every lock node.
func TestSortChildrenMatchesCurator(t *testing.T) {
	children := []string{
		"_c_bbb-lock-0000000003",
		"foreign-0000000000",
		"_c_aaa-lock-0000000010",
		"_c_ccc-lock-0000000001",
	}
	got := driver.SortChildren(children, "lock-", driver.StandardFixForSorting)
	want := []string{"_c_ccc-lock-0000000001", "_c_bbb-lock-0000000003", "_c_aaa-lock-0000000010", "foreign-0000000000"}
	if !slices.Equal(got, want) {
		t.Fatalf("sorted %v, want %v", got, want)
	}
}

func TestSortChildrenIsStable(t *testing.T) {
	children := []string{"b-x", "a-x", "c-x"} // no lock name: whole names compared
	got := driver.SortChildren(children, "zzz", func(string, string) string { return "same" })
	if !slices.Equal(got, []string{"b-x", "a-x", "c-x"}) {
		t.Fatalf("equal keys reordered: %v", got)
	}
}

// Sequence keys sort faster as numbers; the order must be the stable text
// order whatever the keys: all sequences, repeated sequences, and keys that
// are not ten digits (which fall back to text).
func TestSortChildrenOrderIsTheStableTextOrder(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	kinds := []func(i int) string{
		func(i int) string { return fmt.Sprintf("_c_%04d-lock-%010d", i, rng.Int64N(1e10)) },
		func(i int) string { return fmt.Sprintf("_c_%04d-lock-%010d", i, rng.IntN(5)) }, // equal keys
		func(i int) string { return fmt.Sprintf("_c_%04d-lock-%d", i, rng.IntN(1e6)) },  // not ten digits
		func(i int) string { return fmt.Sprintf("foreign-%d", rng.IntN(1e6)) },          // no lock name
	}
	for round := range 300 {
		n := rng.IntN(50)
		children := make([]string, n)
		for i := range children {
			kind := kinds[round%3] // all sequences; all sequences, with repeats; any kind
			if round%3 == 2 {
				kind = kinds[rng.IntN(len(kinds))]
			}
			children[i] = kind(i)
		}
		want := slices.Clone(children)
		slices.SortStableFunc(want, func(a, b string) int {
			return strings.Compare(driver.StandardFixForSorting(a, "lock-"), driver.StandardFixForSorting(b, "lock-"))
		})
		if got := driver.SortChildren(children, "lock-", driver.StandardFixForSorting); !slices.Equal(got, want) {
			t.Fatalf("sorted %v, want %v", got, want)
		}
	}
}

func TestStandardGetsTheLock(t *testing.T) {
	children := []string{"n-1", "n-2", "n-3", "n-4"}
	d := driver.Standard{}
	for _, tt := range []struct {
		our       string
		maxLeases int
		want      driver.Result
	}{
		{"n-1", 1, driver.Result{Held: true}},
		{"n-2", 1, driver.Result{Watch: "n-1"}},
		{"n-4", 1, driver.Result{Watch: "n-3"}},
		{"n-3", 3, driver.Result{Held: true}},
		{"n-4", 3, driver.Result{Watch: "n-1"}},
	} {
		got, err := d.GetsTheLock(children, tt.our, tt.maxLeases)
		if err != nil || got != tt.want {
			t.Errorf("GetsTheLock(%s, %d) = %+v, %v; want %+v", tt.our, tt.maxLeases, got, err, tt.want)
		}
	}
	if _, err := d.GetsTheLock(children, "gone", 1); !errors.Is(err, driver.ErrNodeMissing) {
		t.Errorf("missing node: %v, want ErrNodeMissing", err)
	}
	if _, err := d.GetsTheLock(children, "n-1", 0); err == nil {
		t.Error("maxLeases 0 accepted")
	}
}
