package harness

import (
	"context"
	"errors"
	"slices"
	"strings"

	"github.com/go-zookeeper/zk"

	"github.com/gocurator/curator/driver"
)

// floor is each workload in the fewest bare go-zookeeper calls a protocol
// that Curator's locks interoperate with needs, with the listing sent right
// behind the create as gocurator sends it, so that a ratio to the floor is
// what the library's features cost.
type floor struct{}

func (floor) name() string                         { return "floor" }
func (floor) connect(addr string) (session, error) { return connectZK(addr, true) }

// mutex: create (protected, ephemeral sequential) with the listing right
// behind it, and if not first watch the predecessor and list again when it
// goes; release is a delete.
func (floor) mutex(s session, path string) acquirer {
	return floorLock(s.(*zkSession), path, "lock-", standardDecide(1)).acquirer()
}

// semaphore is gocurator's semaphore protocol in bare calls: take the P/locks
// lock; one multi creates the lease node and deletes the lock node, with the
// count of leases right behind it; if the leases are full, give the lease
// back and take Curator's order (create the lease holding the lock, wait for
// room, release the lock). Curator's order alone needs 8 requests per
// contended lease; this needs 7.
func (floor) semaphore(s session, path string, leases int) acquirer {
	zs := s.(*zkSession)
	conn := zs.conn
	lock := floorLock(zs, path+"/locks", "lock-", standardDecide(1))
	dir := path + "/leases"
	ensureDir(conn, dir)
	leaseName := dir + "/" + protectedPrefix + "lease-"
	return func(ctx context.Context) (release, error) {
		node, err := lock.acquire(ctx)
		if err != nil {
			return nil, err
		}
		var res []zk.MultiResponse
		kids, err := createThenList(conn, zs.sentIn(dir), dir, func() error {
			var err error
			res, err = conn.Multi(&zk.CreateRequest{Path: leaseName, Flags: zk.FlagEphemeralSequential, Acl: openACL},
				&zk.DeleteRequest{Path: node, Version: -1})
			return err
		}, func() string { return res[0].String })
		if err != nil {
			conn.Delete(node, -1)
			return nil, err
		}
		p := res[0].String
		if len(kids) <= leases {
			return func(context.Context) error { return conn.Delete(p, -1) }, nil
		}
		conn.Delete(p, -1)
		return curatorOrderLease(ctx, conn, lock, dir, leaseName, leases)
	}
}

// curatorOrderLease takes a lease in Curator's order: hold the lock while
// waiting for room.
func curatorOrderLease(ctx context.Context, conn *zk.Conn, lock queue, dir, leaseName string, leases int) (release, error) {
	node, err := lock.acquire(ctx)
	if err != nil {
		return nil, err
	}
	defer conn.Delete(node, -1)
	p, err := conn.Create(leaseName, nil, zk.FlagEphemeralSequential, openACL)
	if err != nil {
		return nil, err
	}
	for {
		kids, _, w, err := conn.ChildrenW(dir)
		if err != nil {
			return nil, err
		}
		if len(kids) <= leases {
			return func(context.Context) error { return conn.Delete(p, -1) }, nil
		}
		select {
		case <-w:
		case <-ctx.Done():
			conn.Delete(p, -1)
			return nil, ctx.Err()
		}
	}
}

// readWrite is Curator's read-write protocol in bare calls.
func (floor) readWrite(s session, path string, write bool) acquirer {
	return rwQueue(s.(*zkSession), path, write).acquirer()
}

func rwQueue(zs *zkSession, path string, write bool) queue {
	if write {
		return floorLock(zs, path, "__WRIT__", standardDecide(1))
	}
	return floorLock(zs, path, "__READ__", func(kids []string, i int) (bool, string) {
		for j := range i {
			if strings.Contains(kids[j], "__WRIT__") {
				return false, kids[j]
			}
		}
		return true, ""
	})
}

const protectedPrefix = "_c_00000000-0000-4000-8000-000000000000-"

// standardDecide is Curator's standard predicate.
func standardDecide(maxLeases int) func([]string, int) (bool, string) {
	return func(kids []string, i int) (bool, string) {
		if i < maxLeases {
			return true, ""
		}
		return false, kids[i-maxLeases]
	}
}

var openACL = zk.WorldACL(zk.PermAll)

// rwSortKey sorts read and write nodes on their shared sequence.
func rwSortKey(name, _ string) string {
	return driver.StandardFixForSorting(driver.StandardFixForSorting(name, "__READ__"), "__WRIT__")
}

