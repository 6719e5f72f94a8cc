package framework_test

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sync"
	"testing"

	"github.com/gocurator/curator/framework"
	"github.com/gocurator/curator/listener"
	"github.com/gocurator/curator/recipestest"
	"github.com/gocurator/curator/zkharness"
)

// events collects what a watch listener hears.
type events struct {
	ch chan framework.WatchEvent
}

func listen(t *testing.T, c *framework.Client, path string) *events {
	t.Helper()
	e := &events{ch: make(chan framework.WatchEvent, 64)}
	remove, err := c.AddWatchListener(path, func(ev framework.WatchEvent) { e.ch <- ev })
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(remove)
	return e
}

// expect takes the next events, which must be want, in order.
func (e *events) expect(ctx context.Context, t *testing.T, want ...framework.WatchEvent) {
	t.Helper()
	for _, w := range want {
		select {
		case ev := <-e.ch:
			if ev != w {
				t.Fatalf("got %+v, want %+v", ev, w)
			}
		case <-ctx.Done():
			t.Fatalf("no notification; want %+v", w)
		}
	}
}

// none checks that nothing more was heard up to a reply c gets now: the
// server sends a notification before the replies to requests after the
// write that caused it.
func (e *events) none(ctx context.Context, t *testing.T, c *framework.Client) {
	t.Helper()
	if _, _, err := c.Exists(ctx, "/"); err != nil {
		t.Fatal(err)
	}
	select {
	case ev := <-e.ch:
		t.Fatalf("unexpected notification %+v", ev)
	default:
	}
}

// mustCreate creates each of paths, in order, through w.
func mustCreate(ctx context.Context, t *testing.T, w *framework.Client, paths ...string) {
	t.Helper()
	for _, p := range paths {
		if _, err := w.Create(ctx, p, nil); err != nil {
			t.Fatal(err)
		}
	}
}

func ev(typ framework.EventType, path string) framework.WatchEvent {
	return framework.WatchEvent{Type: typ, Path: path}
}

// TestAddWatchRecursive: a recursive persistent watch, set before its node
// exists, tells of every create, change and delete under it, again and
// again, with the namespace stripped; the server holds it until
// Remove, after which nothing comes; a second Remove does nothing, and Set
// after it is ErrWatchRemoved.
func TestAddWatchRecursive(t *testing.T) {
	ns := recipestest.Namespace(t)
	c := newClientAt(t, server.ConnectString(), framework.WithNamespace(ns))
	w := newClientAt(t, server.ConnectString(), framework.WithNamespace(ns))
	ctx := ctxT(t)
	got := listen(t, c, "/")
	pw, err := c.AddWatch(ctx, "/tree", framework.WatchPersistentRecursive)
	if err != nil {
		t.Fatal(err)
	}
	if held := recipestest.WatchedPaths(t, server.Addr(), "/"+ns+"/tree"); !slices.Contains(held, "/"+ns+"/tree") {
		t.Fatalf("the server holds watches on %v", held)
	}
	steps := []func() error{
		func() error { _, err := w.Create(ctx, "/tree", nil); return err },
		func() error { _, err := w.Create(ctx, "/tree/a", nil); return err },
		func() error { _, err := w.Set(ctx, "/tree/a", []byte("1"), -1); return err },
		func() error { _, err := w.Create(ctx, "/tree/a/b", nil); return err },
		func() error { return w.Delete(ctx, "/tree/a/b") },
		func() error { _, err := w.Set(ctx, "/tree/a", []byte("2"), -1); return err },
		func() error { _, err := w.Create(ctx, "/beside", nil); return err }, // not under it
	}
	for i, step := range steps {
		if err := step(); err != nil {
			t.Fatalf("step %d: %v", i, err)
		}
	}
	got.expect(ctx, t,
		ev(framework.EventNodeCreated, "/tree"),
		ev(framework.EventNodeCreated, "/tree/a"),
		ev(framework.EventNodeDataChanged, "/tree/a"),
		ev(framework.EventNodeCreated, "/tree/a/b"),
		ev(framework.EventNodeDeleted, "/tree/a/b"),
		ev(framework.EventNodeDataChanged, "/tree/a"),
	)
	got.none(ctx, t, c)

	if err := pw.Remove(ctx); err != nil {
		t.Fatal(err)
	}
	if held := recipestest.WatchedPaths(t, server.Addr(), "/"+ns+"/tree"); len(held) != 0 {
		t.Fatalf("after Remove the server holds watches on %v", held)
	}
	if _, err := w.Set(ctx, "/tree/a", []byte("3"), -1); err != nil {
		t.Fatal(err)
	}
	got.none(ctx, t, c)
	if err := pw.Remove(ctx); err != nil {
		t.Fatalf("a second Remove: %v", err)
	}
	if err := pw.Set(ctx); !errors.Is(err, framework.ErrWatchRemoved) {
		t.Fatalf("Set after Remove: %v, want ErrWatchRemoved", err)
	}
	if _, err := c.AddWatch(ctx, "/tree", 0); !errors.Is(err, framework.ErrInvalidArg) {
		t.Fatalf("AddWatch with no mode: %v, want ErrInvalidArg", err)
	}
	if _, err := c.AddWatch(ctx, "tree", framework.WatchPersistent); !errors.Is(err, framework.ErrInvalidPath) {
		t.Fatalf("AddWatch of a bad path: %v, want ErrInvalidPath", err)
	}
}

