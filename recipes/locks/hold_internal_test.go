package locks

import (
	"context"
	"testing"
)

// A revocation request read just as the last Release begins does not call
// the callback: it would ask to release a hold already released, and
// Release, which waits for the monitor, could wait on the callback forever.
func TestNoRevocationCallbackOnceReleaseBegins(t *testing.T) {
	h := &Hold{count: 1, unlisten: func() {}, release: func(context.Context, string) error { return nil }}
	if !h.beginRevoke() {
		t.Fatal("a held hold refused its revocation callback")
	}
	h.endRevoke()
	if err := h.Release(context.Background()); err != nil {
		t.Fatal(err)
	}
	if h.beginRevoke() {
		t.Fatal("revocation callback allowed after Release began")
	}
}
