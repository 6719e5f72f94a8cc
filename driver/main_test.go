package driver_test

import (
	"testing"

	"go.uber.org/goleak"
)

// The driver's tests need no ZooKeeper (and so no Java): the drivers are
// run against a real server by recipestest's conformance tests.
func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }
