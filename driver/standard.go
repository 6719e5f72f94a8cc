package driver

import (
	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/gocurator/curator/framework"
)

// Standard is Curator's StandardLockInternalsDriver: protected
// ephemeral-sequential nodes under container parents, sorted on the sequence
// number, the first maxLeases hold.
type Standard struct{}

// CreatesTheLock creates a protected ephemeral-sequential node at path, with
// missing parents as containers, as Curator does:
// P/_c_<uuid>-lock-NNNNNNNNNN.
func (Standard) CreatesTheLock(ctx context.Context, client *framework.Client, path string, data []byte) (string, error) {
	return client.Create(ctx, path, data,
		framework.WithMode(framework.EphemeralSequential),
		framework.WithProtection(),
		framework.WithContainerParents(),
	)
}

// GetsTheLock: held iff our index < maxLeases; otherwise watch the child
// maxLeases places ahead of us (the immediate predecessor for a mutex).
func (Standard) GetsTheLock(children []string, ourNode string, maxLeases int) (Result, error) {
	if maxLeases < 1 {
		return Result{}, fmt.Errorf("maxLeases %d: must be at least 1", maxLeases)
	}
	i := slices.Index(children, ourNode)
	if i < 0 {
		return Result{}, fmt.Errorf("%w: %s", ErrNodeMissing, ourNode)
	}
	if i < maxLeases {
		return Result{Held: true}, nil
	}
	return Result{Watch: children[i-maxLeases]}, nil
}

// FixForSorting is StandardFixForSorting.
func (Standard) FixForSorting(name, lockName string) string {
	return StandardFixForSorting(name, lockName)
}

// StandardFixForSorting returns the text after the last occurrence of
// lockName in name (the sequence number, for lock nodes), or name itself if
// lockName does not occur.
func StandardFixForSorting(name, lockName string) string {
	if i := strings.LastIndex(name, lockName); i >= 0 {
		return name[i+len(lockName):]
	}
	return name
}

// IsSequence reports whether key is a sequence number as ZooKeeper appends
// it to a sequential node's name: its parent's signed 32-bit counter,
// formatted %010d ("0000000042"; once the counter has passed 2147483647,
// "-2147483648" and up). A participant's node, sorted on the text after its
// lock name, always has one; a name whose key is not one was made by
// someone else, by hand or to block the lock.
func IsSequence(key string) bool {
	digits, neg := strings.CutPrefix(key, "-")
	switch {
	case !neg && len(digits) != 10: // n >= 0: ten digits
		return false
	case neg && len(digits) != 9 && len(digits) != 10: // n < 0: the sign and nine digits, or ten below -999999999
		return false
	}
	var n uint64
	for i := 0; i < len(digits); i++ {
		d := digits[i] - '0'
		if d > 9 {
			return false
		}
		n = n*10 + uint64(d)
	}
	switch {
	case !neg:
		return n < 1<<31
	case len(digits) == 9:
		return n >= 1
	}
	return n >= 1e9 && n <= 1<<31
}

// SortChildren sorts children in place by fix(child, lockName), compared as
// strings, as Curator compares them; the sort is stable, as Curator's is.
// Children whose key is not a sequence number (IsSequence) come last, among
// themselves in the same order: no participant made them, and they block
// no one. It returns children.
//
// Curator sorts such a node in with the others: one whose key sorts first
// (an empty or malformed sequence, "lock-" or "lock--1", or a name without
// the lock name that sorts before digits) blocks every Java participant
// for as long as it exists. Putting it last never lets more than maxLeases
// participants hold at once, Java's and Go's together: the participants'
// nodes keep Curator's order among themselves, a Java participant holds
// only if it is among the first maxLeases of the whole listing, and a Go
// one only if among the first maxLeases participants, so every holder is
// among the first maxLeases participants. A Go participant may then hold
// while Java ones stay blocked behind the foreign node; a name in the
// sequence format ("x-lock-0000000000") cannot be told from a participant's
// by its name, and queues as Curator queues it.
func SortChildren(children []string, lockName string, fix func(name, lockName string) string) []string {
	if sortBySequence(children, lockName, fix) {
		return children
	}
	type keyed struct {
		key     string
		foreign bool
		name    string
	}
	ks := make([]keyed, len(children))
	for i, c := range children {
		key := fix(c, lockName)
		ks[i] = keyed{key, !IsSequence(key), c}
	}
	slices.SortStableFunc(ks, func(a, b keyed) int {
		if a.foreign != b.foreign {
			if a.foreign {
				return 1
			}
			return -1
		}
		return strings.Compare(a.key, b.key)
	})
	for i, k := range ks {
		children[i] = k.name
	}
	return children
}

// sortBySequence is SortChildren for the usual case, where every key is a
// non-negative sequence number: ten-digit numbers compare as their text
// does, and each number packed with the child's position into one integer
// sorts much faster than text, ties kept in order. It reports false,
// leaving children as they were, if a key is not such a number.
func sortBySequence(children []string, lockName string, fix func(name, lockName string) string) bool {
	const posBits = 20 // positions below 2^20; sequence numbers below 2^31
	if len(children) >= 1<<posBits {
		return false
	}
	packed := make([]uint64, len(children))
	for i, c := range children {
		seq, ok := tenDigits(fix(c, lockName))
		if !ok || seq >= 1<<31 {
			return false
		}
		packed[i] = seq<<posBits | uint64(i)
	}
	slices.Sort(packed)
	names := slices.Clone(children)
	for i, p := range packed {
		children[i] = names[p&(1<<posBits-1)]
	}
	return true
}

// tenDigits parses a key of exactly ten ASCII digits.
func tenDigits(key string) (uint64, bool) {
	if len(key) != 10 {
		return 0, false
	}
	var n uint64
	for i := 0; i < 10; i++ {
		d := key[i] - '0'
		if d > 9 {
			return 0, false
		}
		n = n*10 + uint64(d)
	}
	return n, true
}
