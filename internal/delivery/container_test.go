package delivery_test

import (
	"runtime"
	"slices"
	"sync"
	"testing"
	"time"

	"go.uber.org/goleak"

	"github.com/gocurator/curator/internal/delivery"
	"github.com/gocurator/curator/listener"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

// recorder collects what a listener saw; done is closed once it saw want events.
type recorder[E any] struct {
	mu   sync.Mutex
	got  []E
	want int
	done chan struct{}
}

func newRecorder[E any](want int) *recorder[E] {
	return &recorder[E]{want: want, done: make(chan struct{})}
}

func (r *recorder[E]) listen(e E) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.got = append(r.got, e)
	if len(r.got) == r.want {
		close(r.done)
	}
}

func (r *recorder[E]) events() []E {
	r.mu.Lock()
	defer r.mu.Unlock()
	return slices.Clone(r.got)
}

func TestContainerDeliversInOrderToEveryListener(t *testing.T) {
	c := delivery.NewContainer[int](0, nil)
	defer c.Close()
	a, b := newRecorder[int](100), newRecorder[int](100)
	c.Add(a.listen)
	c.Add(b.listen)
	var want []int
	for i := range 100 {
		c.Post(i)
		want = append(want, i)
	}
	<-a.done
	<-b.done
	if got := a.events(); !slices.Equal(got, want) {
		t.Fatalf("listener a saw %v, want %v", got, want)
	}
	if got := b.events(); !slices.Equal(got, want) {
		t.Fatalf("listener b saw %v, want %v", got, want)
	}
}

func TestContainerRemoveStopsDelivery(t *testing.T) {
	c := delivery.NewContainer[int](0, nil)
	removed := newRecorder[int](1)
	kept := newRecorder[int](2)
	remove := c.Add(removed.listen)
	c.Add(kept.listen)
	c.Post(1)
	<-removed.done
	remove()
	remove() // a second call is harmless
	c.Post(2)
	<-kept.done
	c.Close()
	if got := removed.events(); !slices.Equal(got, []int{1}) {
		t.Fatalf("removed listener saw %v, want [1]", got)
	}
}

// A blocked listener must not block Post, and the queue stays bounded.
func TestContainerPostNeverBlocksAndStaysBounded(t *testing.T) {
	const limit = 4
	c := delivery.NewContainer[int](limit, nil)
	release := make(chan struct{})
	entered := make(chan struct{})
	rec := newRecorder[int](1 + limit)
	c.Add(func(e int) {
		if e == 0 {
			close(entered)
			<-release
		}
		rec.listen(e)
	})
	c.Post(0)
	<-entered
	for i := 1; i <= 100; i++ {
		c.Post(i) // would deadlock the test if Post blocked
	}
	close(release)
	<-rec.done
	c.Close()
	// The oldest were dropped (nil fold): the last `limit` posts survive.
	if got, want := rec.events(), []int{0, 97, 98, 99, 100}; !slices.Equal(got, want) {
		t.Fatalf("saw %v, want %v", got, want)
	}
}

func TestContainerCloseDeliversPendingThenStops(t *testing.T) {
	c := delivery.NewContainer[int](0, nil)
	rec := newRecorder[int](3)
	c.Add(rec.listen)
	c.Post(1)
	c.Post(2)
	c.Post(3)
	c.Close()
	c.Post(4) // dropped after Close
	c.Close() // idempotent
	if got := rec.events(); !slices.Equal(got, []int{1, 2, 3}) {
		t.Fatalf("saw %v, want [1 2 3]", got)
	}
}

// A listener that closes its container must not wait on its own goroutine:
// Close returns, the events posted before it are still delivered, and the
// goroutine stops (goleak checks) once the listener has returned.
func TestContainerCloseFromAListener(t *testing.T) {
	c := delivery.NewContainer[int](0, nil)
	posted, returned := make(chan struct{}), make(chan struct{})
	rec := newRecorder[int](3)
	c.Add(func(e int) {
		rec.listen(e)
		if e == 1 {
			<-posted
			c.Close() // would wait forever on this goroutine
			c.Close() // and so would a second call
			close(returned)
		}
	})
	c.Post(1)
	c.Post(2)
	c.Post(3)
	close(posted)
	<-returned
	c.Post(4) // dropped after Close
	c.Close() // waits for the goroutine, which delivers 2 and 3 first
	if got := rec.events(); !slices.Equal(got, []int{1, 2, 3}) {
		t.Fatalf("saw %v, want [1 2 3]", got)
	}
}

