package locks_test

import (
	"context"
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

// BenchmarkAcquireRelease times one uncontended cycle of a mutex without
// an Owner (a create, a listing and a delete on the package's server),
// with a context that can end and without one, and counts the client's
// allocations per cycle.
func BenchmarkAcquireRelease(b *testing.B) {
	c := clients(b, 1)[0]
	for _, cancellable := range []bool{true, false} {
		name := "background"
		if cancellable {
			name = "cancellable"
		}
		b.Run(name, func(b *testing.B) {
			ctx := context.Background()
			if cancellable {
				var cancel context.CancelFunc
				ctx, cancel = context.WithCancel(ctx)
				defer cancel()
			}
			m, err := locks.NewMutex(c, "/bench-"+name)
			if err != nil {
				b.Fatal(err)
			}
			b.ReportAllocs()
			for b.Loop() {
				h, err := m.Acquire(ctx)
				if err != nil {
					b.Fatal(err)
				}
				if err := h.Release(ctx); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
