package queue

import (
	"bytes"
	"encoding/hex"
	"errors"
	"math"
	"slices"
	"testing"
	"time"
)

// The node format, checked against bytes Curator 5.4 wrote
// (curator-formats.md: "item-0" alone) and round trips.
func TestItemFormat(t *testing.T) {
	want, _ := hex.DecodeString("00010001" + "01" + "00000006" + hex.EncodeToString([]byte("item-0")) + "02")
	if got := encodeItems([][]byte{[]byte("item-0")}); !bytes.Equal(got, want) {
		t.Fatalf("encode item-0: %x, want %x", got, want)
	}
	for _, items := range [][][]byte{{}, {{}}, {[]byte("a"), {}, []byte("ccc")}} {
		got, err := decodeItems(encodeItems(items))
		if err != nil || len(got) != len(items) {
			t.Fatalf("round trip of %q: %q, %v", items, got, err)
		}
		for i := range items {
			if !bytes.Equal(got[i], items[i]) {
				t.Fatalf("round trip of %q: %q", items, got)
			}
		}
	}
	// Trailing bytes after the end opcode are ignored, as Curator's reader does.
	if got, err := decodeItems(append(encodeItems([][]byte{[]byte("x")}), 9, 9)); err != nil || len(got) != 1 {
		t.Fatalf("trailing bytes: %q, %v", got, err)
	}
	for name, b := range map[string][]byte{
		"empty":        {},
		"bad version":  {0, 1, 0, 2, 2},
		"no end":       {0, 1, 0, 1},
		"bad opcode":   {0, 1, 0, 1, 7},
		"short length": {0, 1, 0, 1, 1, 0, 0},
		"negative":     {0, 1, 0, 1, 1, 0xff, 0xff, 0xff, 0xff, 2},
		"too long":     {0, 1, 0, 1, 1, 0, 0, 0, 5, 'a', 2},
		"json":         []byte(`{"item":1}`),
	} {
		if _, err := decodeItems(b); !errors.Is(err, errCorrupt) {
			t.Errorf("%s: %v, want errCorrupt", name, err)
		}
	}
}

// FuzzDecodeItems: the decoder never panics, and what it accepts encodes
// back to a prefix of its input.
func FuzzDecodeItems(f *testing.F) {
	f.Add(encodeItems([][]byte{[]byte("item-0")}))
	f.Add(encodeItems([][]byte{{}, []byte("ab")}))
	f.Fuzz(func(t *testing.T, b []byte) {
		items, err := decodeItems(b)
		if err != nil {
			return
		}
		if enc := encodeItems(items); !bytes.HasPrefix(b, enc) {
			t.Fatalf("decoded %q from %x, which encodes as %x", items, b, enc)
		}
	})
}

// Node names, checked against Curator 5.4's (curator-formats.md and its
// sources: priorityToString, epochToString, fixId, parseId, getEpoch).
func TestNodeNames(t *testing.T) {
	for p, want := range map[int32]string{0: "queue-100000000", 5: "queue-100000005", -1: "queue-0FFFFFFFF",
		2147483647: "queue-17FFFFFFF", -2147483648: "queue-080000000"} {
		if got := priorityPrefix(p); got != want {
			t.Errorf("priority %d: %s, want %s", p, got, want)
		}
	}
	if got := delayPrefix(0x1A21711A9FC); got != "queue-|1A21711A9FC|" {
		t.Errorf("delay: %s", got)
	}
	if got := delayPrefix(255); got != "queue-|000000FF|" {
		t.Errorf("delay of a small epoch: %s", got)
	}
	if got := idPrefix("a/b|c"); got != "queue-|a_b_c|" {
		t.Errorf("id: %s", got)
	}
	if id, cleaned, ok := parseID("queue-|id-0|0000000000"); !ok || id != "id-0" || cleaned != "queue-0000000000" {
		t.Errorf("parseID: %q %q %v", id, cleaned, ok)
	}
	if _, cleaned, ok := parseID("queue-0000000007"); ok || cleaned != "queue-0000000007" {
		t.Errorf("parseID of a name without an id: %q %v", cleaned, ok)
	}
	for name, want := range map[string]int64{"queue-|1A21711A9FC|0000000000": 0x1A21711A9FC, "queue-0000000001": 0,
		"queue-||0000000001": 0, "queue-|zz|0000000001": 0, "queue-|a|b|FF|0000000001": 0xFF} {
		if got := dueTime(name); got != want {
			t.Errorf("dueTime(%s) = %d, want %d", name, got, want)
		}
	}
	for name, want := range map[string]string{"queue-0000000003": "queue-", "queue-|x|0000000003": "queue-|x|",
		"queue-100000005" + "0000000003": "queue-100000005", "qn-0000000001": "queue-", "queue-abc": "queue-"} {
		if got := requeuePrefix(name); got != want {
			t.Errorf("requeuePrefix(%s) = %s, want %s", name, got, want)
		}
	}
}

