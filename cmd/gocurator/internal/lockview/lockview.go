// Package lockview reads the nodes of a lock, a semaphore or an election as
// an operator wants to see them: who holds, who waits, each participant's
// data, session and age. It reads Curator's layouts (which are this
// module's too) and sends only reads.
package lockview

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/gocurator/curator/driver"
	"github.com/gocurator/curator/framework"
	"github.com/gocurator/curator/recipes/locks"
)

// State says whether a participant holds or waits.
type State string

// A participant's states.
const (
	Holds State = "holds"
	Waits State = "waits"
	// Unknown is a node that is not a participant's (its name has no
	// sequence number after the recipe's name): it neither holds nor
	// blocks anyone, as the recipes decide (driver.SortChildren). Curator
	// lets some of them block its own participants.
	Unknown State = "?"
)

// Participant is one node of a lock or an election.
type Participant struct {
	// Node is the node's path relative to the lock's path
	// ("_c_…-lock-0000000001", or "leases/_c_…-lease-0000000002").
	Node string
	// Kind is the node's kind, from its name: "lock", "read", "write",
	// "lease", "latch", or "" for none of them.
	Kind string
	// State says whether it holds or waits.
	State State
	// Data is the node's data: the participant's id (gocurator's --id, a
	// Curator participant's id or IP address), cut to Limits.MaxData
	// bytes.
	Data []byte
	// Size is the length of the node's data, which Data holds only up to
	// Limits.MaxData.
	Size int
	// Session is the id of the session that owns the node (0 for a node
	// that is not ephemeral).
	Session int64
	// Created is when the node was created, by the server's clock.
	Created time.Time
}

// Limits bound what List reads: whoever can create nodes in a lock
// chooses how many there are and how large their data is (up to the
// server's jute.maxbuffer, 1 MiB by default, each).
type Limits struct {
	// MaxNodes is the most nodes List reads, in all.
	MaxNodes int
	// MaxData is the most bytes of a node's data kept in Participant.Data.
	MaxData int
	// MaxTotal is the most bytes of data List reads, in all.
	MaxTotal int
}

// DefaultLimits are the limits of gocurator holders: ten thousand nodes,
// a kilobyte of each one's data shown, 16 MiB read in all.
func DefaultLimits() Limits {
	return Limits{MaxNodes: 10_000, MaxData: 1024, MaxTotal: 16 << 20}
}

// ErrTooLarge is List's error for a lock with more nodes, or more data in
// them, than its Limits allow.
var ErrTooLarge = errors.New("more than gocurator reads")

// List returns the participants of the lock, semaphore or election at path,
// holders first, each side in queue order. A path that does not exist has
// none. maxLeases, if above 0, is a semaphore's number of leases: lease
// nodes after the first maxLeases wait; otherwise every lease node counts
// as held. Past lim, it returns an error wrapping ErrTooLarge.
func List(ctx context.Context, c *framework.Client, path string, maxLeases int, lim Limits) ([]Participant, error) {
	r := &reader{c: c, path: path, lim: lim}
	children, _, err := c.Children(ctx, path)
	if errors.Is(err, framework.ErrNoNode) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	if err := r.count(path, len(children)); err != nil {
		return nil, err
	}
	var names []string
	semaphore := false
	for _, n := range children {
		if n == locks.SemaphoreLeaseDir || n == locks.SemaphoreLockDir {
			semaphore = true
		}
	}
	if !semaphore {
		names = sortBySequence(children)
		return r.read(ctx, "", names, queueStates(names))
	}
	leases, err := r.listSorted(ctx, locks.SemaphoreLeaseDir)
	if err != nil {
		return nil, err
	}
	states := make([]State, len(leases))
	held := 0
	for i, name := range leases {
		switch _, ok := key(name); {
		case !ok:
			states[i] = Unknown
		case maxLeases > 0 && held >= maxLeases:
			states[i] = Waits
		default:
			states[i] = Holds
			held++
		}
	}
	holding, err := r.read(ctx, locks.SemaphoreLeaseDir, leases, states)
	if err != nil {
		return nil, err
	}
	// Acquirers queue on the semaphore's lock; whoever holds that lock is
	// still acquiring, and waits too.
	queued, err := r.listSorted(ctx, locks.SemaphoreLockDir)
	if err != nil {
		return nil, err
	}
	states = make([]State, len(queued))
	for i, name := range queued {
		states[i] = Waits
		if _, ok := key(name); !ok {
			states[i] = Unknown
		}
	}
	waiting, err := r.read(ctx, locks.SemaphoreLockDir, queued, states)
	if err != nil {
		return nil, err
	}
	return append(holding, waiting...), nil
}

