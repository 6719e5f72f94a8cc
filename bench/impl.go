package main

import (
	"context"
	"errors"
	"net"
	"slices"
	"strings"
	"time"

	"github.com/go-zookeeper/zk"

	"github.com/gocurator/curator/driver"
	"github.com/gocurator/curator/framework"
	"github.com/gocurator/curator/recipes/locks"
	"github.com/gocurator/curator/recipestest"
	"github.com/gocurator/curator/retry"
)

// release gives a hold back.
type release func(ctx context.Context) error

// acquirer takes one lock (or lease) for one client.
type acquirer func(ctx context.Context) (release, error)

// session is one client's connection, whatever library drives it.
type session interface {
	counter() *recipestest.Counter
	close()
}

// impl is one Go implementation under test.
type impl interface {
	name() string
	connect(addr string) (session, error)
	// mutex, semaphore, read and write return acquirers for a session, or
	// nil if the implementation has no such lock.
	mutex(s session, path string) acquirer
	semaphore(s session, path string, leases int) acquirer
	readWrite(s session, path string, write bool) acquirer
}

// --- gocurator ---

type curatorGo struct{}

type goSession struct {
	c   *framework.Client
	cnt *recipestest.Counter
}

func (s *goSession) counter() *recipestest.Counter { return s.cnt }
func (s *goSession) close()                        { s.c.Close() }

func (curatorGo) name() string { return "gocurator" }