// TestAddWatchPersistent: a persistent watch that is not recursive tells
// of its node's create, changes and delete, and of changes to its
// children list, not of changes to the children themselves.
func TestAddWatchPersistent(t *testing.T) {
	ns := recipestest.Namespace(t)
	c := newClientAt(t, server.ConnectString(), framework.WithNamespace(ns))
	w := newClientAt(t, server.ConnectString(), framework.WithNamespace(ns))
	ctx := ctxT(t)
	got := listen(t, c, "/")
	pw, err := c.AddWatch(ctx, "/flat", framework.WatchPersistent)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := w.Create(ctx, "/flat", nil); err != nil {
		t.Fatal(err)
	}
	if _, err := w.Create(ctx, "/flat/x", nil); err != nil {
		t.Fatal(err)
	}
	if _, err := w.Set(ctx, "/flat/x", []byte("1"), -1); err != nil {
		t.Fatal(err)
	}
	if _, err := w.Set(ctx, "/flat", []byte("1"), -1); err != nil {
		t.Fatal(err)
	}
	if err := w.Delete(ctx, "/flat/x"); err != nil {
		t.Fatal(err)
	}
	got.expect(ctx, t,
		ev(framework.EventNodeCreated, "/flat"),
		ev(framework.EventNodeChildrenChanged, "/flat"),
		ev(framework.EventNodeDataChanged, "/flat"),
		ev(framework.EventNodeChildrenChanged, "/flat"),
	)
	got.none(ctx, t, c)
	if err := pw.Remove(ctx); err != nil {
		t.Fatal(err)
	}
	if err := w.Delete(ctx, "/flat"); err != nil {
		t.Fatal(err)
	}
	got.none(ctx, t, c)
}

// TestAddWatchLastsAsLongAsItsConnection: a persistent watch goes with the
// connection it was set on (go-zookeeper does not set it again): after a
// reconnect nothing comes until it is added again.
func TestAddWatchLastsAsLongAsItsConnection(t *testing.T) {
	ns := recipestest.Namespace(t)
	proxy := recipestest.StartProxy(t, server.Addr())
	c, log := startClient(t, proxy.Addr(), framework.WithNamespace(ns))
	w := newClientAt(t, server.ConnectString(), framework.WithNamespace(ns))
	ctx := ctxT(t)
	if _, err := w.Create(ctx, "/n", nil, framework.WithParents()); err != nil {
		t.Fatal(err)
	}
	got := listen(t, c, "/")
	pw, err := c.AddWatch(ctx, "/n", framework.WatchPersistentRecursive)
	if err != nil {
		t.Fatal(err)
	}
	proxy.DropAll()
	log.waitLast(t, listener.Reconnected)
	if _, err := w.Set(ctx, "/n", []byte("1"), -1); err != nil {
		t.Fatal(err)
	}
	got.none(ctx, t, c)
	if err := pw.Set(ctx); err != nil {
		t.Fatal(err)
	}
	if _, err := w.Set(ctx, "/n", []byte("2"), -1); err != nil {
		t.Fatal(err)
	}
	got.expect(ctx, t, ev(framework.EventNodeDataChanged, "/n"))
}

