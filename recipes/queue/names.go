package queue

import (
	"cmp"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"
	"time"
)

// Node names, as Curator 5 makes them. Every item node is sequential: the
// server appends a 10-digit sequence number to the prefix.
const (
	itemPrefix   = "queue-" // a Queue's items: queue-NNNNNNNNNN
	simplePrefix = "qn-"    // a Simple's items: qn-NNNNNNNNNN
	separator    = "|"      // around an IDQueue's id and a DelayQueue's due time
	seqDigits    = 10
)

// kind is what sets the queue types apart: how their node names sort, and
// when an item is due.
type kind struct {
	name string // for errors and logs: "queue", "id queue", ...
	// sort orders a listing's item names in the order they are delivered.
	sort func(names []string)
	// due returns when the item is due, in epoch milliseconds; 0 (or any
	// time past) for now.
	due func(name string) int64
	// refresh: after minItems items the consumer lists the queue again if
	// it changed (Curator's refreshOnWatch).
	refresh bool
	// spread: a consumer that finds an item taken by another goes on at
	// a random item of its listing rather than the next, so that
	// consumers of one queue spread over it instead of contending for
	// each item in turn. Only for kinds without an order beyond first in,
	// first out, which a single consumer (that never finds an item taken)
	// keeps.
	spread bool
}

// The kinds of the queue types.
func fifoKind() kind {
	return kind{name: "queue", sort: slices.Sort[[]string], due: notDelayed, spread: true}
}
func idKind() kind {
	return kind{name: "id queue", sort: sortByCleanedName, due: notDelayed, spread: true}
}
func priorityKind() kind {
	return kind{name: "priority queue", sort: slices.Sort[[]string], due: notDelayed, refresh: true}
}
func delayKind() kind { return kind{name: "delay queue", sort: sortByDueTime, due: dueTime} }

func notDelayed(string) int64 { return 0 }

// priorityPrefix is the name prefix of an item of priority p: "1" for
// p >= 0 and "0" below, then p's unsigned 32-bit value as 8 upper-case hex
// digits, so that a string sort puts lower priorities first
// (DistributedPriorityQueue.priorityToString).
func priorityPrefix(p int32) string {
	sign := "1"
	if p < 0 {
		sign = "0"
	}
	return fmt.Sprintf("%s%s%08X", itemPrefix, sign, uint32(p))
}

// delayPrefix is the name prefix of an item due at epoch milliseconds ms:
// its hex value, upper case and at least 8 digits, between separators
// (DistributedDelayQueue.epochToString).
func delayPrefix(ms int64) string {
	return fmt.Sprintf("%s%s%08X%s", itemPrefix, separator, ms, separator)
}

// dueTime reads the due time between the last two separators of a delay
// queue's item name, as Curator's getEpoch: base-16 epoch milliseconds, a
// missing or bad value reading as 0, due now.
func dueTime(name string) int64 {
	i2 := strings.LastIndex(name, separator)
	i1 := -1
	if i2 > 0 {
		i1 = strings.LastIndex(name[:i2], separator)
	}
	if i1 <= 0 || i2 <= i1+1 {
		return 0
	}
	ms, err := strconv.ParseInt(name[i1+1:i2], 16, 64)
	if err != nil {
		return 0
	}
	return ms
}

// untilDue returns how long from now until due (both epoch milliseconds),
// 0 if due has come. A wait longer than a Duration holds (about 292 years:
// Java's Long.MAX_VALUE, a common "never", say) is the longest one, never a
// wrapped, negative one that would deliver the item at once.
func untilDue(due, now int64) time.Duration {
	if due <= now {
		return 0
	}
	ms := uint64(due) - uint64(now) // due > now: no overflow, whatever their signs
	if ms > uint64(math.MaxInt64/int64(time.Millisecond)) {
		return math.MaxInt64
	}
	return time.Duration(ms) * time.Millisecond
}

// sortByDueTime orders a delay queue's items by due time, as Curator's, and
// those due at the same millisecond by sequence number (Curator leaves them
// in the order the server listed them).
func sortByDueTime(names []string) {
	slices.SortStableFunc(names, func(a, b string) int {
		return cmp.Or(cmp.Compare(dueTime(a), dueTime(b)), strings.Compare(sequence(a), sequence(b)), strings.Compare(a, b))
	})
}

// fixID is an id as an IDQueue's node name carries it: "/" and "|" become
// "_" (DistributedIdQueue.fixId).
func fixID(id string) string {
	return strings.NewReplacer("/", "_", separator, "_").Replace(id)
}

// idPrefix is the name prefix of an item with this id.
func idPrefix(id string) string { return itemPrefix + separator + fixID(id) + separator }

// parseID splits an IDQueue's item name into its id and the name without
// the id section (DistributedIdQueue.parseId); ok is false for a name
// without two separators, whose id and cleaned name are the name itself.
func parseID(name string) (id, cleaned string, ok bool) {
	i1 := strings.Index(name, separator)
	if i1 < 0 {
		return name, name, false
	}
	i2 := strings.Index(name[i1+1:], separator)
	if i2 < 0 {
		return name, name, false
	}
	i2 += i1 + 1
	return name[i1+1 : i2], name[:i1] + name[i2+1:], true
}

// sortByCleanedName orders an IDQueue's items by their names without the
// id section: by sequence number, first in first out.
func sortByCleanedName(names []string) {
	slices.SortStableFunc(names, func(a, b string) int {
		_, ca, _ := parseID(a)
		_, cb, _ := parseID(b)
		return strings.Compare(ca, cb)
	})
}

// sequence returns the 10-digit sequence number that ends a sequential
// node's name, or "" if it does not end in one.
func sequence(name string) string {
	if len(name) < seqDigits {
		return ""
	}
	s := name[len(name)-seqDigits:]
	for _, c := range s {
		if c < '0' || c > '9' {
			return ""
		}
	}
	return s
}

// requeuePrefix is the prefix a requeued item is created with: its own
// name without the sequence number, so that it keeps its id, priority or
// due time. (Curator keeps only an id; it requeues a priority or delay
// item as a plain queue- node.)
func requeuePrefix(name string) string {
	if sequence(name) == "" || !strings.HasPrefix(name, itemPrefix) {
		return itemPrefix
	}
	return name[:len(name)-seqDigits]
}