func (curatorGo) connect(addr string) (session, error) {
	cnt := recipestest.NewCounter()
	c, err := framework.New(addr, framework.WithDialer(cnt.Dialer(nil)), framework.WithSessionTimeout(10*time.Second),
		framework.WithRetryPolicy(retry.ExponentialBackoffRetry(10*time.Millisecond, 10)))
	if err != nil {
		return nil, err
	}
	if err := c.Start(); err != nil {
		return nil, err
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if err := c.BlockUntilConnected(ctx); err != nil {
		c.Close()
		return nil, err
	}
	return &goSession{c, cnt}, nil
}

func holdAcquirer(acquire func(context.Context) (*locks.Hold, error)) acquirer {
	return func(ctx context.Context) (release, error) {
		h, err := acquire(ctx)
		if err != nil {
			return nil, err
		}
		return h.Release, nil
	}
}

func (curatorGo) mutex(s session, path string) acquirer {
	m, err := locks.NewMutex(s.(*goSession).c, path)
	if err != nil {
		panic(err)
	}
	return holdAcquirer(m.Acquire)
}

func (curatorGo) semaphore(s session, path string, leases int) acquirer {
	sem, err := locks.NewSemaphore(s.(*goSession).c, path, leases)
	if err != nil {
		panic(err)
	}
	return holdAcquirer(sem.Acquire)
}

func (curatorGo) readWrite(s session, path string, write bool) acquirer {
	rw, err := locks.NewReadWriteLock(s.(*goSession).c, path)
	if err != nil {
		panic(err)
	}
	if write {
		return holdAcquirer(rw.WriteLock().Acquire)
	}
	return holdAcquirer(rw.ReadLock().Acquire)
}

// --- bare go-zookeeper sessions, for the floor and zk.Lock ---

type zkSession struct {
	conn *zk.Conn
	cnt  *recipestest.Counter
}

func (s *zkSession) counter() *recipestest.Counter { return s.cnt }
func (s *zkSession) close()                        { s.conn.Close() }

type quietLogger struct{}

func (quietLogger) Printf(string, ...any) {}

func connectZK(addr string) (session, error) {
	cnt := recipestest.NewCounter()
	conn, events, err := zk.Connect([]string{addr}, 10*time.Second, zk.WithDialer(cnt.Dialer(net.DialTimeout)),
		zk.WithLogInfo(false), zk.WithLogger(quietLogger{}))
	if err != nil {
		return nil, err
	}
	deadline := time.After(30 * time.Second)
	for {
		select {
		case ev := <-events:
			if ev.State == zk.StateHasSession {
				go func() { // drain, so go-zookeeper never blocks on it
					for range events {
					}
				}()
				return &zkSession{conn, cnt}, nil
			}
		case <-deadline:
			conn.Close()
			return nil, errors.New("bench: no session")
		}
	}
}

// --- the floor: the fewest bare calls Curator's protocol needs ---

type floor struct{}

func (floor) name() string                         { return "floor" }
func (floor) connect(addr string) (session, error) { return connectZK(addr) }

// mutex: create (protected, ephemeral sequential), list, and if not first
// watch the predecessor and list again when it goes; release is a delete.
func (floor) mutex(s session, path string) acquirer {
	return floorQueue(s.(*zkSession).conn, path, "lock-", standardDecide(1))
}

// semaphore is Curator's InterProcessSemaphoreV2 protocol in bare calls:
// take the P/locks mutex, create a lease node, wait until P/leases has at
// most maxLeases children, release the mutex; returning the lease deletes it.
func (floor) semaphore(s session, path string, leases int) acquirer {
	conn := s.(*zkSession).conn
	lock := floorQueue(conn, path+"/locks", "lock-", standardDecide(1))
	ensureDir(conn, path+"/leases")
	return func(ctx context.Context) (release, error) {
		unlock, err := lock(ctx)
		if err != nil {
			return nil, err
		}
		defer unlock(ctx)
		p, err := conn.Create(path+"/leases/"+protectedPrefix+"lease-", nil, zk.FlagEphemeralSequential, openACL)
		if err != nil {
			return nil, err
		}
		for {
			kids, _, w, err := conn.ChildrenW(path + "/leases")
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
}

// readWrite is Curator's read-write protocol in bare calls.
func (floor) readWrite(s session, path string, write bool) acquirer {
	conn := s.(*zkSession).conn
	if write {
		return floorQueue(conn, path, "__WRIT__", standardDecide(1))
	}
	return floorQueue(conn, path, "__READ__", func(kids []string, i int) (bool, string) {
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

// floorQueue is the wait loop every Curator lock shares, in bare calls.
func floorQueue(conn *zk.Conn, dir, lockName string, decide func(sorted []string, ours int) (bool, string)) acquirer {
	ensureDir(conn, dir)
	fix := driver.StandardFixForSorting
	if lockName == "__READ__" || lockName == "__WRIT__" {
		fix = rwSortKey
	}
	return func(ctx context.Context) (release, error) {
		p, err := conn.Create(dir+"/"+protectedPrefix+lockName, nil, zk.FlagEphemeralSequential, openACL)
		if err != nil {
			return nil, err
		}
		name := p[strings.LastIndexByte(p, '/')+1:]
		for {
			kids, _, err := conn.Children(dir)
			if err != nil {
				return nil, err
			}
			driver.SortChildren(kids, lockName, fix)
			i := slices.Index(kids, name)
			if i < 0 {
				return nil, errors.New("floor: node vanished")
			}
			held, watch := decide(kids, i)
			if held {
				return func(context.Context) error { return conn.Delete(p, -1) }, nil
			}
			_, _, w, err := conn.GetW(dir + "/" + watch)
			if errors.Is(err, zk.ErrNoNode) {
				continue
			}
			if err != nil {
				return nil, err
			}
			select {
			case <-w:
			case <-ctx.Done():
				conn.Delete(p, -1)
				return nil, ctx.Err()
			}
		}
	}
}

func ensureDir(conn *zk.Conn, dir string) {
	for i := 1; i <= len(dir); i++ {
		if i == len(dir) || dir[i] == '/' {
			conn.Create(dir[:i], nil, 0, openACL) // exists is fine
		}
	}
}

// --- go-zookeeper's zk.Lock ---

type zkLock struct{}

func (zkLock) name() string                             { return "zk.Lock" }
func (zkLock) connect(addr string) (session, error)     { return connectZK(addr) }
func (zkLock) semaphore(session, string, int) acquirer  { return nil }
func (zkLock) readWrite(session, string, bool) acquirer { return nil }

func (zkLock) mutex(s session, path string) acquirer {
	l := zk.NewLock(s.(*zkSession).conn, path, openACL)
	return func(ctx context.Context) (release, error) {
		if err := l.Lock(); err != nil {
			return nil, err
		}
		return func(context.Context) error { return l.Unlock() }, nil
	}
}
