// Package observe defines what a client and its recipes report about
// themselves, and the hooks that hear it: every request to ZooKeeper,
// every operation with the retries it took, the retry loop's decisions,
// connection states, locks' waits, holds and losses, leadership terms,
// caches' changes and resyncs, shared values' conflicts.
//
// A hook is any value that implements one or more of the hook interfaces
// (RequestHook, OperationHook, RetryHook, StateHook, LockHook, LeaderHook,
// CacheHook, SharedHook); register it with framework.WithHooks, and every
// recipe built on that client reports to it. Hooks observe and never
// steer: they are called with a copy of what happened, after it happened,
// on a goroutine of their own (one per client, in the order the events
// came), never with a lock of the client's held. A hook that blocks delays
// the hooks after it and the events behind it, never the client: past
// Limit undelivered events the oldest are dropped, and Dropped counts them.
// A hook that panics is recovered, logged once on the client's logger,
// and called again for the next event.
//
// Paths are in the events for tracing, and are not meant as metric labels:
// their number has no bound. The recipe's name (Recipe) and the label a
// user gives a recipe (Label) are.
//
// With no hook registered nothing is built or queued: a client without
// hooks pays a nil check per event.
package observe
