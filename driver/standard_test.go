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
// order whatever the keys, with the keys that are not sequences after the
// others: all sequences, repeated sequences, and keys that are not ten
// digits (which fall back to text).
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
		slices.SortStableFunc(want, participantsFirst("lock-"))
		if got := driver.SortChildren(children, "lock-", driver.StandardFixForSorting); !slices.Equal(got, want) {
			t.Fatalf("sorted %v, want %v", got, want)
		}
	}
}

// participantsFirst is SortChildren's order: keys that are sequences
// before keys that are not, then the keys as text.
func participantsFirst(lockName string) func(a, b string) int {
	return func(a, b string) int {
		ka, kb := driver.StandardFixForSorting(a, lockName), driver.StandardFixForSorting(b, lockName)
		if sa, sb := driver.IsSequence(ka), driver.IsSequence(kb); sa != sb {
			if sa {
				return -1
			}
			return 1
		}
		return strings.Compare(ka, kb)
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

func TestIsSequence(t *testing.T) {
	for key, want := range map[string]bool{
		"0000000000": true, "0000000042": true, "2147483647": true,
		"-000000001": true, "-999999999": true, "-1000000000": true, "-2147483648": true,
		"": false, "-1": false, "42": false, "00000000042": false, "2147483648": false, "9999999999": false,
		"-000000000": false, "-2147483649": false, "-0999999999": false, "000000004a": false, "+000000001": false,
		" 000000001": false, "０００００００００１": false,
	} {
		if got := driver.IsSequence(key); got != want {
			t.Errorf("IsSequence(%q) = %v, want %v", key, got, want)
		}
	}
}

// Names whose key is not a sequence number sort after every participant's
// node, among themselves by key, and block no one: an empty or malformed
// sequence, or a name without the lock name that sorts before digits, which
// Curator sorts first. ZooKeeper's own negative sequences (its counter past
// 2^31) stay where Curator puts them.
func TestCraftedNamesDoNotBlock(t *testing.T) {
	children := []string{
		"x-lock-",              // empty sequence
		"_c_b-lock-0000000002", // a participant
		"x-lock--1",            // a malformed negative
		"!",                    // no lock name, sorts before digits
		"_c_a-lock-0000000001", // the first participant
		"x-lock-00000000001",   // eleven digits
		"_c_c-lock--000000001", // ZooKeeper's sequence after its counter overflowed
	}
	got := driver.SortChildren(children, "lock-", driver.StandardFixForSorting)
	want := []string{"_c_c-lock--000000001", "_c_a-lock-0000000001", "_c_b-lock-0000000002", "x-lock-", "!", "x-lock--1", "x-lock-00000000001"}
	if !slices.Equal(got, want) {
		t.Fatalf("sorted %q, want %q", got, want)
	}
	for i, our := range want[:3] {
		res, err := driver.Standard{}.GetsTheLock(got, our, 1)
		if err != nil || res.Held != (i == 0) || (i > 0 && res.Watch != want[i-1]) {
			t.Errorf("GetsTheLock(%s) = %+v, %v", our, res, err)
		}
	}
}
