package driver_test

import (
	"errors"
	"slices"
	"strings"
	"testing"
	"unicode/utf16"
	"unicode/utf8"

	"github.com/gocurator/curator/driver"
)

// children decodes a fuzz input into a listing: names separated by "/",
// which no node name can contain.
func children(list string) []string {
	if list == "" {
		return nil
	}
	return strings.Split(list, "/")
}

// curatorFix is Curator's fixForSorting on Java strings (UTF-16 units):
// the text after the last occurrence of lockName, or the whole name. It
// searches naively, in time len(name)*len(lockName): callers keep inputs
// short (see oracleLimit).
func curatorFix(name, lockName []uint16) []uint16 {
	for i := len(name) - len(lockName); i >= 0; i-- {
		if slices.Equal(name[i:i+len(lockName)], lockName) {
			return name[i+len(lockName):]
		}
	}
	return name
}

// curatorSort is Curator's sort of a listing: a stable sort on the
// fixForSorting key, compared as Java compares strings (by UTF-16 unit).
func curatorSort(names []string, lockName string) []string {
	type keyed struct {
		key  []uint16
		name string
	}
	lock := utf16.Encode([]rune(lockName))
	out := make([]keyed, len(names))
	for i, n := range names {
		out[i] = keyed{curatorFix(utf16.Encode([]rune(n)), lock), n}
	}
	slices.SortStableFunc(out, func(a, b keyed) int { return slices.Compare(a.key, b.key) })
	sorted := make([]string, len(out))
	for i, k := range out {
		sorted[i] = k.name
	}
	return sorted
}

// javaComparable reports whether s means the same to Java as to Go and
// orders the same way: valid UTF-8 without characters above U+FFFF (which
// UTF-16 writes as surrogates, and ZooKeeper refuses in a path).
func javaComparable(s string) bool {
	if !utf8.ValidString(s) {
		return false
	}
	for _, r := range s {
		if r > 0xffff {
			return false
		}
	}
	return true
}

// oracleLimit bounds the input, in bytes, that the Curator reference
// implementation checks: it is quadratic, and the fuzzer's slow inputs are
// better spent elsewhere.
const oracleLimit = 4 << 10

func fuzzListings(f *testing.F) {
	f.Add("_c_bbb-lock-0000000003/foreign-0000000000/_c_aaa-lock-0000000010/_c_ccc-lock-0000000001", "lock-")
	f.Add("_c_0f1e2d3c-4b5a-4968-8776-000000000001-lock-0000000002/_c_0f1e2d3c-4b5a-4968-8776-000000000002-lock-0000000002/lock-0000000001", "lock-")
	f.Add("lock-lock-0000000003/lock-0000000002/lock-", "lock-")
	f.Add("x__READ__0000000004/x__WRIT__0000000003/x__READ__0000000002", "__READ__")
	f.Add("lock-9999999999/lock-0000000000/lock-000000000a/lock-00000000001", "lock-")
	f.Add("b/a/c/a", "")
	f.Add("lock-\uffef/lock-\U00010000/lock-\ue000", "lock-")
	f.Add("lock-\xff/lock-\xfe", "lock-")
	f.Add("", "lock-")
}

// FuzzSortChildren: SortChildren never panics, sorts in place, returns a
// permutation of its input in the stable order of StandardFixForSorting's
// keys compared as strings, the keys that are not sequence numbers after
// the others, and, for every name Java reads the same way, with the
// participants' nodes (those whose key is a sequence) in Curator's order
// (fixForSorting, String.compareTo, a stable sort).
func FuzzSortChildren(f *testing.F) {
	fuzzListings(f)
	f.Fuzz(func(t *testing.T, list, lockName string) {
		names := children(list)
		in := slices.Clone(names)
		got := driver.SortChildren(names, lockName, driver.StandardFixForSorting)
		if len(got) != len(in) || (len(got) > 0 && &got[0] != &names[0]) {
			t.Fatalf("SortChildren did not sort in place: %q", got)
		}
		if a, b := slices.Sorted(slices.Values(in)), slices.Sorted(slices.Values(got)); !slices.Equal(a, b) {
			t.Fatalf("not a permutation: %q -> %q", in, got)
		}
		want := slices.Clone(in)
		slices.SortStableFunc(want, participantsFirst(lockName))
		if !slices.Equal(got, want) {
			t.Fatalf("SortChildren(%q, %q) = %q, want %q", in, lockName, got, want)
		}
		if len(list)+len(lockName) > oracleLimit || !javaComparable(lockName) ||
			slices.ContainsFunc(in, func(s string) bool { return !javaComparable(s) }) {
			return
		}
		foreign := func(n string) bool { return !driver.IsSequence(driver.StandardFixForSorting(n, lockName)) }
		ours := slices.DeleteFunc(slices.Clone(got), foreign)
		curator := slices.DeleteFunc(curatorSort(in, lockName), foreign)
		if !slices.Equal(ours, curator) {
			t.Fatalf("SortChildren(%q, %q) puts the participants in the order %q, Curator in %q", in, lockName, ours, curator)
		}
	})
}

