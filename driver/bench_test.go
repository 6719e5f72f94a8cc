package driver_test

import (
	"fmt"
	"testing"

	"github.com/gocurator/curator/driver"
)

// queue returns n Curator-style lock node names in shuffled order.
func queue(n int) []string {
	names := make([]string, n)
	for i := range names {
		j := (i * 7919) % n // a fixed permutation
		names[i] = fmt.Sprintf("_c_0f1e2d3c-4b5a-4968-8776-%012d-lock-%010d", j, j)
	}
	return names
}

func BenchmarkSortChildren(b *testing.B) {
	for _, n := range []int{10, 1000} {
		b.Run(fmt.Sprint(n), func(b *testing.B) {
			base := queue(n)
			children := make([]string, n)
			b.ReportAllocs()
			for b.Loop() {
				copy(children, base)
				driver.SortChildren(children, "lock-", driver.StandardFixForSorting)
			}
		})
	}
}

func BenchmarkStandardGetsTheLock(b *testing.B) {
	children := driver.SortChildren(queue(1000), "lock-", driver.StandardFixForSorting)
	our := children[500]
	d := driver.Standard{}
	b.ReportAllocs()
	for b.Loop() {
		if _, err := d.GetsTheLock(children, our, 1); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkStandardFixForSorting(b *testing.B) {
	name := queue(1)[0]
	b.ReportAllocs()
	for b.Loop() {
		driver.StandardFixForSorting(name, "lock-")
	}
}
