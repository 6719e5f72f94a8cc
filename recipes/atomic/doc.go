// Package atomic holds Curator's distributed atomics: Int64
// (DistributedAtomicLong), Int32 (DistributedAtomicInteger) and Value
// (DistributedAtomicValue), on Curator's node format, so that Java and Go
// processes update one value together.
//
// An update reads the node and writes the new value at the version it read.
// If another participant wrote first, the try fails and the update tries
// again while its retry.Policy allows; then, if a Promotion was given, it
// takes a locks.Mutex on the promotion's lock path (Curator's lock node
// format, so a promoted Java update and a Go one exclude each other) and
// tries again under it with the promotion's own policy. A Result says
// whether the update succeeded, with the value before and after it and how
// many tries each phase took. Running out of tries is not an error: check
// Result.Succeeded.
//
// # A lost reply
//
// A write whose reply is lost (the connection dropped, the session expired,
// or ctx ended while it was in flight) may or may not have been applied.
// Curator's client sends it again; if the first one was applied, the second
// is refused for its version, Curator takes the refusal for another
// participant's write and updates again from the new value, and the update
// is applied twice and reported once. Here the write is sent again as it
// was, at the same version (of all the writes at one version, at most one
// succeeds): if that succeeds, the update was applied once. If it is
// refused, the node tells whether the write that won was another
// participant's (the node moved on by one version, to other bytes than
// ours: the try failed, and the update goes on); if it cannot tell (the
// same bytes, which another increment from the same value also writes),
// the update returns an error wrapping framework.ErrOutcomeUnknown, with
// the value it tried to write in Result.Post. Succeeded is true only for
// an update known to have been applied once.
//
// # Hooks
//
// Each compare-and-set (every try of an update, and CompareAndSet) whose
// outcome is known reaches the client's observe.SharedHook as an
// observe.TrySet of the recipe "atomic" at the atomic's path, with Conflict
// set when another participant's write came first (for CompareAndSet: when
// the node did not hold the expected bytes). Counting the conflicts per
// update shows contention before tries run out.
//
// The node is never deleted by this package; deleting it while others
// update it starts the count again from zero, as it does for Curator.
package atomic