// FuzzStandardFixForSorting: the key is the text after the last occurrence
// of the lock name, or the whole name; for names Java reads the same way it
// is Curator's key.
func FuzzStandardFixForSorting(f *testing.F) {
	for _, s := range [][2]string{
		{"_c_0f1e-lock-0000000007", "lock-"}, {"lock-lock-0000000003", "lock-"}, {"other-0000000002", "lock-"},
		{"lock-", "lock-"}, {"abc", ""}, {"", ""}, {"aaa", "aa"}, {"\u00e9lock-\u00e9", "lock-\u00e9"}, {"\xe9lock-", "lock-"},
	} {
		f.Add(s[0], s[1])
	}
	f.Fuzz(func(t *testing.T, name, lockName string) {
		key := driver.StandardFixForSorting(name, lockName)
		if i := strings.LastIndex(name, lockName); i >= 0 {
			if key != name[i+len(lockName):] || !strings.HasSuffix(name, lockName+key) {
				t.Fatalf("key of %q after %q: %q", name, lockName, key)
			}
		} else if key != name {
			t.Fatalf("key of %q without %q: %q, want the whole name", name, lockName, key)
		}
		if len(name)+len(lockName) <= oracleLimit && javaComparable(name) && javaComparable(lockName) {
			want := curatorFix(utf16.Encode([]rune(name)), utf16.Encode([]rune(lockName)))
			if !slices.Equal(utf16.Encode([]rune(key)), want) {
				t.Fatalf("key of %q after %q: %q, Curator's %q", name, lockName, key, string(utf16.Decode(want)))
			}
		}
	})
}

// FuzzStandardGetsTheLock: never panics; a maxLeases below 1 is an error;
// a listing without our node is ErrNodeMissing; otherwise the lock is held
// iff our (first) index is below maxLeases, and the child to watch is the
// one maxLeases places ahead, as in Curator's StandardLockInternalsDriver.
// pick, when odd, names our node by its place in the listing.
func FuzzStandardGetsTheLock(f *testing.F) {
	f.Add("n-1/n-2/n-3/n-4", "", uint16(1), 1)
	f.Add("n-1/n-2/n-3/n-4", "", uint16(7), 1)
	f.Add("n-1/n-2/n-3/n-4", "", uint16(7), 3)
	f.Add("n-1/n-2/n-3/n-4", "", uint16(5), 3)
	f.Add("n-1/n-2/n-1", "", uint16(5), 1) // a duplicate: the first one counts
	f.Add("n-1/n-2/n-3", "gone", uint16(0), 1)
	f.Add("", "gone", uint16(0), 1)
	f.Add("n-1/n-2", "", uint16(3), 0)
	f.Add("n-1/n-2", "", uint16(3), -1)
	f.Add("n-1/n-2", "", uint16(3), int(^uint(0)>>1))
	f.Add("n-1/n-2", "", uint16(3), -int(^uint(0)>>1)-1)
	f.Fuzz(func(t *testing.T, list, our string, pick uint16, maxLeases int) {
		names := children(list)
		if pick%2 == 1 && len(names) > 0 {
			our = names[int(pick/2)%len(names)]
		}
		in := slices.Clone(names)
		res, err := driver.Standard{}.GetsTheLock(names, our, maxLeases)
		if !slices.Equal(names, in) {
			t.Fatalf("GetsTheLock changed the listing: %q -> %q", in, names)
		}
		index := -1
		for i, n := range names {
			if n == our {
				index = i
				break
			}
		}
		switch {
		case maxLeases < 1:
			if err == nil || errors.Is(err, driver.ErrNodeMissing) {
				t.Fatalf("maxLeases %d: %+v, %v; want an error", maxLeases, res, err)
			}
		case index < 0:
			if !errors.Is(err, driver.ErrNodeMissing) || res != (driver.Result{}) {
				t.Fatalf("%q not in %q: %+v, %v; want ErrNodeMissing", our, names, res, err)
			}
		case index < maxLeases:
			if err != nil || res != (driver.Result{Held: true}) {
				t.Fatalf("%q at %d of %q, maxLeases %d: %+v, %v; want held", our, index, names, maxLeases, res, err)
			}
		default:
			if want := (driver.Result{Watch: names[index-maxLeases]}); err != nil || res != want {
				t.Fatalf("%q at %d of %q, maxLeases %d: %+v, %v; want %+v", our, index, names, maxLeases, res, err, want)
			}
		}
	})
}
