// Package leader elects one leader among many processes, wire-compatible
// with Curator 5's LeaderLatch and LeaderSelector, so Java and Go
// participants take part in one election and agree on one leader.
//
// A Latch (Curator's LeaderLatch) keeps a participant in the election until
// it is closed; a Selector (Curator's LeaderSelector) runs a function while
// its participant leads. Both hand out a Leadership: a term of leadership
// whose Done channel is closed the moment it ends (the connection Suspended
// or Lost under the client's error policy, the node deleted, an interrupt,
// Close) and whose Fence makes a write commit only while the term lasts, so
// a leader that was paused past its session cannot write after another has
// taken over. Observe follows an election from outside it.
//
// Each term has a node of its own: a participant whose term ended leaves
// the election and joins it again with a new node, so a term that ended
// never comes back and its Fence never holds again. It deletes the ended
// term's node only once the term's code has let go (a Selector's function
// returned; a Latch's listeners returned; every Leadership.Retain
// released), within a grace (WithGrace), so no other participant leads
// while that code runs. A term's Context derives from the context given to
// Start. See docs/recipes/leader.md.
package leader
