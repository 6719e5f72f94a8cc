package framework_test

import (
	"errors"
	"net"
	"syscall"
	"testing"
)

// Waiting for a client that cannot connect says why its last attempt
// failed, whatever the failure: here, no server on the port.
func TestNotConnectedSaysWhy(t *testing.T) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := l.Addr().String()
	l.Close() // nothing listens there now
	if err := failedConnect(t, addr); !errors.Is(err, syscall.ECONNREFUSED) {
		t.Fatalf("waiting for a client with no server: %v, want it to wrap ECONNREFUSED", err)
	}
}
