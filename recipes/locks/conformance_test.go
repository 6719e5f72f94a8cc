package locks_test

import (
	"testing"

	"github.com/gocurator/curator/driver"
	"github.com/gocurator/curator/recipes/locks"
	"github.com/gocurator/curator/recipestest"
)

// Every driver in this repository passes the conformance suite. The
// read-write lock's reader driver is not in it: readers share the lock
// whatever maxLeases says; rwlock_test.go checks it.
func TestDriversConform(t *testing.T) {
	t.Run("standard", func(t *testing.T) {
		recipestest.TestLockDriver(t, server.ConnectString(), driver.Standard{}, locks.MutexLockName)
	})
	t.Run("read-write-writer", func(t *testing.T) {
		recipestest.TestLockDriver(t, server.ConnectString(), locks.WriteDriver, locks.WriteLockName)
	})
	t.Run("standard-with-standard", func(t *testing.T) {
		recipestest.TestLockDriverWithStandard(t, server.ConnectString(), driver.Standard{}, locks.MutexLockName)
	})
	t.Run("writer-with-standard", func(t *testing.T) {
		recipestest.TestLockDriverWithStandard(t, server.ConnectString(), locks.WriteDriver, locks.WriteLockName)
	})
}
