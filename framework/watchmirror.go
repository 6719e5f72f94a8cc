package framework

import (
	"sync"

	"github.com/go-zookeeper/zk"
)

// watchMirror counts the watches go-zookeeper holds, as its own table does
// (conn.go's watchers: one channel per successful watching call, by path
// and kind; a notification removes the kinds it fires; an expiry or close
// removes all). The client asks it at a reconnect whether go-zookeeper will
// send a setWatches request (see transport's replyGate). It can count a
// watch go-zookeeper no longer holds: one whose notification came between
// go-zookeeper's registering it and the call's return (added runs after
// fired then); the gate's time limit covers that.
type watchMirror struct {
	mu sync.Mutex
	n  map[watchKey]int
}

type watchKind uint8

const (
	watchData watchKind = iota
	watchExist
	watchChild
)

type watchKey struct {
	path string // a server path
	kind watchKind
}

// added counts a watch go-zookeeper registered for a successful call.
func (m *watchMirror) added(path string, kind watchKind) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.n == nil {
		m.n = make(map[watchKey]int)
	}
	m.n[watchKey{path, kind}]++
}

// fired forgets the watches a notification fires, as go-zookeeper's
// notifyWatches does, or all of them for EventNotWatching.
func (m *watchMirror) fired(ev zk.Event) {
	m.mu.Lock()
	defer m.mu.Unlock()
	var kinds []watchKind
	switch ev.Type {
	case zk.EventNotWatching:
		clear(m.n)
		return
	case zk.EventNodeCreated:
		kinds = []watchKind{watchExist}
	case zk.EventNodeDataChanged:
		kinds = []watchKind{watchExist, watchData}
	case zk.EventNodeChildrenChanged:
		kinds = []watchKind{watchChild}
	case zk.EventNodeDeleted:
		kinds = []watchKind{watchExist, watchData, watchChild}
	}
	for _, k := range kinds {
		delete(m.n, watchKey{ev.Path, k})
	}
}

// any reports whether go-zookeeper may hold a watch.
func (m *watchMirror) any() bool {
	m.mu.Lock()
	defer m.mu.Unlock()
	return len(m.n) > 0
}