func TestFoldFlapsKeepsLostAndLatestState(t *testing.T) {
	S, R, L := listener.Suspended, listener.Reconnected, listener.Lost
	tests := []struct {
		in, want []listener.ConnectionState
	}{
		{[]listener.ConnectionState{S, R, S, R}, []listener.ConnectionState{S, R}},
		{[]listener.ConnectionState{S, L, R, S, R}, []listener.ConnectionState{S, L, R}},
		{[]listener.ConnectionState{S, L, R}, []listener.ConnectionState{S, L, R}},
	}
	for _, tt := range tests {
		if got := delivery.FoldFlaps(slices.Clone(tt.in)); !slices.Equal(got, tt.want) {
			t.Errorf("FoldFlaps(%v) = %v, want %v", tt.in, got, tt.want)
		}
	}
}

// With FoldFlaps, a listener stuck through many flaps still sees the Lost.
func TestContainerWithFoldFlapsNeverLosesLost(t *testing.T) {
	const limit = 8
	c := delivery.NewContainer(limit, delivery.FoldFlaps)
	release := make(chan struct{})
	entered := make(chan struct{})
	var (
		mu  sync.Mutex
		got []listener.ConnectionState
	)
	last := make(chan struct{})
	c.Add(func(s listener.ConnectionState) {
		if s == listener.Connected {
			close(entered)
			<-release
		}
		mu.Lock()
		got = append(got, s)
		mu.Unlock()
		if s == listener.Lost {
			close(last)
		}
	})
	c.Post(listener.Connected)
	<-entered
	for range 50 {
		c.Post(listener.Suspended)
		c.Post(listener.Reconnected)
	}
	c.Post(listener.Suspended)
	c.Post(listener.Lost)
	close(release)
	<-last
	c.Close()
	mu.Lock()
	defer mu.Unlock()
	if got[len(got)-1] != listener.Lost || got[len(got)-2] != listener.Suspended {
		t.Fatalf("lost the end of the sequence: %v", got)
	}
	if len(got) > limit+1 {
		t.Fatalf("queue grew past its bound: %d events delivered", len(got))
	}
}

func TestStateStringsAndIsConnected(t *testing.T) {
	for s, want := range map[listener.ConnectionState]struct {
		name string
		conn bool
	}{
		listener.Connected:   {"CONNECTED", true},
		listener.Suspended:   {"SUSPENDED", false},
		listener.Reconnected: {"RECONNECTED", true},
		listener.Lost:        {"LOST", false},
		listener.ReadOnly:    {"READ_ONLY", true},
		0:                    {"UNKNOWN", false},
	} {
		if s.String() != want.name || s.IsConnected() != want.conn {
			t.Errorf("%d: got %q/%v, want %q/%v", s, s.String(), s.IsConnected(), want.name, want.conn)
		}
	}
}

func TestErrorPolicies(t *testing.T) {
	std, sess := listener.StandardErrorPolicy{}, listener.SessionErrorPolicy{}
	for _, s := range []listener.ConnectionState{listener.Connected, listener.Suspended, listener.Reconnected, listener.Lost, listener.ReadOnly} {
		if got, want := std.IsErrorState(s), s == listener.Suspended || s == listener.Lost; got != want {
			t.Errorf("Standard.IsErrorState(%v) = %v", s, got)
		}
		if got, want := sess.IsErrorState(s), s == listener.Lost; got != want {
			t.Errorf("Session.IsErrorState(%v) = %v", s, got)
		}
	}
}

// TestRemovedListenerIsCollected: once removed, a listener is no longer
// referenced, so what it refers to (a closed cache and its copy of a tree)
// can be collected, whichever listener it was.
func TestRemovedListenerIsCollected(t *testing.T) {
	c := delivery.NewContainer[int](0, nil)
	defer c.Close()
	removeFirst := c.Add(func(int) {})
	freed := make(chan struct{})
	func() {
		held := new([1 << 10]byte)
		remove := c.Add(func(int) { _ = held[0] })
		runtime.AddCleanup(held, func(ch chan struct{}) { close(ch) }, freed)
		remove() // the last listener: its slot was kept by the slice
	}()
	defer removeFirst()
	for range 100 {
		runtime.GC()
		select {
		case <-freed:
			return
		case <-time.After(10 * time.Millisecond):
		}
	}
	t.Fatal("a removed listener is still referenced")
}
