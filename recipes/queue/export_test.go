package queue

import "context"

// Claim runs a plain take's removal of the item node name, read at
// version, on q's consumer side: it reports whether the item was removed
// for delivery.
func Claim[T any](ctx context.Context, q *Queue[T], name string, version int32) (bool, error) {
	got, err := q.c.claim(ctx, name, version)
	return got == taken, err
}
