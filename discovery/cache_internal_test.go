package discovery

import (
	"context"
	"fmt"
	"os"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/gocurator/curator/framework"
	"github.com/gocurator/curator/recipes/cache"
	"github.com/gocurator/curator/recipestest"
)

// A listener so slow that the inner cache drops its events (Overflowed)
// still hears of every instance, and the Cache still holds them all: it
// reads the inner cache again.
func TestCacheAfterOverflow(t *testing.T) {
	recipestest.LeakCheck(t)
	c := recipestest.NewClient(t, os.Getenv(recipestest.ConnectEnv), framework.WithNamespace(recipestest.Namespace(t)))
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	d, err := New[int](c, "/services")
	if err != nil {
		t.Fatal(err)
	}
	if err := d.Start(context.Background()); err != nil {
		t.Fatal(err)
	}
	defer d.Close()
	sc, err := d.newCache("svc", cache.WithEventBuffer(2))
	if err != nil {
		t.Fatal(err)
	}
	release := make(chan struct{})
	var mu sync.Mutex
	var added []string
	sc.AddListener(func(ev Event[int]) {
		<-release
		if ev.Type == Added {
			mu.Lock()
			added = append(added, ev.Instance.ID)
			mu.Unlock()
		}
	})
	if err := sc.Start(context.Background()); err != nil {
		t.Fatal(err)
	}
	defer sc.Close()
	var want []string
	for i := range 6 {
		id := fmt.Sprint("i", i)
		want = append(want, id)
		if _, err := d.Register(ctx, Instance[int]{Name: "svc", ID: id, Payload: i}); err != nil {
			t.Fatal(err)
		}
	}
	close(release)
	recipestest.Eventually(t, "every instance in the cache and told", func() (bool, string) {
		mu.Lock()
		got := slices.Sorted(slices.Values(added))
		mu.Unlock()
		var ids []string
		for _, i := range sc.Instances() {
			ids = append(ids, i.ID)
		}
		return slices.Equal(ids, want) && slices.Equal(got, want), fmt.Sprint(ids, got)
	})
}
