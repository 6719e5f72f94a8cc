// Package barrier holds Curator's barriers, on Curator's nodes, so that Java
// and Go processes wait at one barrier together.
//
// A Barrier (DistributedBarrier) is a node: while it exists, Wait blocks;
// whoever removes it lets every waiter go.
//
// A DoubleBarrier (DistributedDoubleBarrier) lets a group start together
// and finish together: Enter blocks until the given number of members have
// entered, and Leave until every member that entered has left. Each member
// is an ephemeral node named by a random UUID under the barrier's path; the
// member that completes the group creates the path's "ready" node, which
// lets the others in; leaving follows Curator's protocol, in which the
// member whose node sorts first leaves last. The number of members is a
// threshold, not a limit: more may enter.
//
// Every call takes a context; one that ends, or fails, deletes the member
// node it made, and leaves nothing behind. Unlike Curator's, whose waits
// fail at the first dropped connection, a wait here rides out a dropped
// connection (the server keeps the watch) and fails only when the session
// ends, since the member node ends with it.
package barrier
