package framework_test

import (
	"context"
	"testing"

	"github.com/gocurator/curator/framework"
	"github.com/gocurator/curator/observe"
	"github.com/gocurator/curator/recipestest"
)

// BenchmarkGetNoopHook is BenchmarkGet with a hook that hears every
// request and operation and does nothing: what building, queueing and
// delivering the events costs.
func BenchmarkGetNoopHook(b *testing.B) {
	c := recipestest.NewClient(b, server.ConnectString(), framework.WithNamespace(recipestest.Namespace(b)), framework.WithHooks(noopHook{}))
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

type noopHook struct{}

func (noopHook) OnRequest(observe.Request)     {}
func (noopHook) OnOperation(observe.Operation) {}
