package framework_test

import (
	"testing"

	"github.com/gocurator/curator/framework"
	"github.com/gocurator/curator/zkharness"
)

// The client reads its connection through a buffer: go-zookeeper reads each
// frame in two reads, its length and then its body, and through the buffer
// one read from the socket brings both.
func TestClientReadsThroughABuffer(t *testing.T) {
	cnt := zkharness.NewCounter()
	c := newClient(t, framework.WithDialer(cnt.Dialer(nil)))
	ctx := ctxT(t)
	reads, reqs := cnt.Reads(), cnt.Requests()
	for range 100 {
		if _, _, err := c.Exists(ctx, "/x"); err != nil {
			t.Fatal(err)
		}
	}
	replies := cnt.Requests() - reqs
	if got := cnt.Reads() - reads; 2*got >= 3*replies {
		t.Fatalf("%d reads from the socket for %d replies, want well under 2 a reply", got, replies)
	}
}
