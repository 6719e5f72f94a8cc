package zkconn

import (
	"testing"
	"time"

	"github.com/go-zookeeper/zk"
)

// TestListenedWatchesKeepTheReconnectGuard: the Listened watches keep no
// Watch, but the table still knows whether go-zookeeper may hold one, as
// go-zookeeper's own table fires and forgets them: that is what tells the
// transport to hold replies until setWatches after a reconnect.
func TestListenedWatchesKeepTheReconnectGuard(t *testing.T) {
	quiet := func() <-chan zk.Event { return make(chan zk.Event, 1) }
	fired := func() <-chan zk.Event {
		ch := make(chan zk.Event, 1)
		ch <- zk.Event{Type: zk.EventNodeDataChanged, Path: "/a"}
		return ch
	}
	steps := []struct {
		name  string
		do    func(t *watchTable)
		holds bool
	}{
		{"none set", func(*watchTable) {}, false},
		{"a data watch", func(t *watchTable) { t.listen("/a", kindData, quiet()) }, true},
		{"a child watch beside it", func(t *watchTable) { t.listen("/a", kindChild, quiet()) }, true},
		{"the data watch fires", func(t *watchTable) { t.notify(Event{Type: NodeDataChanged, Path: "/a"}) }, true},
		{"another path's child change", func(t *watchTable) { t.notify(Event{Type: NodeChildrenChanged, Path: "/b"}) }, true},
		{"the child watch fires", func(t *watchTable) { t.notify(Event{Type: NodeChildrenChanged, Path: "/a"}) }, false},
		{"a watch fired before it was recorded", func(t *watchTable) { t.listen("/a", kindData, fired()) }, false},
		{"an exists watch on a missing node", func(t *watchTable) { t.listen("/c", kindExist, quiet()) }, true},
		{"its node's data changes", func(t *watchTable) { t.notify(Event{Type: NodeDataChanged, Path: "/c"}) }, false},
		{"data and child watches", func(t *watchTable) {
			t.listen("/d", kindData, quiet())
			t.listen("/d", kindChild, quiet())
		}, true},
		{"the node is deleted", func(t *watchTable) { t.notify(Event{Type: NodeDeleted, Path: "/d"}) }, false},
		{"watches on two paths", func(t *watchTable) {
			t.listen("/e", kindChild, quiet())
			t.listen("/f", kindData, quiet())
		}, true},
		{"the session ends: one NotWatching each", func(t *watchTable) {
			t.notify(Event{Type: NotWatching, Path: "/e"})
			t.notify(Event{Type: NotWatching, Path: "/f"})
		}, false},
		{"a kind recorded after its watch fired unseen", func(t *watchTable) {
			t.notify(Event{Type: NodeChildrenChanged, Path: "/g"}) // before listen: nothing to clear
			t.listen("/g", kindChild, quiet())
		}, true},
		{"the session expires", func(t *watchTable) { t.sessionEnded() }, false},
	}
	tab := &watchTable{clock: new(readClock)}
	for _, s := range steps {
		s.do(tab)
		if got := tab.any(); got != s.holds {
			t.Fatalf("after %q: any() = %v, want %v (listened: %v)", s.name, got, s.holds, tab.listened)
		}
	}
	if n := len(tab.listened); n != 0 {
		t.Fatalf("%d paths left in the listened set: %v", n, tab.listened)
	}
}

// TestWatchingReadsCountWhileUnderWay: a watching read counts as a watch
// go-zookeeper may hold from before it is sent until it returns, whatever
// its mode and outcome: go-zookeeper registers the watch as it reads the
// reply, before the read's caller can record it.
func TestWatchingReadsCountWhileUnderWay(t *testing.T) {
	for _, tc := range []struct {
		name  string
		mode  WatchMode
		err   error
		after bool // any() once the read returned
	}{
		{"listened", Listened, nil, true},
		{"listened, failed", Listened, zk.ErrNoNode, false},
		{"watched", Watched, nil, true},
		{"watched, failed", Watched, zk.ErrNoNode, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tab := &watchTable{clock: new(readClock), closing: make(chan struct{})}
			during := false
			w, err := tab.watching("/a", tc.mode, func() (<-chan zk.Event, watchKind, error) {
				during = tab.any()
				return make(chan zk.Event, 1), kindData, tc.err
			})
			if !during {
				t.Error("any() was false while the read was under way")
			}
			if err != tc.err {
				t.Fatalf("err %v, want %v", err, tc.err)
			}
			if got := tab.any(); got != tc.after {
				t.Errorf("any() = %v once the read returned, want %v", got, tc.after)
			}
			if (w != nil) != (tc.mode == Watched && tc.err == nil) {
				t.Errorf("the read returned Watch %v", w)
			}
		})
	}
}

// TestRemovalHoldsBackWatchingReads: a watching read under way makes a
// removal take every kind of one-shot watch as possibly held; one that
// begins during a removal waits for its end before it is sent; and the
// table's watches on a path are the kinds reported.
func TestRemovalHoldsBackWatchingReads(t *testing.T) {
	tab := &watchTable{clock: new(readClock), closing: make(chan struct{})}
	sent := make(chan struct{})
	release := make(chan struct{})
	done := make(chan struct{})
	go func() {
		defer close(done)
		tab.watching("/p", Listened, func() (<-chan zk.Event, watchKind, error) {
			close(sent)
			<-release
			return nil, kindChild, nil
		})
	}()
	<-sent
	if data, children := tab.beginRemoval("/q"); !data || !children {
		t.Fatalf("with a read under way: %v %v, want both", data, children)
	}
	tab.endRemoval()
	close(release)
	<-done
	if data, children := tab.oneShotKinds("/p"); data || !children {
		t.Fatalf("a children watch on /p: %v %v", data, children)
	}

	tab.beginRemoval("/p")
	read := make(chan struct{})
	go func() {
		tab.watching("/r", Listened, func() (<-chan zk.Event, watchKind, error) {
			close(read)
			return nil, kindData, nil
		})
	}()
	select {
	case <-read:
		t.Fatal("a watching read was sent during a removal")
	case <-time.After(50 * time.Millisecond): // a bound on a wait that must not end, not a synchronisation
	}
	tab.endRemoval()
	<-read
}
