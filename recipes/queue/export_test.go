package queue

import (
	"context"

	"github.com/gocurator/curator/framework"
)

// Claim runs a plain take's removal of the item node name, read at
// version, on q's consumer side: it reports whether the item was removed
// for delivery.
func Claim[T any](ctx context.Context, q *Queue[T], name string, version int32) (bool, error) {
	got, err := q.c.claim(ctx, name, version)
	return got == taken, err
}

// WatchHeld runs a lock-safe pass's watch of the lock nodes of the items
// named, as other consumers' holds: it reports whether one was gone.
func WatchHeld[T any](ctx context.Context, q *Queue[T], names ...string) (bool, error) {
	st := &consuming{watching: map[string]framework.Watch{}}
	return q.c.watchHeld(ctx, st, names)
}