// reader reads a lock's nodes within its limits.
type reader struct {
	c     *framework.Client
	path  string
	lim   Limits
	nodes int // listed so far
	bytes int // of data read so far
}

// count adds n nodes listed in dir, and fails past the limit.
func (r *reader) count(dir string, n int) error {
	r.nodes += n
	if r.nodes > r.lim.MaxNodes {
		return fmt.Errorf("%w: %s has %d nodes (%d in all so far), and gocurator reads at most %d", ErrTooLarge, dir, n, r.nodes, r.lim.MaxNodes)
	}
	return nil
}

// listSorted returns sub's children in queue order; none if it is gone.
func (r *reader) listSorted(ctx context.Context, sub string) ([]string, error) {
	dir := framework.JoinPath(r.path, sub)
	children, _, err := r.c.Children(ctx, dir)
	if errors.Is(err, framework.ErrNoNode) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	if err := r.count(dir, len(children)); err != nil {
		return nil, err
	}
	return sortBySequence(children), nil
}

// read reads each node's data and stat; a node gone since the listing is
// left out. sub is the directory under path the names are in.
func (r *reader) read(ctx context.Context, sub string, names []string, states []State) ([]Participant, error) {
	dir := r.path
	if sub != "" {
		dir = framework.JoinPath(r.path, sub)
	}
	out := make([]Participant, 0, len(names))
	for i, name := range names {
		data, stat, err := r.c.Get(ctx, framework.JoinPath(dir, name))
		if errors.Is(err, framework.ErrNoNode) {
			continue
		}
		if err != nil {
			return nil, err
		}
		r.bytes += len(data)
		if r.bytes > r.lim.MaxTotal {
			return nil, fmt.Errorf("%w: the data of the nodes at %s passed %d bytes, and gocurator reads at most %d", ErrTooLarge, r.path, r.bytes, r.lim.MaxTotal)
		}
		size := len(data)
		if size > r.lim.MaxData {
			data = slices.Clone(data[:r.lim.MaxData]) // the rest is not kept
		}
		node := name
		if sub != "" {
			node = sub + "/" + name
		}
		out = append(out, Participant{
			Node: node, Kind: kindOf(name), State: states[i], Data: data, Size: size,
			Session: stat.EphemeralOwner, Created: time.UnixMilli(stat.Ctime),
		})
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].State == Holds && out[j].State != Holds })
	return out, nil
}

// queueStates says who holds in a lock's or an election's directory, as
// the recipes decide: the first node holds; with a read-write lock's
// nodes, a writer holds if it is first and a reader if no writer is ahead
// of it (a writer on the reader's own sequence is its downgraded write
// hold, which does not count).
func queueStates(names []string) []State {
	states := make([]State, len(names))
	firstWrite, first := "", true
	for i, name := range names {
		seq, ok := key(name)
		switch kind := kindOf(name); {
		case !ok:
			states[i] = Unknown
		case kind == "read":
			states[i] = Waits
			if firstWrite == "" || firstWrite == seq {
				states[i] = Holds
			}
		case first:
			states[i] = Holds
		default:
			states[i] = Waits
		}
		if ok {
			first = false
			if kindOf(name) == "write" && firstWrite == "" {
				firstWrite = seq
			}
		}
	}
	return states
}

// kindOf names a node's kind from the recipe's name in it.
func kindOf(name string) string {
	for _, k := range []struct{ marker, kind string }{
		{locks.WriteLockName, "write"}, {locks.ReadLockName, "read"},
		{"-" + locks.LeaseName, "lease"}, {"-latch-", "latch"}, {"-" + locks.MutexLockName, "lock"},
	} {
		if strings.Contains(name, k.marker) {
			return k.kind
		}
	}
	for _, prefix := range []string{locks.LeaseName, "latch-", locks.MutexLockName} {
		if strings.HasPrefix(name, prefix) { // without the protected prefix
			return strings.TrimSuffix(prefix, "-")
		}
	}
	return ""
}

// key returns a node's sort key, the text after the recipe's name in it
// as the recipes take it, and whether it is a participant's node: whether
// the key is a sequence number (driver.IsSequence). Another node neither
// holds nor blocks anyone.
func key(name string) (string, bool) {
	for _, marker := range []string{locks.WriteLockName, locks.ReadLockName, locks.LeaseName, "latch-", locks.MutexLockName} {
		if strings.Contains(name, marker) {
			k := driver.StandardFixForSorting(name, marker)
			return k, driver.IsSequence(k)
		}
	}
	return name, false
}

// sortBySequence sorts names as the recipes do: on their sequence numbers,
// as text, and the names that are not participants' after them.
func sortBySequence(names []string) []string {
	return driver.SortChildren(slices.Clone(names), "", func(name, _ string) string {
		k, _ := key(name)
		return k
	})
}
