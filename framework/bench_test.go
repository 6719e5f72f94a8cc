package framework_test

import (
	"context"
	"testing"

	"github.com/gocurator/curator/framework"
	"github.com/gocurator/curator/recipestest"
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

// BenchmarkGet is one Get of a client without hooks, against the package's
// server: its allocations are a request's and its operation's, which the
// hooks, off, must not grow (docs/observability.md, "Cost").
func BenchmarkGet(b *testing.B) {
	c := recipestest.NewClient(b, server.ConnectString(), framework.WithNamespace(recipestest.Namespace(b)))
	ctx := context.Background()
	if _, err := c.Create(ctx, "/n", []byte("hello")); err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	for b.Loop() {
		if _, _, err := c.Get(ctx, "/n"); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkCreateDelete is a Create and a Delete of a client without
// hooks: two writes, each through the retry loop.
func BenchmarkCreateDelete(b *testing.B) {
	c := recipestest.NewClient(b, server.ConnectString(), framework.WithNamespace(recipestest.Namespace(b)))
	ctx := context.Background()
	b.ReportAllocs()
	for b.Loop() {
		if _, err := c.Create(ctx, "/n", nil); err != nil {
			b.Fatal(err)
		}
		if err := c.Delete(ctx, "/n"); err != nil {
			b.Fatal(err)
		}
	}
}
