package framework

import (
	"context"
	"fmt"
	"slices"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/gocurator/curator/internal/zkconn"
	"github.com/gocurator/curator/internal/zkerr"
)

// fakeConn plays the server's part for the client's own logic: a tree of
// nodes, one session, and faults a test arranges per request. It is no
// ZooKeeper (no watches, no ACL checks, one session): the recipes and the
// client are tested against real servers; these tests reach the cases a
// real server cannot be made to produce on cue.
type fakeConn struct {
	t   testing.TB
	cfg zkconn.Config

	mu      sync.Mutex
	nodes   map[string]*fakeNode
	session int64
	seq     int
	faults  []*fault
	log     []string              // "op path", each request as it arrives
	held    chan struct{}         // told when a request is held for a late answer
	before  func(op, path string) // if set, runs as each request arrives, before its fault; f.mu is held
	closed  bool
	wg      sync.WaitGroup // late answers in flight
}

type fakeNode struct {
	data    []byte
	version int32
	owner   int64 // ephemeral owner, 0 for a persistent node
}

// fault changes the answer to the requests it matches.
type fault struct {
	op, path string // path: a prefix of the server path; "" matches every request of op
	times    int    // how many requests it applies to; then it is spent
	// What it does: lose the reply (the request is applied, the caller gets
	// a connection loss); refuse (not applied, a connection loss); or hold
	// the request until the caller's context ends, then apply it and
	// deliver the answer late, as a reply that came after the caller left.
	kind faultKind
}

type faultKind int

const (
	loseReply faultKind = iota + 1
	refuse
	answerLate
)

func newFakeConn(t testing.TB) *fakeConn {
	return &fakeConn{t: t, nodes: map[string]*fakeNode{"/": {}}, session: 0x100, held: make(chan struct{}, 8)}
}

// fakeClient returns a started client on fc, connected, with opts.
func fakeClient(t testing.TB, fc *fakeConn, opts ...Option) *Client {
	t.Helper()
	c, err := New("fake:2181", opts...)
	if err != nil {
		t.Fatal(err)
	}
	c.dial = func(cfg zkconn.Config) (conn, error) {
		fc.cfg = cfg
		return fc, nil
	}
	if err := c.Start(context.Background()); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	fc.connect()
	return c
}

// connect reports the session established.
func (f *fakeConn) connect() {
	f.mu.Lock()
	id := f.session
	f.mu.Unlock()
	f.cfg.OnSession(zkconn.SessionEvent{State: zkconn.HasSession, ID: id, Timeout: time.Minute})
}

// inject arranges a fault.
func (f *fakeConn) inject(op, path string, kind faultKind, times int) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.faults = append(f.faults, &fault{op: op, path: path, kind: kind, times: times})
}

// arrive logs a request and returns the fault that applies to it, if any.
func (f *fakeConn) arrive(op, path string) faultKind {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.log = append(f.log, op+" "+path)
	if f.before != nil {
		f.before(op, path)
	}
	for _, ft := range f.faults {
		if ft.times > 0 && ft.op == op && strings.HasPrefix(path, ft.path) {
			ft.times--
			return ft.kind
		}
	}
	return 0
}

// requests returns how many requests of op arrived.
func (f *fakeConn) requests(op string) int {
	f.mu.Lock()
	defer f.mu.Unlock()
	n := 0
	for _, l := range f.log {
		if strings.HasPrefix(l, op+" ") {
			n++
		}
	}
	return n
}

// node returns a copy of the node at path, nil if there is none.
func (f *fakeConn) node(path string) *fakeNode {
	f.mu.Lock()
	defer f.mu.Unlock()
	n, ok := f.nodes[path]
	if !ok {
		return nil
	}
	c := *n
	return &c
}

// paths returns the paths of the nodes under dir, sorted.
func (f *fakeConn) paths(dir string) []string {
	f.mu.Lock()
	defer f.mu.Unlock()
	var out []string
	for p := range f.nodes {
		if strings.HasPrefix(p, dir+"/") {
			out = append(out, p)
		}
	}
	sort.Strings(out)
	return out
}