// TestAddWatchSetAgainBeforeTheOneShotWatches: a persistent watch set again
// on a new connection while go-zookeeper holds a one-shot watch on its path
// still tells of every change. go-zookeeper sets its one-shot watches again
// on the new connection; a server before 3.9 keeps one watch per path and
// connection, the last set, so an addWatch that went out before them (a Set
// waiting for the connection is sent the moment the session is back) was
// replaced by the one-shot watch, and the creates below the path went
// unheard. The client's own requests now wait for go-zookeeper's setWatches.
func TestAddWatchSetAgainBeforeTheOneShotWatches(t *testing.T) {
	ns := recipestest.Namespace(t)
	proxy := recipestest.StartProxy(t, server.Addr())
	c, log := startClient(t, proxy.Addr(), framework.WithNamespace(ns))
	w := newClientAt(t, server.ConnectString(), framework.WithNamespace(ns))
	ctx := ctxT(t)
	mustCreate(ctx, t, w, "/p", "/p/x")
	got := listen(t, c, "/")
	pw, err := c.AddWatch(ctx, "/p", framework.WatchPersistentRecursive)
	if err != nil {
		t.Fatal(err)
	}
	if _, _, _, err := c.GetW(ctx, "/p"); err != nil { // a one-shot watch on the same path, unfired
		t.Fatal(err)
	}
	got.expect(ctx, t, ev(framework.EventWatchReset, "/p"))
	proxy.DropAll()
	if err := pw.Set(ctx); err != nil { // waits for the session, and goes out as soon as it is back
		t.Fatal(err)
	}
	log.waitLast(t, listener.Reconnected)
	for i := range 2 {
		deep := fmt.Sprintf("/p/x/%d", i)
		if _, err := w.Create(ctx, deep, nil); err != nil {
			t.Fatal(err)
		}
		got.expect(ctx, t, ev(framework.EventNodeCreated, deep))
	}
	got.none(ctx, t, c)
}

