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
		return Result{}, fmt.Errorf("driver: maxLeases %d: must be at least 1", maxLeases)
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

// SortChildren sorts children in place by fix(child, lockName), compared as
// strings; the sort is stable, as Curator's is. It returns children.
func SortChildren(children []string, lockName string, fix func(name, lockName string) string) []string {
	if sortBySequence(children, lockName, fix) {
		return children
	}
	type keyed struct{ key, name string }
	ks := make([]keyed, len(children))
	for i, c := range children {
		ks[i] = keyed{fix(c, lockName), c}
	}
	slices.SortStableFunc(ks, func(a, b keyed) int { return strings.Compare(a.key, b.key) })
	for i, k := range ks {
		children[i] = k.name
	}
	return children
}

// sortBySequence is SortChildren for the usual case, where every key is a
// ten-digit sequence number: numbers of one width compare as their text
// does, and each number packed with the child's position into one integer
// sorts much faster than text, ties kept in order. It reports false,
// leaving children as they were, if a key is not such a number.
func sortBySequence(children []string, lockName string, fix func(name, lockName string) string) bool {
	const posBits = 20 // positions below 2^20; sequence numbers below 10^10 < 2^34
	if len(children) >= 1<<posBits {
		return false
	}
	packed := make([]uint64, len(children))
	for i, c := range children {
		seq, ok := tenDigits(fix(c, lockName))
		if !ok {
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