// do runs apply under the fault the request meets. late, if set, hears the
// answer of a request held past its caller's context.
func do[T any](f *fakeConn, ctx context.Context, op, path string, apply func() (T, error), late func(T, error)) (T, error) {
	var zero T
	switch f.arrive(op, path) {
	case refuse:
		return zero, zkerr.ConnectionLoss
	case loseReply:
		f.mu.Lock()
		_, _ = apply()
		f.mu.Unlock()
		return zero, zkerr.ConnectionLoss
	case answerLate:
		f.held <- struct{}{}
		<-ctx.Done()
		f.wg.Add(1)
		go func() {
			defer f.wg.Done()
			f.mu.Lock()
			v, err := apply()
			f.mu.Unlock()
			if late != nil {
				late(v, err)
			}
		}()
		return zero, ctx.Err()
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	return apply()
}

// create applies a create; f.mu is held.
func (f *fakeConn) create(r zkconn.CreateRequest) (string, error) {
	parent, _ := SplitPath(r.Path)
	if _, ok := f.nodes[parent]; !ok {
		return "", zkerr.NoNode
	}
	p := r.Path
	if CreateMode(r.Mode).IsSequential() {
		f.seq++
		p = fmt.Sprintf("%s%010d", r.Path, f.seq)
	}
	if _, ok := f.nodes[p]; ok {
		return "", zkerr.NodeExists
	}
	n := &fakeNode{data: r.Data}
	if CreateMode(r.Mode).IsEphemeral() {
		n.owner = f.session
	}
	f.nodes[p] = n
	return p, nil
}

// remove applies a delete; f.mu is held.
func (f *fakeConn) remove(path string, version int32) error {
	if _, err := f.check(path, version); err != nil {
		return err
	}
	for p := range f.nodes {
		if strings.HasPrefix(p, path+"/") {
			return zkerr.NotEmpty
		}
	}
	delete(f.nodes, path)
	return nil
}

func (f *fakeConn) stat(n *fakeNode) *zkconn.Stat {
	return &zkconn.Stat{Version: n.version, EphemeralOwner: n.owner, DataLength: int32(len(n.data))}
}

func (f *fakeConn) Create(ctx context.Context, r zkconn.CreateRequest) (string, error) {
	return do(f, ctx, "create", r.Path, func() (string, error) { return f.create(r) }, r.Late)
}

func (f *fakeConn) Delete(ctx context.Context, path string, version int32) error {
	_, err := do(f, ctx, "delete", path, func() (struct{}, error) { return struct{}{}, f.remove(path, version) }, nil)
	return err
}

func (f *fakeConn) Exists(ctx context.Context, path string, watch zkconn.WatchMode) (bool, *zkconn.Stat, *zkconn.Watch, error) {
	st, err := do(f, ctx, "exists", path, func() (*zkconn.Stat, error) {
		if n, ok := f.nodes[path]; ok {
			return f.stat(n), nil
		}
		return nil, nil
	}, nil)
	return st != nil, st, nil, err
}

func (f *fakeConn) Get(ctx context.Context, path string, watch zkconn.WatchMode) ([]byte, *zkconn.Stat, *zkconn.Watch, error) {
	n, err := do(f, ctx, "get", path, func() (*fakeNode, error) {
		if n, ok := f.nodes[path]; ok {
			return n, nil
		}
		return nil, zkerr.NoNode
	}, nil)
	if err != nil {
		return nil, nil, nil, err
	}
	return n.data, f.stat(n), nil, nil
}

func (f *fakeConn) Children(ctx context.Context, path string, watch zkconn.WatchMode) ([]string, *zkconn.Stat, *zkconn.Watch, error) {
	kids, err := do(f, ctx, "children", path, func() ([]string, error) {
		if _, ok := f.nodes[path]; !ok {
			return nil, zkerr.NoNode
		}
		var kids []string
		for p := range f.nodes {
			if parent, name := SplitPath(p); parent == path && p != "/" {
				kids = append(kids, name)
			}
		}
		return kids, nil
	}, nil)
	return kids, &zkconn.Stat{NumChildren: int32(len(kids))}, nil, err
}

func (f *fakeConn) Set(ctx context.Context, path string, data []byte, version int32) (*zkconn.Stat, error) {
	return do(f, ctx, "set", path, func() (*zkconn.Stat, error) { return f.set(path, data, version) }, nil)
}

// check returns the node at path if it is at version (-1: any); f.mu is
// held.
func (f *fakeConn) check(path string, version int32) (*fakeNode, error) {
	n, ok := f.nodes[path]
	switch {
	case !ok:
		return nil, zkerr.NoNode
	case version >= 0 && n.version != version:
		return nil, zkerr.BadVersion
	}
	return n, nil
}

// set applies a setData; f.mu is held.
func (f *fakeConn) set(path string, data []byte, version int32) (*zkconn.Stat, error) {
	n, err := f.check(path, version)
	if err != nil {
		return nil, err
	}
	n.data, n.version = data, n.version+1
	return f.stat(n), nil
}

func (f *fakeConn) GetACL(ctx context.Context, path string) ([]zkconn.ACL, *zkconn.Stat, error) {
	return nil, nil, zkerr.Unimplemented
}

func (f *fakeConn) SetACL(ctx context.Context, path string, acl []zkconn.ACL, version int32) (*zkconn.Stat, error) {
	return nil, zkerr.Unimplemented
}

func (f *fakeConn) AddWatch(ctx context.Context, path string, recursive bool) error {
	return zkerr.Unimplemented
}

func (f *fakeConn) RemoveWatch(ctx context.Context, path string, recursive, keep bool) error {
	return zkerr.Unimplemented
}

// MultiRead is not modelled: the tests of MultiRead run against ZooKeeper.
func (f *fakeConn) MultiRead(ctx context.Context, ops []zkconn.ReadOp) ([]zkconn.ReadResult, error) {
	return nil, zkerr.Unimplemented
}

func (f *fakeConn) Sync(ctx context.Context, path string) error {
	_, err := do(f, ctx, "sync", path, func() (struct{}, error) { return struct{}{}, nil }, nil)
	return err
}

// Multi applies the ops all or none: on the first that fails, it undoes
// the ones before.
func (f *fakeConn) Multi(ctx context.Context, r zkconn.MultiRequest, sent func()) ([]zkconn.OpResult, error) {
	if sent != nil {
		sent()
	}
	return do(f, ctx, "multi", r.Ops[0].Path, func() ([]zkconn.OpResult, error) {
		saved := make(map[string]*fakeNode, len(f.nodes))
		for p, n := range f.nodes {
			c := *n
			saved[p] = &c
		}
		seq := f.seq
		res := make([]zkconn.OpResult, len(r.Ops))
		for i, op := range r.Ops {
			var err error
			switch op.Kind {
			case zkconn.OpCreate:
				res[i].Path, err = f.create(zkconn.CreateRequest{Path: op.Path, Data: op.Data, Mode: op.Mode})
			case zkconn.OpDelete:
				err = f.remove(op.Path, op.Version)
			case zkconn.OpSetData:
				_, err = f.set(op.Path, op.Data, op.Version)
			case zkconn.OpCheck:
				_, err = f.check(op.Path, op.Version)
			}
			if err != nil {
				f.nodes, f.seq = saved, seq
				for j := range res {
					res[j] = zkconn.OpResult{Err: zkerr.RuntimeInconsistency}
				}
				res[i].Err = err
				return res, err
			}
		}
		return res, nil
	}, r.Late)
}

func (f *fakeConn) AddAuth(ctx context.Context, scheme string, auth []byte) error { return nil }

func (f *fakeConn) SessionID() int64 {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.session
}

func (f *fakeConn) Server() string                      { return "fake:2181" }
func (f *fakeConn) DialErr() error                      { return nil }
func (f *fakeConn) Close()                              { f.mu.Lock(); f.closed = true; f.mu.Unlock(); f.wg.Wait() }
func (f *fakeConn) ExpireSession(context.Context) error { return f.expire() }
func (f *fakeConn) EndSession(_ context.Context, id int64) error {
	if f.SessionID() == id {
		return f.expire()
	}
	return nil
}

// expire ends the session: its ephemeral nodes go, and the client hears
// Disconnected, Expired, then a new session.
func (f *fakeConn) expire() error {
	f.mu.Lock()
	for p, n := range f.nodes {
		if n.owner == f.session {
			delete(f.nodes, p)
		}
	}
	f.session++
	f.mu.Unlock()
	f.cfg.OnSession(zkconn.SessionEvent{State: zkconn.Disconnected})
	f.cfg.OnSession(zkconn.SessionEvent{State: zkconn.Expired})
	f.connect()
	return nil
}

// ops lists the requests that arrived, in order.
func (f *fakeConn) ops() []string {
	f.mu.Lock()
	defer f.mu.Unlock()
	return slices.Clone(f.log)
}
