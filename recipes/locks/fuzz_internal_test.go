package locks

import (
	"errors"
	"slices"
	"strings"
	"testing"

	"github.com/gocurator/curator/driver"
)

// curatorReadPredicate is Curator's readLockPredicate for a reader that
// does not hold the write lock: our node is the first whose name starts
// with ours, held iff no write node comes before it, else watch the first
// write node.
func curatorReadPredicate(children []string, ourNode string) (driver.Result, bool) {
	firstWrite := -1
	for i, node := range children {
		if strings.Contains(node, WriteLockName) {
			if firstWrite < 0 {
				firstWrite = i
			}
		} else if strings.HasPrefix(node, ourNode) {
			if firstWrite < 0 {
				return driver.Result{Held: true}, true
			}
			return driver.Result{Watch: children[firstWrite]}, true
		}
	}
	return driver.Result{}, false
}

// FuzzReadDriverGetsTheLock: the read lock's decision never panics on any
// listing; a listing without our node is ErrNodeMissing; we hold iff no
// write node is ahead of our (first) node, not counting a write node with
// our sequence (our own, being downgraded), and otherwise watch the first
// write node ahead. Where no write node shares our sequence and our name
// is the only one it prefixes, it is Curator's answer. pick, when odd,
// names our node by its place in the listing ("/"-separated).
func FuzzReadDriverGetsTheLock(f *testing.F) {
	const u = "_c_0b7e5e37-33a5-4c67-9a52-d6d8a36c2c0b-"
	f.Add(u+"__READ__0000000001/"+u+"__READ__0000000002", "", uint16(3))
	f.Add(u+"__WRIT__0000000001/"+u+"__READ__0000000002", "", uint16(3))
	f.Add(u+"__READ__0000000001/"+u+"__WRIT__0000000002/"+u+"__READ__0000000003", "", uint16(5))
	f.Add(u+"__WRIT__0000000001/"+u+"__READ__0000000001", "", uint16(3)) // a downgrade
	f.Add(u+"__WRIT__0000000001/"+u+"__READ__0000000002", "gone", uint16(0))
	f.Add("__READ__1/__READ__10", "", uint16(1)) // our name prefixes another
	f.Fuzz(func(t *testing.T, list, our string, pick uint16) {
		var names []string
		if list != "" {
			names = strings.Split(list, "/")
		}
		if pick%2 == 1 && len(names) > 0 {
			our = names[int(pick/2)%len(names)]
		}
		res, err := readDriver{}.GetsTheLock(names, our, 1)
		index := slices.Index(names, our)
		if index < 0 {
			if !errors.Is(err, driver.ErrNodeMissing) {
				t.Fatalf("%q not in %q: %+v, %v; want ErrNodeMissing", our, names, res, err)
			}
			return
		}
		ourKey := rwFixForSorting(our, "")
		blocker := slices.IndexFunc(names[:index], func(n string) bool {
			return strings.Contains(n, WriteLockName) && rwFixForSorting(n, "") != ourKey
		})
		want := driver.Result{Held: true}
		if blocker >= 0 {
			want = driver.Result{Watch: names[blocker]}
		}
		if err != nil || res != want {
			t.Fatalf("%q at %d of %q: %+v, %v; want %+v", our, index, names, res, err, want)
		}
		shared := slices.ContainsFunc(names, func(n string) bool {
			return strings.Contains(n, WriteLockName) && rwFixForSorting(n, "") == ourKey
		})
		prefixes := slices.ContainsFunc(names, func(n string) bool { return n != our && strings.HasPrefix(n, our) })
		if !shared && !prefixes {
			if curator, ok := curatorReadPredicate(names, our); !ok || curator != res {
				t.Fatalf("%q in %q: %+v; Curator's answer %+v (found %v)", our, names, res, curator, ok)
			}
		}
	})
}