// The orders: priority by string (lower first, negatives before), ids by
// sequence, delays by due time and then sequence.
// How long a consumer waits for an item: never a wrapped, negative wait for
// one due so far ahead that its milliseconds overflow a Duration (Java's
// Long.MAX_VALUE, year 9999), which would deliver it at once.
func TestUntilDue(t *testing.T) {
	now := time.Date(2026, 11, 27, 0, 0, 0, 0, time.UTC).UnixMilli()
	year9999 := time.Date(9999, 1, 1, 0, 0, 0, 0, time.UTC).UnixMilli()
	for _, tc := range []struct {
		due  int64
		want time.Duration
	}{
		{now - 1, 0},
		{now, 0},
		{now + 1500, 1500 * time.Millisecond},
		{year9999, math.MaxInt64},
		{math.MaxInt64, math.MaxInt64},
		{dueTime("queue-|7FFFFFFFFFFFFFFF|0000000001"), math.MaxInt64},
	} {
		if got := untilDue(tc.due, now); got != tc.want {
			t.Errorf("untilDue(%d) = %v, want %v", tc.due, got, tc.want)
		}
	}
}

func TestSortOrders(t *testing.T) {
	pr := []string{priorityPrefix(5) + "0000000000", priorityPrefix(-1) + "0000000001", priorityPrefix(0) + "0000000002",
		priorityPrefix(-7) + "0000000003", priorityPrefix(5) + "0000000004", priorityPrefix(1<<30) + "0000000005"}
	got := slices.Clone(pr)
	priorityKind().sort(got)
	want := []string{pr[3], pr[1], pr[2], pr[0], pr[4], pr[5]}
	if !slices.Equal(got, want) {
		t.Errorf("priority order %v, want %v", got, want)
	}
	ids := []string{"queue-|b|0000000002", "queue-|z|0000000000", "queue-|a|0000000001"}
	idKind().sort(ids)
	if !slices.Equal(ids, []string{"queue-|z|0000000000", "queue-|a|0000000001", "queue-|b|0000000002"}) {
		t.Errorf("id order %v", ids)
	}
	now := time.Now().UnixMilli()
	ds := []string{delayPrefix(now+100) + "0000000000", delayPrefix(now) + "0000000002", delayPrefix(now) + "0000000001", "queue-0000000003"}
	delayKind().sort(ds)
	if !slices.Equal(ds, []string{"queue-0000000003", delayPrefix(now) + "0000000001", delayPrefix(now) + "0000000002", delayPrefix(now+100) + "0000000000"}) {
		t.Errorf("delay order %v", ds)
	}
}

// A walk tries every item once: in order while nothing is missed, and
// from a random untried item after a miss when it spreads.
func TestWalk(t *testing.T) {
	for _, spread := range []bool{false, true} {
		for n := 1; n < 40; n++ {
			w := newWalk(n, spread)
			seen := make([]bool, n)
			var order []int
			for i := range n {
				if seen[w.at] {
					t.Fatalf("spread %v, n %d: item %d tried twice (order %v)", spread, n, w.at, order)
				}
				seen[w.at] = true
				order = append(order, w.at)
				w.step(i%3 == 1) // a miss now and then
			}
			if !spread && !slices.IsSorted(order) {
				t.Fatalf("a walk without spread went out of order: %v", order)
			}
		}
		w := newWalk(5, spread)
		for i := range 5 {
			if w.at != i {
				t.Fatalf("spread %v: with no miss, item %d came %d-th", spread, w.at, i)
			}
			w.step(false)
		}
	}
}