// TestAddWatchBesideOtherRequests: persistent watches added and removed on
// many goroutines, while others read, all succeed: their requests go on
// go-zookeeper's connection between its own, and their replies are taken
// off it before go-zookeeper reads.
func TestAddWatchBesideOtherRequests(t *testing.T) {
	c := newClient(t)
	ctx := ctxT(t)
	if _, err := c.Create(ctx, "/r", []byte("x"), framework.WithParents()); err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	errs := make(chan error, 64)
	for i := range 8 {
		wg.Add(2)
		go func() {
			defer wg.Done()
			p, mode := fmt.Sprintf("/w%d", i), framework.WatchPersistent
			if i%2 == 0 {
				mode = framework.WatchPersistentRecursive
			}
			for range 50 {
				pw, err := c.AddWatch(ctx, p, mode)
				if err != nil {
					errs <- err
					return
				}
				if err := pw.Remove(ctx); err != nil {
					errs <- err
					return
				}
			}
		}()
		go func() {
			defer wg.Done()
			for range 50 {
				if data, _, err := c.Get(ctx, "/r"); err != nil || string(data) != "x" {
					errs <- fmt.Errorf("get: %q, %v", data, err)
					return
				}
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
}

// TestPersistentWatchHolds: the watch stays on the server while any
// PersistentWatch for it is not removed, whatever the order of the adds
// and removes, and goes with the last Remove.
func TestPersistentWatchHolds(t *testing.T) {
	ns := recipestest.Namespace(t)
	c := newClientAt(t, server.ConnectString(), framework.WithNamespace(ns))
	w := newClientAt(t, server.ConnectString(), framework.WithNamespace(ns))
	ctx := ctxT(t)
	got := listen(t, c, "/")
	a, err := c.AddWatch(ctx, "/h", framework.WatchPersistentRecursive)
	if err != nil {
		t.Fatal(err)
	}
	b, err := c.AddWatch(ctx, "/h", framework.WatchPersistentRecursive)
	if err != nil {
		t.Fatal(err)
	}
	if err := a.Remove(ctx); err != nil {
		t.Fatal(err)
	}
	if _, err := w.Create(ctx, "/h", nil); err != nil {
		t.Fatal(err)
	}
	got.expect(ctx, t, ev(framework.EventNodeCreated, "/h")) // b still holds it
	if err := a.Remove(ctx); err != nil {                    // a second time: nothing
		t.Fatal(err)
	}
	if held := recipestest.WatchedPaths(t, server.Addr(), "/"+ns+"/h"); len(held) != 1 {
		t.Fatalf("with one hold left the server holds watches on %v", held)
	}
	if err := b.Remove(ctx); err != nil {
		t.Fatal(err)
	}
	if held := recipestest.WatchedPaths(t, server.Addr(), "/"+ns+"/h"); len(held) != 0 {
		t.Fatalf("with no hold left the server holds watches on %v", held)
	}
	if _, err := w.Set(ctx, "/h", []byte("x"), -1); err != nil {
		t.Fatal(err)
	}
	got.none(ctx, t, c)
}

// TestAddWatchWithAnEndedContext: a context that has ended already gives
// its error, and the server is sent nothing: it holds no watch.
func TestAddWatchWithAnEndedContext(t *testing.T) {
	ns := recipestest.Namespace(t)
	c := newClientAt(t, server.ConnectString(), framework.WithNamespace(ns))
	ctx, cancel := context.WithCancel(ctxT(t))
	cancel()
	if _, err := c.AddWatch(ctx, "/gone", framework.WatchPersistentRecursive); !errors.Is(err, context.Canceled) {
		t.Fatalf("AddWatch with a cancelled context: %v, want context.Canceled", err)
	}
	if held := recipestest.WatchedPaths(t, server.Addr(), "/"+ns+"/"); len(held) != 0 {
		t.Fatalf("the server holds watches on %v", held)
	}
}

// TestOneShotWatchOnAPersistentPath: a one-shot watch set on a path the
// client holds a persistent watch on (which a server before 3.9 lets replace
// it) is followed by the persistent watch set again and EventWatchReset to
// the listeners, and the persistent watch then tells what it told before,
// again and again; a one-shot watch of the other kind (a children watch
// beside a recursive one) replaces nothing, and resets nothing.
func TestOneShotWatchOnAPersistentPath(t *testing.T) {
	reads := map[string]func(ctx context.Context, c *framework.Client, p string) error{
		"GetW": func(ctx context.Context, c *framework.Client, p string) error {
			_, _, _, err := c.GetW(ctx, p)
			return err
		},
		"ExistsWatched": func(ctx context.Context, c *framework.Client, p string) error {
			_, _, err := c.ExistsWatched(ctx, p)
			return err
		},
		"ChildrenW": func(ctx context.Context, c *framework.Client, p string) error {
			_, _, _, err := c.ChildrenW(ctx, p)
			return err
		},
	}
	for _, tc := range []struct {
		read  string
		mode  framework.AddWatchMode
		reset bool
	}{
		{"GetW", framework.WatchPersistentRecursive, true},
		{"ExistsWatched", framework.WatchPersistentRecursive, true},
		{"ChildrenW", framework.WatchPersistentRecursive, false},
		{"GetW", framework.WatchPersistent, true},
		{"ChildrenW", framework.WatchPersistent, true},
	} {
		t.Run(fmt.Sprintf("%s beside %v", tc.read, tc.mode), func(t *testing.T) {
			ns := recipestest.Namespace(t)
			c := newClientAt(t, server.ConnectString(), framework.WithNamespace(ns))
			w := newClientAt(t, server.ConnectString(), framework.WithNamespace(ns))
			ctx := ctxT(t)
			mustCreate(ctx, t, w, "/p", "/p/x")
			got := listen(t, c, "/")
			pw, err := c.AddWatch(ctx, "/p", tc.mode)
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { pw.Remove(context.Background()) })
			if err := reads[tc.read](ctx, c, "/p"); err != nil {
				t.Fatal(err)
			}
			if tc.reset {
				got.expect(ctx, t, ev(framework.EventWatchReset, "/p"))
			}
			got.none(ctx, t, c)

			// What the persistent watch alone would tell, twice: the
			// one-shot watch, had it replaced it, would tell the first at most.
			for i := range 2 {
				switch tc.mode {
				case framework.WatchPersistentRecursive:
					deep := fmt.Sprintf("/p/x/%d", i)
					if _, err := w.Create(ctx, deep, nil); err != nil {
						t.Fatal(err)
					}
					got.expect(ctx, t, ev(framework.EventNodeCreated, deep))
				case framework.WatchPersistent:
					if _, err := w.Create(ctx, fmt.Sprintf("/p/%d", i), nil); err != nil {
						t.Fatal(err)
					}
					got.expect(ctx, t, ev(framework.EventNodeChildrenChanged, "/p"))
					if _, err := w.Set(ctx, "/p", []byte{byte(i)}, -1); err != nil {
						t.Fatal(err)
					}
					got.expect(ctx, t, ev(framework.EventNodeDataChanged, "/p"))
				}
			}
			got.none(ctx, t, c)
		})
	}
}

// TestRemoveKeepsAOneShotWatchOnItsPath: a server before 3.9 keeps a
// one-shot watch on a path in the same entry as the connection's
// persistent watch there, so taking the persistent one off would take the
// one-shot one too. The last Remove leaves the one-shot watch to fire at
// the next change, whichever was set first, and after that the server
// holds no watch on the path.
func TestRemoveKeepsAOneShotWatchOnItsPath(t *testing.T) {
	type read func(ctx context.Context, c *framework.Client, p string) (framework.Watch, error)
	getW := func(ctx context.Context, c *framework.Client, p string) (framework.Watch, error) {
		_, _, w, err := c.GetW(ctx, p)
		return w, err
	}
	childrenW := func(ctx context.Context, c *framework.Client, p string) (framework.Watch, error) {
		_, _, w, err := c.ChildrenW(ctx, p)
		return w, err
	}
	for _, tc := range []struct {
		name      string
		read      read
		mode      framework.AddWatchMode
		readFirst bool
	}{
		{name: "GetW, then a recursive watch", read: getW, mode: framework.WatchPersistentRecursive, readFirst: true},
		{name: "a recursive watch, then GetW", read: getW, mode: framework.WatchPersistentRecursive},
		{name: "GetW, then a watch", read: getW, mode: framework.WatchPersistent, readFirst: true},
		{name: "ChildrenW, then a watch", read: childrenW, mode: framework.WatchPersistent, readFirst: true},
		{name: "a watch, then ChildrenW", read: childrenW, mode: framework.WatchPersistent},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ns := recipestest.Namespace(t)
			c := newClientAt(t, server.ConnectString(), framework.WithNamespace(ns))
			w := newClientAt(t, server.ConnectString(), framework.WithNamespace(ns))
			ctx := ctxT(t)
			mustCreate(ctx, t, w, "/p")
			var oneShot framework.Watch
			var err error
			if tc.readFirst {
				if oneShot, err = tc.read(ctx, c, "/p"); err != nil {
					t.Fatal(err)
				}
			}
			pw, err := c.AddWatch(ctx, "/p", tc.mode)
			if err != nil {
				t.Fatal(err)
			}
			if !tc.readFirst {
				if oneShot, err = tc.read(ctx, c, "/p"); err != nil {
					t.Fatal(err)
				}
			}
			if err := pw.Remove(ctx); err != nil {
				t.Fatal(err)
			}
			// A change the one-shot watch waits for: the other kinds' are told to no one.
			if _, err := w.Create(ctx, "/p/a", nil); err != nil {
				t.Fatal(err)
			}
			if _, err := w.Set(ctx, "/p", []byte("1"), -1); err != nil {
				t.Fatal(err)
			}
			got, err := oneShot.Wait(ctx)
			if err != nil {
				t.Fatalf("the one-shot watch never fired: %v", err)
			}
			if got.Path != "/p" || (got.Type != framework.EventNodeDataChanged && got.Type != framework.EventNodeChildrenChanged) {
				t.Fatalf("the one-shot watch saw %+v", got)
			}
			if held := recipestest.WatchedPaths(t, server.Addr(), "/"+ns+"/"); len(held) != 0 {
				t.Fatalf("the server still holds watches on %v", held)
			}
		})
	}
}

