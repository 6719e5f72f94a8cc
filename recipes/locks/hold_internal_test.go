package locks

import (
	"context"
	"errors"
	"fmt"
	"testing"

	"github.com/gocurator/curator/framework"
	"github.com/gocurator/curator/listener"
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

// Every way a release can end: the loss it reports and the error it
// returns.
func TestReleaseOutcome(t *testing.T) {
	gone := fmt.Errorf("%w: node /l/n was already gone", ErrLockLost)
	before := fmt.Errorf("%w: node /l/n was deleted", ErrLockLost)
	suspended := &framework.SessionError{State: listener.Suspended}
	refused := framework.ErrNoAuth
	for _, tc := range []struct {
		name             string
		lost, err, ended error
		cut              bool
		wantLost         error // matched with errors.Is, nil: none
		wantErr          error
	}{
		{"deleted", nil, nil, nil, false, nil, nil},
		{"deleted, lost before", before, nil, nil, false, before, nil},
		{"the node was gone", nil, gone, nil, false, gone, nil},
		{"the node was gone, lost before: the first loss stays", before, gone, nil, false, before, nil},
		{"refused", nil, refused, nil, false, nil, refused},
		{"refused, lost before", before, refused, nil, false, before, refused},
		{"cut short, lost before", before, context.Canceled, nil, true, before, nil},
		{"the session ended during it", nil, context.Canceled, suspended, true, framework.ErrConnectionLoss, nil},
		{"the session ended, the caller's context too", nil, context.Canceled, suspended, false, framework.ErrConnectionLoss, context.Canceled},
		{"the connection was down", nil, context.Canceled, nil, true, nil, framework.ErrConnectionLoss},
	} {
		lost, err := releaseOutcome(tc.lost, tc.err, tc.ended, tc.cut, "/l/n")
		if (lost == nil) != (tc.wantLost == nil) || tc.wantLost != nil && (!errors.Is(lost, tc.wantLost) || !errors.Is(lost, ErrLockLost)) {
			t.Errorf("%s: loss %v, want %v", tc.name, lost, tc.wantLost)
		}
		if (err == nil) != (tc.wantErr == nil) || tc.wantErr != nil && !errors.Is(err, tc.wantErr) {
			t.Errorf("%s: error %v, want %v", tc.name, err, tc.wantErr)
		}
	}
}
