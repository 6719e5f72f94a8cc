package locks

import (
	"fmt"
	"sync"

	"github.com/gocurator/curator/framework"
	"github.com/gocurator/curator/listener"
)

// connWatch watches the connection for an acquire and then for its hold. It
// is registered before the acquire's first listing, so that no transition
// between the listing that finds the lock held and the hold's start goes
// unseen: the hold is lost if an error state (per the client's error policy)
// came after that listing was sent.
//
// The watch is called at each transition itself
// (framework.Client.WatchConnectionState), before anyone can see the new
// state: no listener that blocks delays a hold's loss, and a transition
// counts against exactly the listings sent after it.
type connWatch struct {
	unlisten func()

	mu   sync.Mutex
	seen int   // error states so far
	err  error // why, for the latest
	hold *Hold // set by attach
}

func watchConnection(client *framework.Client) *connWatch {
	w := &connWatch{}
	policy := client.ErrorPolicy()
	w.unlisten, _ = client.WatchConnectionState(func(s listener.ConnectionState) {
		if !policy.IsErrorState(s) {
			return
		}
		err := fmt.Errorf("%w: connection %v", ErrLockLost, s)
		w.mu.Lock()
		w.seen++
		w.err = err
		h := w.hold
		w.mu.Unlock()
		if h != nil {
			h.markLost(err)
		}
	})
	if w.unlisten == nil { // the client is closed: its calls fail, and no hold is made
		w.unlisten = func() {}
	}
	return w
}

// mark returns a count to take just before sending a listing that may
// decide the lock; attach compares it. A nil watch (an acquire that makes no
// hold) marks 0.
func (w *connWatch) mark() int {
	if w == nil {
		return 0
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.seen
}

// attach hands the watch to h: an error state seen since mark loses h at
// once, and any later one loses it when it comes.
func (w *connWatch) attach(h *Hold, mark int) {
	w.mu.Lock()
	w.hold = h
	lost := w.seen > mark
	err := w.err
	w.mu.Unlock()
	if lost {
		h.markLost(err)
	}
}

// since returns why the latest error state came, if one came after mark.
func (w *connWatch) since(mark int) error {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.seen > mark {
		return w.err
	}
	return nil
}

// stop removes the listener.
func (w *connWatch) stop() { w.unlisten() }
