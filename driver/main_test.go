package driver_test

import (
	"sync"
	"testing"

	"github.com/gocurator/curator/recipestest"
)

// The package's shared ZooKeeper starts with the first test that needs it,
// so that the unit and fuzz tests run without Java.
var shared struct {
	once   sync.Once
	server *recipestest.Server
	err    error
}

func TestMain(m *testing.M) {
	recipestest.VerifyTestMain(m, func() {
		if shared.server != nil {
			shared.server.Close()
		}
	})
}

// connectString starts the shared server if need be and returns its address.
// tb is nil in examples, which panic if the server does not start.
func connectString(tb testing.TB) string {
	shared.once.Do(func() { shared.server, shared.err = recipestest.NewServer() })
	if shared.err != nil {
		if tb == nil {
			panic(shared.err)
		}
		tb.Fatal(shared.err)
	}
	return shared.server.ConnectString()
}
