package framework

import (
	"testing"

	"github.com/go-zookeeper/zk"
)

// The framework's own names carry ZooKeeper's codes, which go-zookeeper
// sends as they are; Stat and ACL keep go-zookeeper's layouts, so that they
// convert without a copy (statOf) or field by field (zkACLs).
func TestOwnTypesMatchGoZookeepers(t *testing.T) {
	for _, c := range []struct {
		name      string
		ours, zks int64
	}{
		{"Persistent", int64(Persistent), zk.FlagPersistent},
		{"Ephemeral", int64(Ephemeral), zk.FlagEphemeral},
		{"PersistentSequential", int64(PersistentSequential), zk.FlagSequence},
		{"EphemeralSequential", int64(EphemeralSequential), zk.FlagEphemeralSequential},
		{"Container", int64(Container), zk.FlagContainer},
		{"PersistentWithTTL", int64(PersistentWithTTL), zk.FlagTTL},
		{"PersistentSequentialWithTTL", int64(PersistentSequentialWithTTL), zk.FlagPersistentSequentialWithTTL},
		{"PermRead", int64(PermRead), zk.PermRead},
		{"PermWrite", int64(PermWrite), zk.PermWrite},
		{"PermCreate", int64(PermCreate), zk.PermCreate},
		{"PermDelete", int64(PermDelete), zk.PermDelete},
		{"PermAdmin", int64(PermAdmin), zk.PermAdmin},
		{"PermAll", int64(PermAll), zk.PermAll},
		{"EventNodeCreated", int64(EventNodeCreated), int64(zk.EventNodeCreated)},
		{"EventNodeDeleted", int64(EventNodeDeleted), int64(zk.EventNodeDeleted)},
		{"EventNodeDataChanged", int64(EventNodeDataChanged), int64(zk.EventNodeDataChanged)},
		{"EventNodeChildrenChanged", int64(EventNodeChildrenChanged), int64(zk.EventNodeChildrenChanged)},
		{"EventNotWatching", int64(EventNotWatching), int64(zk.EventNotWatching)},
	} {
		if c.ours != c.zks {
			t.Errorf("%s = %d, go-zookeeper's is %d", c.name, c.ours, c.zks)
		}
	}
	zs := &zk.Stat{Czxid: 1, Mzxid: 2, Ctime: 3, Mtime: 4, Version: 5, Cversion: 6, Aversion: 7, EphemeralOwner: 8, DataLength: 9, NumChildren: 10, Pzxid: 11}
	if s := statOf(zs); *s != (Stat{1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11}) {
		t.Errorf("statOf: %+v", *s)
	}
	digest := DigestACL(PermAll, "alice", "secret")
	if got := zkACLs(digest); len(got) != 1 || got[0] != zk.DigestACL(zk.PermAll, "alice", "secret")[0] {
		t.Errorf("zkACLs(DigestACL) = %+v", got)
	}
}