// TestAddWatchAbandonedAfterItWentOut: an AddWatch whose context ends
// after its request reached the server (its reply held back) returns the
// context's error, and the client takes the watch off, which no hold
// counts: the server holds no watch afterwards, and a change tells the
// listeners nothing.
func TestAddWatchAbandonedAfterItWentOut(t *testing.T) {
	ns := recipestest.Namespace(t)
	proxy := recipestest.StartProxy(t, server.Addr())
	c := newClientAt(t, proxy.Addr(), framework.WithNamespace(ns))
	w := newClientAt(t, server.ConnectString(), framework.WithNamespace(ns))
	got := listen(t, c, "/")
	ctx, cancel := context.WithCancel(ctxT(t))
	held := proxy.HoldReply(zkharness.OpAddWatch)
	go func() {
		<-held.Arrived() // the server holds the watch
		cancel()
	}()
	errc := make(chan error, 1)
	go func() {
		_, err := c.AddWatch(ctx, "/p", framework.WatchPersistentRecursive)
		errc <- err
	}()
	<-ctx.Done()
	held.Deliver()
	if err := <-errc; !errors.Is(err, context.Canceled) {
		t.Fatalf("AddWatch: %v, want context.Canceled", err)
	}
	if held := recipestest.WatchedPaths(t, server.Addr(), "/"+ns+"/"); len(held) != 0 {
		t.Fatalf("the server holds watches on %v", held)
	}
	if _, err := w.Create(ctxT(t), "/p", nil); err != nil {
		t.Fatal(err)
	}
	got.none(ctxT(t), t, c)
}

