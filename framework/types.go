package framework

import (
	"crypto/sha1"
	"encoding/base64"
	"net"
	"strconv"
	"time"

	"github.com/gocurator/curator/internal/zkconn"
)

// Stat is a node's metadata, as ZooKeeper keeps it.
type Stat struct {
	Czxid          int64 // the zxid of the change that created the node
	Mzxid          int64 // the zxid of the change that last modified its data
	Ctime          int64 // when it was created, in milliseconds since the epoch
	Mtime          int64 // when its data was last modified, in milliseconds since the epoch
	Version        int32 // changes to its data
	Cversion       int32 // changes to its children
	Aversion       int32 // changes to its ACL
	EphemeralOwner int64 // the session that owns an ephemeral node; 0 for any other
	DataLength     int32 // the length of its data
	NumChildren    int32 // its number of children
	Pzxid          int64 // the zxid of the change that last added or removed a child
}

// statOf converts the connection's stat, which has Stat's layout, without a
// copy. nil stays nil.
func statOf(s *zkconn.Stat) *Stat { return (*Stat)(s) }

// ACL is one entry of a node's access control list: a scheme ("world",
// "digest", "auth", "ip", ...), an id in it, and the permissions it grants.
type ACL struct {
	Perms  int32
	Scheme string
	ID     string
}

// The permissions of an ACL entry (ZooKeeper's bits); PermAll is all of
// them.
const (
	PermRead   int32 = 1 << iota // read data, list children
	PermWrite                    // set data
	PermCreate                   // create children
	PermDelete                   // delete children
	PermAdmin                    // set the ACL
	PermAll    = PermRead | PermWrite | PermCreate | PermDelete | PermAdmin
)

// WorldACL grants perms to everyone (world:anyone); WorldACL(PermAll) is
// ZooKeeper's OPEN_ACL_UNSAFE.
func WorldACL(perms int32) []ACL { return []ACL{{perms, "world", "anyone"}} }

// DigestACL grants perms to the digest principal user with password (the id
// holds the password's digest, as ZooKeeper's DigestAuthenticationProvider
// computes it: user:base64(sha1(user:password))).
func DigestACL(perms int32, user, password string) []ACL {
	sum := sha1.Sum([]byte(user + ":" + password))
	return []ACL{{perms, "digest", user + ":" + base64.StdEncoding.EncodeToString(sum[:])}}
}

// AuthACL grants perms to every identity the creating session has
// authenticated as (ZooKeeper's CREATOR_ALL_ACL with PermAll).
func AuthACL(perms int32) []ACL { return []ACL{{perms, "auth", ""}} }

// zkACLs converts ACLs for the connection.
func zkACLs(acl []ACL) []zkconn.ACL {
	if acl == nil {
		return nil
	}
	out := make([]zkconn.ACL, len(acl))
	for i, a := range acl {
		out[i] = zkconn.ACL(a)
	}
	return out
}

// aclsOf converts the connection's ACLs.
func aclsOf(acl []zkconn.ACL) []ACL {
	if acl == nil {
		return nil
	}
	out := make([]ACL, len(acl))
	for i, a := range acl {
		out[i] = ACL(a)
	}
	return out
}

// Dialer makes the connections to servers (see WithDialer):
// net.DialTimeout's shape.
type Dialer func(network, address string, timeout time.Duration) (net.Conn, error)

// EventType says what a watch saw.
type EventType int32

// The event types a watch reports: ZooKeeper's codes, and EventNotWatching
// for a watch that ended unfired.
const (
	EventNodeCreated         EventType = 1
	EventNodeDeleted         EventType = 2
	EventNodeDataChanged     EventType = 3
	EventNodeChildrenChanged EventType = 4
	// EventNotWatching: the watch ended unfired, as the session expired or
	// the client closed.
	EventNotWatching EventType = -2
	// EventWatchReset: a persistent watch on the event's path (AddWatch)
	// was replaced and set again, so changes may have gone untold. A server
	// before 3.9 holds one watch per path and connection: a one-shot watch
	// set on that path through the same client replaces the persistent one
	// there. The client then sets the persistent watch again at once and
	// tells the watch listeners (AddWatchListener) that cover the path:
	// read afresh what the persistent watch covers. If the client could not
	// set it again, WatchEvent.Err says why: set it again (Set) before
	// reading. It is the client's, not ZooKeeper's, and comes from the
	// goroutine of the read that set the one-shot watch (or, for a read
	// whose caller left before its reply, the read's own).
	EventWatchReset EventType = -3
)

// String names the event type as ZooKeeper's Java client does.
func (t EventType) String() string {
	switch t {
	case EventNodeCreated:
		return "NodeCreated"
	case EventNodeDeleted:
		return "NodeDeleted"
	case EventNodeDataChanged:
		return "NodeDataChanged"
	case EventNodeChildrenChanged:
		return "NodeChildrenChanged"
	case EventNotWatching:
		return "NotWatching"
	case EventWatchReset:
		return "WatchReset"
	}
	return "EventType(" + strconv.Itoa(int(t)) + ")"
}
