package lockview

import (
	"slices"
	"testing"
)

func TestQueueOrderAndStates(t *testing.T) {
	for _, tc := range []struct {
		name   string
		nodes  []string // as listed, in any order
		order  []string // in queue order
		states []State
	}{
		{"mutex",
			[]string{"_c_b-lock-0000000003", "_c_a-lock-0000000001", "_c_c-lock-0000000002"},
			[]string{"_c_a-lock-0000000001", "_c_c-lock-0000000002", "_c_b-lock-0000000003"},
			[]State{Holds, Waits, Waits}},
		{"readers ahead of a writer hold, the ones behind it wait",
			[]string{"_c_w-__WRIT__0000000003", "_c_r-__READ__0000000001", "_c_s-__READ__0000000002", "_c_t-__READ__0000000004"},
			[]string{"_c_r-__READ__0000000001", "_c_s-__READ__0000000002", "_c_w-__WRIT__0000000003", "_c_t-__READ__0000000004"},
			[]State{Holds, Holds, Waits, Waits}},
		{"a writer first holds",
			[]string{"_c_w-__WRIT__0000000001", "_c_r-__READ__0000000002"},
			[]string{"_c_w-__WRIT__0000000001", "_c_r-__READ__0000000002"},
			[]State{Holds, Waits}},
		{"a downgraded read node shares the write node's sequence",
			[]string{"_c_w-__WRIT__0000000001", "_c_w-__READ__0000000001", "_c_x-__WRIT__0000000002"},
			[]string{"_c_w-__WRIT__0000000001", "_c_w-__READ__0000000001", "_c_x-__WRIT__0000000002"},
			[]State{Holds, Holds, Waits}},
		{"a node without a sequence sorts last and is unknown",
			[]string{"stray", "_c_a-latch-0000000007"},
			[]string{"_c_a-latch-0000000007", "stray"},
			[]State{Holds, Unknown}},
		{"crafted names sort after the participants, and neither hold nor block, as the recipes decide",
			[]string{"x-lock-", "_c_b-lock-0000000002", "x-lock--1", "!", "_c_a-lock-0000000001"},
			[]string{"_c_a-lock-0000000001", "_c_b-lock-0000000002", "x-lock-", "!", "x-lock--1"},
			[]State{Holds, Waits, Unknown, Unknown, Unknown}},
		{"a crafted write node does not keep readers out",
			[]string{"x-__WRIT__", "_c_r-__READ__0000000003"},
			[]string{"_c_r-__READ__0000000003", "x-__WRIT__"},
			[]State{Holds, Unknown}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			order := sortBySequence(tc.nodes)
			if !slices.Equal(order, tc.order) {
				t.Fatalf("order %q, want %q", order, tc.order)
			}
			if states := queueStates(order); !slices.Equal(states, tc.states) {
				t.Fatalf("states %q, want %q", states, tc.states)
			}
		})
	}
}

func TestKindOf(t *testing.T) {
	for name, want := range map[string]string{
		"_c_8d3f-lock-0000000001":    "lock",
		"_c_8d3f-latch-0000000001":   "latch",
		"_c_8d3f-lease-0000000001":   "lease",
		"_c_8d3f-__READ__0000000001": "read",
		"_c_8d3f-__WRIT__0000000001": "write",
		"lock-0000000001":            "lock",
		"latch-0000000001":           "latch",
		"something-else-0000000001":  "",
		"_c_8d3f-blocked-0000000001": "",
	} {
		if got := kindOf(name); got != want {
			t.Errorf("kindOf(%q) = %q, want %q", name, got, want)
		}
	}
}
