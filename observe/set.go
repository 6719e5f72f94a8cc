package observe

import (
	"errors"
	"fmt"
	"log/slog"
	"sync"
	"sync/atomic"
	"time"
)

// Limit is how many events wait for slow hooks, at most, before the oldest
// are dropped.
const Limit = 10_000

// closeGrace bounds how long Close waits for a hook call under way.
const closeGrace = time.Second

// ErrNotAHook is New's error for a value that implements none of the hook
// interfaces.
var ErrNotAHook = errors.New("not a hook: implements none of observe's hook interfaces")

// Hooks is the set of hooks registered on one client, with the goroutine
// that calls them. The client builds it (framework.WithHooks) and closes it;
// recipes report to it through framework.Client.Hooks. A nil *Hooks has no
// hook: its methods do nothing, and build nothing.
type Hooks struct {
	log       *slog.Logger
	request   []entry[RequestHook]
	operation []entry[OperationHook]
	retry     []entry[RetryHook]
	state     []entry[StateHook]
	lock      []entry[LockHook]
	leader    []entry[LeaderHook]
	cache     []entry[CacheHook]
	shared    []entry[SharedHook]

	dropped atomic.Int64

	mu       sync.Mutex
	queue    []func()
	wake     chan struct{} // capacity 1
	running  bool          // the delivery goroutine runs
	closed   bool
	stopped  chan struct{} // closed when the delivery goroutine returns
	panicked []bool        // by hook: its panic was logged; the delivery goroutine's own
}

// entry is one registered hook, and its place among those New was given.
type entry[H any] struct {
	id   int
	hook H
}

// register adds x to *list if it is an H, and reports whether it was.
func register[H any](list *[]entry[H], id int, x any) bool {
	h, ok := x.(H)
	if ok {
		*list = append(*list, entry[H]{id, h})
	}
	return ok
}

// New returns the set of hooks, nil if there are none. Each must implement
// at least one hook interface. log receives a hook's first panic.
func New(log *slog.Logger, hooks ...any) (*Hooks, error) {
	if len(hooks) == 0 {
		return nil, nil
	}
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	h := &Hooks{log: log, wake: make(chan struct{}, 1), stopped: make(chan struct{}), panicked: make([]bool, len(hooks))}
	for i, x := range hooks {
		// Every register runs: a hook may implement several interfaces.
		matched := register(&h.request, i, x)
		matched = register(&h.operation, i, x) || matched
		matched = register(&h.retry, i, x) || matched
		matched = register(&h.state, i, x) || matched
		matched = register(&h.lock, i, x) || matched
		matched = register(&h.leader, i, x) || matched
		matched = register(&h.cache, i, x) || matched
		matched = register(&h.shared, i, x) || matched
		if !matched {
			return nil, fmt.Errorf("hook %d (%T): %w", i, x, ErrNotAHook)
		}
	}
	return h, nil
}

// Dropped returns how many events were dropped because the hooks fell
// Limit events behind, or came after Close.
func (h *Hooks) Dropped() int64 {
	if h == nil {
		return 0
	}
	return h.dropped.Load()
}

// post queues f for the delivery goroutine, which it starts if need be. It
// never blocks.
func (h *Hooks) post(f func()) {
	h.mu.Lock()
	if h.closed {
		h.mu.Unlock()
		h.dropped.Add(1)
		return
	}
	if len(h.queue) >= Limit {
		h.queue[0] = nil
		h.queue = h.queue[1:]
		h.dropped.Add(1)
	}
	h.queue = append(h.queue, f)
	if !h.running {
		h.running = true
		go h.deliver()
	}
	h.mu.Unlock()
	select {
	case h.wake <- struct{}{}:
	default:
	}
}

func (h *Hooks) deliver() {
	defer close(h.stopped)
	for {
		h.mu.Lock()
		if h.closed {
			h.mu.Unlock()
			return
		}
		if len(h.queue) == 0 {
			h.mu.Unlock()
			<-h.wake
			continue
		}
		f := h.queue[0]
		h.queue[0] = nil
		h.queue = h.queue[1:]
		h.mu.Unlock()
		f()
	}
}

// call calls one hook, recovering a panic: the first of each hook is
// logged, and the hook is called again for the next event.
func call[H any](h *Hooks, e entry[H], f func()) {
	defer func() {
		if r := recover(); r != nil && !h.panicked[e.id] {
			h.panicked[e.id] = true
			h.log.Error("an observe hook panicked; it is called again for later events", "hook", fmt.Sprintf("%T", e.hook), "panic", r)
		}
	}()
	f()
}

// Close stops delivery: events not yet delivered are dropped (and
// counted), and later ones too. It waits for a hook call under way, up to a
// second; a hook still blocked then is left to return on its own, and its
// goroutine with it.
func (h *Hooks) Close() {
	if h == nil {
		return
	}
	h.mu.Lock()
	if h.closed {
		h.mu.Unlock()
		return
	}
	h.closed = true
	h.dropped.Add(int64(len(h.queue)))
	h.queue = nil
	running := h.running
	h.mu.Unlock()
	if !running {
		return
	}
	select {
	case h.wake <- struct{}{}:
	default:
	}
	t := time.NewTimer(closeGrace)
	defer t.Stop()
	select {
	case <-h.stopped:
	case <-t.C:
		h.log.Warn("an observe hook still blocks a second after the client closed; leaving it")
	}
}
