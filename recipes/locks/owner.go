package locks

import "context"

// Owner stands for the thread of Curator's reentrant locks: acquisitions made
// with the same Owner re-enter a lock their owner holds, with no ZooKeeper
// call. Goroutines that share a lock but not an Owner exclude each other.
// An Acquire whose context carries no Owner acts for a fresh one, so it never
// re-enters.
//
// An Owner is one holder: goroutines that use the same Owner at the same
// time all hold the lock at once, and nothing reports it. Give each
// concurrent worker (a request, a job) its own, never one to a whole
// process or a struct shared by goroutines.
type Owner struct{ _ byte } // not zero-size: distinct owners have distinct addresses

// NewOwner returns a new owner.
func NewOwner() *Owner { return new(Owner) }

type ownerKey struct{}

// WithOwner returns a context that acquires on behalf of o.
func WithOwner(ctx context.Context, o *Owner) context.Context {
	return context.WithValue(ctx, ownerKey{}, o)
}

// OwnerFrom returns the owner ctx carries, or nil.
func OwnerFrom(ctx context.Context) *Owner {
	o, _ := ctx.Value(ownerKey{}).(*Owner)
	return o
}
