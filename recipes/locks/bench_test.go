package locks_test

import (
	"fmt"
	"testing"

	"github.com/gocurator/curator/driver"
	"github.com/gocurator/curator/recipes/locks"
)

// BenchmarkReadPredicate times the read lock's decision over a mixed queue
// of 1000 readers and writers.
func BenchmarkReadPredicate(b *testing.B) {
	children := make([]string, 1000)
	for i := range children {
		kind := locks.ReadLockName
		if i%5 == 4 {
			kind = locks.WriteLockName
		}
		children[i] = fmt.Sprintf("_c_0f1e2d3c-4b5a-4968-8776-%012d-%s%010d", i, kind, i)
	}
	d := locks.ReadDriver
	driver.SortChildren(children, locks.ReadLockName, d.FixForSorting)
	our := children[998]
	b.ReportAllocs()
	for b.Loop() {
		if _, err := d.GetsTheLock(children, our, 0); err != nil {
			b.Fatal(err)
		}
	}
}
