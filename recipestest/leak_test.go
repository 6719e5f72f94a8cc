package recipestest_test

import (
	"testing"

	"github.com/gocurator/curator/framework"
	"github.com/gocurator/curator/recipes/locks"
	"github.com/gocurator/curator/recipestest"
)

// LeakCheck, called first, checks after the kit's own cleanups: a test
// whose client holds a lock when it returns passes, because the client is
// closed before the check (with a deferred VerifyNone it would not).
func TestLeakCheckRunsAfterTheKitsCleanups(t *testing.T) {
	recipestest.LeakCheck(t)
	c := recipestest.NewClient(t, server.ConnectString(), framework.WithNamespace(recipestest.Namespace(t)))
	m, err := locks.NewMutex(c, "/lock")
	if err != nil {
		t.Fatal(err)
	}
	h, err := m.Acquire(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	_ = h.Lost() // starts the hold's monitor, a goroutine that runs until the client closes, after the test function
}