// TestBothModesOnOnePath: a recursive and a non-recursive persistent watch
// on one path, on one client, set in either order: while both are held the
// recursive one tells all it tells alone (a server before 3.9 keeps one
// mode per path, and the client sets the recursive one last); removing
// either leaves the other whole; removing both leaves no watch, among the
// data watches or the children watches (a delete below tells nothing).
func TestBothModesOnOnePath(t *testing.T) {
	for _, tc := range []struct {
		name          string
		first, second framework.AddWatchMode
		removeFirst   framework.AddWatchMode
	}{
		{"recursive first, removed first", framework.WatchPersistentRecursive, framework.WatchPersistent, framework.WatchPersistentRecursive},
		{"recursive first, removed last", framework.WatchPersistentRecursive, framework.WatchPersistent, framework.WatchPersistent},
		{"recursive last, removed first", framework.WatchPersistent, framework.WatchPersistentRecursive, framework.WatchPersistentRecursive},
		{"recursive last, removed last", framework.WatchPersistent, framework.WatchPersistentRecursive, framework.WatchPersistent},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ns := recipestest.Namespace(t)
			c := newClientAt(t, server.ConnectString(), framework.WithNamespace(ns))
			w := newClientAt(t, server.ConnectString(), framework.WithNamespace(ns))
			ctx := ctxT(t)
			mustCreate(ctx, t, w, "/p", "/p/x", "/p/x/gone")
			got := listen(t, c, "/")
			held := map[framework.AddWatchMode]*framework.PersistentWatch{}
			for _, m := range []framework.AddWatchMode{tc.first, tc.second} {
				pw, err := c.AddWatch(ctx, "/p", m)
				if err != nil {
					t.Fatal(err)
				}
				held[m] = pw
			}
			step := 0
			// deepAndSet creates a node two levels down and sets /p; the
			// recursive watch tells both, the other the set.
			deepAndSet := func(recursive, plain bool) {
				t.Helper()
				step++
				deep := fmt.Sprintf("/p/x/%d", step)
				if _, err := w.Create(ctx, deep, nil); err != nil {
					t.Fatal(err)
				}
				if recursive {
					got.expect(ctx, t, ev(framework.EventNodeCreated, deep))
				}
				if _, err := w.Set(ctx, "/p", []byte{byte(step)}, -1); err != nil {
					t.Fatal(err)
				}
				if recursive || plain {
					got.expect(ctx, t, ev(framework.EventNodeDataChanged, "/p"))
				}
				got.none(ctx, t, c)
			}
			deepAndSet(true, true)
			if err := held[tc.removeFirst].Remove(ctx); err != nil {
				t.Fatal(err)
			}
			recursiveLeft := tc.removeFirst != framework.WatchPersistentRecursive
			deepAndSet(recursiveLeft, !recursiveLeft)
			if !recursiveLeft { // the non-recursive watch tells of children changes again
				if _, err := w.Create(ctx, "/p/child", nil); err != nil {
					t.Fatal(err)
				}
				got.expect(ctx, t, ev(framework.EventNodeChildrenChanged, "/p"))
				got.none(ctx, t, c)
			}
			for m, pw := range held {
				if m != tc.removeFirst {
					if err := pw.Remove(ctx); err != nil {
						t.Fatal(err)
					}
				}
			}
			deepAndSet(false, false)
			if err := w.Delete(ctx, "/p/x/gone"); err != nil {
				t.Fatal(err)
			}
			got.none(ctx, t, c)
			if held := recipestest.WatchedPaths(t, server.Addr(), "/"+ns+"/"); len(held) != 0 {
				t.Fatalf("the server still holds watches on %v", held)
			}
		})
	}
}

