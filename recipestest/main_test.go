package recipestest_test

import (
	"testing"

	"github.com/gocurator/curator/recipestest"
	"github.com/gocurator/curator/zkharness"
)

// server is the package's shared ZooKeeper.
var server *zkharness.Server

func TestMain(m *testing.M) { recipestest.RunWithServer(m, &server) }