// queue is the wait loop every Curator lock shares, in bare calls.
type queue struct {
	conn     *zk.Conn
	sent     <-chan struct{} // nil: list after the create's reply (floorSerial)
	dir      string
	lockName string
	fix      func(name, lockName string) string
	decide   func(sorted []string, ours int) (bool, string)
}

func floorLock(s *zkSession, dir, lockName string, decide func(sorted []string, ours int) (bool, string)) queue {
	ensureDir(s.conn, dir)
	fix := driver.StandardFixForSorting
	if lockName == "__READ__" || lockName == "__WRIT__" {
		fix = rwSortKey
	}
	return queue{s.conn, s.sentIn(dir), dir, lockName, fix, decide}
}

func (q queue) acquirer() acquirer {
	return func(ctx context.Context) (release, error) {
		p, err := q.acquire(ctx)
		if err != nil {
			return nil, err
		}
		return func(context.Context) error { return q.conn.Delete(p, -1) }, nil
	}
}

// acquire creates a node, waits until it holds, and returns the node.
func (q queue) acquire(ctx context.Context) (string, error) {
	var p string
	create := func() error {
		var err error
		p, err = q.conn.Create(q.dir+"/"+protectedPrefix+q.lockName, nil, zk.FlagEphemeralSequential, openACL)
		return err
	}
	var kids []string
	var err error
	if q.sent == nil {
		if err = create(); err == nil {
			kids, _, err = q.conn.Children(q.dir)
		}
	} else {
		kids, err = createThenList(q.conn, q.sent, q.dir, create, func() string { return p })
	}
	if err != nil {
		return "", err
	}
	name := p[strings.LastIndexByte(p, '/')+1:]
	for {
		driver.SortChildren(kids, q.lockName, q.fix)
		i := slices.Index(kids, name)
		if i < 0 {
			return "", errors.New("floor: node vanished")
		}
		held, watch := q.decide(kids, i)
		if held {
			return p, nil
		}
		_, _, w, err := q.conn.GetW(q.dir + "/" + watch)
		if err == nil {
			select {
			case <-w:
			case <-ctx.Done():
				q.conn.Delete(p, -1)
				return "", ctx.Err()
			}
		} else if !errors.Is(err, zk.ErrNoNode) {
			return "", err
		}
		if kids, _, err = q.conn.Children(q.dir); err != nil {
			return "", err
		}
	}
}

// createThenList runs create with the listing of dir sent right behind it:
// the create on its own goroutine, and the listing once the create's request
// has been written (sent, as gocurator's framework.Trace does), so that
// ZooKeeper answers it after the create. It lists again if the listing
// still lacks the created node, which created names.
func createThenList(conn *zk.Conn, sent <-chan struct{}, dir string, create func() error, created func() string) ([]string, error) {
	select {
	case <-sent: // left by a create that was not pipelined
	default:
	}
	done := make(chan error, 1)
	go func() { done <- create() }()
	var (
		kids     []string
		listed   bool
		err      error
		errChild error
	)
	select {
	case <-sent:
		kids, _, errChild = conn.Children(dir)
		listed = errChild == nil
		err = <-done
	case err = <-done:
	}
	if err != nil {
		return nil, err
	}
	p := created()
	if listed && slices.Contains(kids, p[strings.LastIndexByte(p, '/')+1:]) {
		return kids, nil
	}
	kids, _, err = conn.Children(dir)
	return kids, err
}

func ensureDir(conn *zk.Conn, dir string) {
	for i := 1; i <= len(dir); i++ {
		if i == len(dir) || dir[i] == '/' {
			conn.Create(dir[:i], nil, 0, openACL) // exists is fine
		}
	}
}

// floorSerial is the floor's mutex and read-write lock with the listing
// sent after the create's reply, as zk.Lock sends it. Under contention a
// waiter's listing is not on the way to anyone's hold, and neither way is
// always the faster (docs/performance.md): the faster of the two in a run is
// the protocol's limit there.
type floorSerial struct{ floor }

func (floorSerial) name() string { return "floor-serial" }

func (floorSerial) mutex(s session, path string) acquirer {
	return serial(floorLock(s.(*zkSession), path, "lock-", standardDecide(1))).acquirer()
}

func (floorSerial) semaphore(session, string, int) acquirer { return nil }

func (floorSerial) readWrite(s session, path string, write bool) acquirer {
	return serial(rwQueue(s.(*zkSession), path, write)).acquirer()
}

func serial(q queue) queue {
	q.sent = nil
	return q
}
