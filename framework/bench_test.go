package framework_test

import (
	"testing"

	"github.com/gocurator/curator/framework"
)

const benchName = "_c_0f1e2d3c-4b5a-4968-8776-655443322110-lock-0000000042"

func BenchmarkValidatePath(b *testing.B) {
	b.ReportAllocs()
	for b.Loop() {
		if err := framework.ValidatePath("/locks/app/"+benchName, false); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkProtectedNames(b *testing.B) {
	b.ReportAllocs()
	for b.Loop() {
		if framework.ProtectedID(benchName) == "" || framework.StripProtectedPrefix(benchName) != "lock-0000000042" {
			b.Fatal("bad parse")
		}
	}
}

func BenchmarkSplitPath(b *testing.B) {
	b.ReportAllocs()
	for b.Loop() {
		framework.SplitPath("/locks/app/" + benchName)
	}
}
