package framework_test

import (
	"errors"
	"net"
	"os"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/gocurator/curator/framework"
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

// A server that accepts the connection and never answers the session
// handshake (a restarting ZooKeeper now and then does) is given up after
// the session timeout divided by the number of servers, as Java's client
// does, and the wait says so. go-zookeeper's own bound, ten times two
// thirds of the session timeout (67 s here), outlasts the test's context.
func TestSilentServerIsGivenUp(t *testing.T) {
	silent := func() string {
		l, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		var held []net.Conn
		done := make(chan struct{})
		go func() { // accepts, never reads; ends when l closes
			defer close(done)
			for {
				c, err := l.Accept()
				if err != nil {
					return
				}
				held = append(held, c)
			}
		}()
		t.Cleanup(func() {
			l.Close()
			<-done
			for _, c := range held {
				c.Close()
			}
		})
		return l.Addr().String()
	}
	addrs := silent() + "," + silent()
	err := failedConnectLogging(t, "authentication failed", addrs, framework.WithSessionTimeout(10*time.Second))
	if !errors.Is(err, os.ErrDeadlineExceeded) || !strings.Contains(err.Error(), "did not answer the session handshake within 5s") {
		t.Fatalf("waiting for a client of silent servers: %v, want the handshake given up after 5s", err)
	}
}
