package zkconn_test

import (
	"testing"

	"github.com/go-zookeeper/zk"

	"github.com/gocurator/curator/framework"
)

// The framework's names carry ZooKeeper's codes, which go-zookeeper sends as
// they are, and its digest ACL is the one ZooKeeper computes.
func TestFrameworkConstantsMatchGoZookeepers(t *testing.T) {
	for _, c := range []struct {
		name      string
		ours, zks int64
	}{
		{"Persistent", int64(framework.Persistent), zk.FlagPersistent},
		{"Ephemeral", int64(framework.Ephemeral), zk.FlagEphemeral},
		{"PersistentSequential", int64(framework.PersistentSequential), zk.FlagSequence},
		{"EphemeralSequential", int64(framework.EphemeralSequential), zk.FlagEphemeralSequential},
		{"Container", int64(framework.Container), zk.FlagContainer},
		{"PersistentWithTTL", int64(framework.PersistentWithTTL), zk.FlagTTL},
		{"PersistentSequentialWithTTL", int64(framework.PersistentSequentialWithTTL), zk.FlagPersistentSequentialWithTTL},
		{"PermRead", int64(framework.PermRead), zk.PermRead},
		{"PermWrite", int64(framework.PermWrite), zk.PermWrite},
		{"PermCreate", int64(framework.PermCreate), zk.PermCreate},
		{"PermDelete", int64(framework.PermDelete), zk.PermDelete},
		{"PermAdmin", int64(framework.PermAdmin), zk.PermAdmin},
		{"PermAll", int64(framework.PermAll), zk.PermAll},
		{"EventNodeCreated", int64(framework.EventNodeCreated), int64(zk.EventNodeCreated)},
		{"EventNodeDeleted", int64(framework.EventNodeDeleted), int64(zk.EventNodeDeleted)},
		{"EventNodeDataChanged", int64(framework.EventNodeDataChanged), int64(zk.EventNodeDataChanged)},
		{"EventNodeChildrenChanged", int64(framework.EventNodeChildrenChanged), int64(zk.EventNodeChildrenChanged)},
		{"EventNotWatching", int64(framework.EventNotWatching), int64(zk.EventNotWatching)},
	} {
		if c.ours != c.zks {
			t.Errorf("%s = %d, go-zookeeper's is %d", c.name, c.ours, c.zks)
		}
	}
	want := zk.DigestACL(zk.PermAll, "alice", "secret")[0]
	if got := framework.DigestACL(framework.PermAll, "alice", "secret"); len(got) != 1 || got[0] != framework.ACL(want) {
		t.Errorf("DigestACL = %+v, go-zookeeper's is %+v", got, want)
	}
}
