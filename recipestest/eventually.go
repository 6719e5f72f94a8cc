package recipestest

import (
	"testing"
	"time"
)

// EventuallyLimit bounds Eventually: it catches a hang, and asserts no
// speed.
const EventuallyLimit = 60 * time.Second

// Eventually polls cond until it holds, for what no event announces: a
// container the server reaps on its own schedule, a delete the client
// finishes in the background. cond returns whether it holds and, if not,
// what it saw instead, for the failure message. Eventually fails tb if
// cond still does not hold after EventuallyLimit. Where an event can be
// awaited (a watch, a connection state), wait for it instead.
func Eventually(tb testing.TB, what string, cond func() (ok bool, saw string)) {
	tb.Helper()
	deadline := time.Now().Add(EventuallyLimit)
	for {
		ok, saw := cond()
		if ok {
			return
		}
		if time.Now().After(deadline) {
			tb.Fatalf("waited %v for %s; saw %s", EventuallyLimit, what, saw)
		}
		time.Sleep(20 * time.Millisecond)
	}
}
