package locks

import (
	"testing"
)

// A revocation request read just as the last Release begins does not call
// the callback: it would ask to release a hold already released, and
// Release, which waits for the monitor, could wait on the callback forever.
func TestNoRevocationCallbackOnceReleaseBegins(t *testing.T) {
	h := &Hold{count: 1}
	if !h.beginRevoke() {
		t.Fatal("a held hold refused its revocation callback")
	}
	h.endRevoke()
	h.mu.Lock()
	h.released = true // what the last Release sets first, under h.mu
	h.mu.Unlock()
	if h.beginRevoke() {
		t.Fatal("revocation callback allowed after Release began")
	}
}