// TestChildrenWatchBesideARecursiveWatch: a one-shot children watch on a
// path held by a recursive persistent watch fires at the next children
// change, though the recursive watch was set again meanwhile (as after a
// reconnect), which on a server before 3.9 would make it one that never
// tells of children changes; and a recursive watch set where a children
// watch waits leaves it to fire too.
func TestChildrenWatchBesideARecursiveWatch(t *testing.T) {
	for _, childrenFirst := range []bool{false, true} {
		t.Run(fmt.Sprintf("children watch first %v", childrenFirst), func(t *testing.T) {
			ns := recipestest.Namespace(t)
			c := newClientAt(t, server.ConnectString(), framework.WithNamespace(ns))
			w := newClientAt(t, server.ConnectString(), framework.WithNamespace(ns))
			ctx := ctxT(t)
			mustCreate(ctx, t, w, "/p")
			var cw framework.Watch
			childrenW := func() {
				var err error
				if _, _, cw, err = c.ChildrenW(ctx, "/p"); err != nil {
					t.Fatal(err)
				}
			}
			if childrenFirst {
				childrenW()
			}
			pw, err := c.AddWatch(ctx, "/p", framework.WatchPersistentRecursive)
			if err != nil {
				t.Fatal(err)
			}
			if !childrenFirst {
				childrenW()
				if err := pw.Set(ctx); err != nil {
					t.Fatal(err)
				}
			}
			if _, err := w.Create(ctx, "/p/a", nil); err != nil {
				t.Fatal(err)
			}
			ev, err := cw.Wait(ctx)
			if err != nil {
				t.Fatalf("the children watch never fired: %v", err)
			}
			if ev.Type != framework.EventNodeChildrenChanged || ev.Path != "/p" {
				t.Fatalf("the children watch saw %+v", ev)
			}
			if err := pw.Remove(ctx); err != nil {
				t.Fatal(err)
			}
		})
	}
}

// TestOneShotWatchAbandonedOnAPersistentPath: a watching read on a path
// held by a persistent watch whose caller left before the reply (held back
// in the proxy) still replaces the persistent watch on a server before
// 3.9; once the reply comes, the client sets it again and tells the
// listeners, and the watch tells what it told before.
func TestOneShotWatchAbandonedOnAPersistentPath(t *testing.T) {
	ns := recipestest.Namespace(t)
	proxy := recipestest.StartProxy(t, server.Addr())
	c := newClientAt(t, proxy.Addr(), framework.WithNamespace(ns))
	w := newClientAt(t, server.ConnectString(), framework.WithNamespace(ns))
	ctx := ctxT(t)
	mustCreate(ctx, t, w, "/p", "/p/x")
	got := listen(t, c, "/")
	if _, err := c.AddWatch(ctx, "/p", framework.WatchPersistentRecursive); err != nil {
		t.Fatal(err)
	}
	held := proxy.HoldReply(zkharness.OpGetData)
	rctx, cancel := context.WithCancel(ctx)
	go func() {
		<-held.Arrived() // the server set the one-shot watch
		cancel()
	}()
	if _, _, _, err := c.GetW(rctx, "/p"); !errors.Is(err, context.Canceled) {
		t.Fatalf("GetW: %v, want context.Canceled", err)
	}
	held.Deliver()
	got.expect(ctx, t, ev(framework.EventWatchReset, "/p"))
	for i := range 2 {
		deep := fmt.Sprintf("/p/x/%d", i)
		if _, err := w.Create(ctx, deep, nil); err != nil {
			t.Fatal(err)
		}
		got.expect(ctx, t, ev(framework.EventNodeCreated, deep))
	}
	got.none(ctx, t, c)
}
