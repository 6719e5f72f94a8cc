package locks

import (
	"context"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/gocurator/curator/driver"
	"github.com/gocurator/curator/framework"
)

// MutexLockName is the name of a Mutex's nodes: P/_c_<uuid>-lock-NNNNNNNNNN.
const MutexLockName = "lock-"

// Mutex is Curator's InterProcessMutex: a reentrant lock across processes.
// Re-entry is per Owner (see WithOwner); goroutines sharing one Mutex
// without sharing an Owner exclude each other as separate processes do.
type Mutex struct {
	li *LockInternals

	mu        sync.Mutex
	holds     map[*Owner]*Hold
	acquiring map[*Owner]chan struct{} // an owner's acquire in progress
	takers    map[*Owner]uint64        // the goroutine that took each hold acquired without an Owner
	revoke    func()
	guard     func(*Owner) error // refuses an acquire before it starts; may be nil
	selfWaits []selfWait         // refuse an Acquire without an Owner that would wait on its own goroutine
	only      string             // Participants lists only nodes with this in their name ("": all)
}

// NewMutex returns a mutex at path with Curator's standard driver.
func NewMutex(client *framework.Client, path string, opts ...Option) (*Mutex, error) {
	return NewMutexWithDriver(client, path, driver.Standard{}, opts...)
}

// NewMutexWithDriver returns a mutex at path that makes its decisions
// through drv.
func NewMutexWithDriver(client *framework.Client, path string, drv driver.LockDriver, opts ...Option) (*Mutex, error) {
	return newMutex(client, path, MutexLockName, 1, drv, opts)
}

func newMutex(client *framework.Client, path, lockName string, maxLeases int, drv driver.LockDriver, opts []Option) (*Mutex, error) {
	o, err := applyOptions(opts)
	if err != nil {
		return nil, err
	}
	li, err := NewLockInternals(client, path, lockName, maxLeases, drv, o.data)
	if err != nil {
		return nil, err
	}
	li.report = newReport(client, "mutex", o.label, path)
	m := &Mutex{li: li, holds: make(map[*Owner]*Hold), acquiring: make(map[*Owner]chan struct{}), takers: make(map[*Owner]uint64)}
	m.selfWaits = []selfWait{selfWaitOn(m, "lock")}
	return m, nil
}

// Acquire waits until the lock is held and returns the hold; ctx's deadline
// is the timeout. If ctx's owner (WithOwner) holds the lock already, the
// hold is re-entered at once and returned again: release it once per
// Acquire. If that hold was lost, Acquire returns its ErrLockLost instead:
// release it, then acquire again. On error or cancel no node of ours is
// left behind.
//
// Without an Owner in ctx, Acquire never re-enters; if the calling goroutine
// took the lock without an Owner and has not released that hold, Acquire
// returns ErrSelfDeadlock at once instead of waiting for its release.
func (m *Mutex) Acquire(ctx context.Context) (*Hold, error) {
	return m.acquire(ctx, false)
}

// TryAcquire takes the lock only if it is free now: Curator's acquire with a
// zero wait. Otherwise it returns ErrBusy, leaving no node behind; so it does
// while another Acquire for the same owner is under way.
func (m *Mutex) TryAcquire(ctx context.Context) (*Hold, error) {
	return m.acquire(ctx, true)
}

func (m *Mutex) acquire(ctx context.Context, try bool) (h *Hold, err error) {
	start := time.Now()
	defer func() { m.li.report.acquire(start, err) }()
	ctx, taker := actingFor(ctx) // drivers see who acquires
	if taker != 0 && !try {
		if err := m.refuseSelfWait(taker, OwnerFrom(ctx)); err != nil {
			return nil, err
		}
	}
	return m.acquireFor(ctx, try, taker)
}

// acquireFor acquires for ctx's owner. taker is the goroutine that asked
// without an Owner (0: one was given): the hold counts as that goroutine's
// in refuseSelfWait.
func (m *Mutex) acquireFor(ctx context.Context, try bool, taker uint64) (*Hold, error) {
	owner := OwnerFrom(ctx)
	if m.guard != nil {
		if err := m.guard(owner); err != nil {
			return nil, err
		}
	}
	// One acquire per owner at a time: a second one waits for the first and
	// then re-enters its hold.
	for {
		m.mu.Lock()
		if h := m.holds[owner]; h != nil {
			if ok, err := h.reenter(); ok {
				m.mu.Unlock()
				if err != nil {
					return nil, err // release the lost hold, then acquire again
				}
				return h, nil
			}
		}
		busy, ok := m.acquiring[owner]
		if !ok {
			m.acquiring[owner] = make(chan struct{})
			m.mu.Unlock()
			break
		}
		m.mu.Unlock()
		if try {
			return nil, ErrBusy // the owner's other acquire may take a while
		}
		select {
		case <-busy:
		case <-ctx.Done():
			return nil, ctx.Err()
		}
	}
	tk, err := m.li.acquire(ctx, try, false)

	m.mu.Lock()
	defer m.mu.Unlock()
	close(m.acquiring[owner])
	delete(m.acquiring, owner)
	if err != nil {
		return nil, err
	}
	var h *Hold
	h = newHold(m.li.client, tk.path, func() {
		m.mu.Lock()
		defer m.mu.Unlock()
		if m.holds[owner] == h {
			delete(m.holds, owner)
			delete(m.takers, owner)
		}
	}, m.revoke, tk.sess, m.li.report)
	h.woke = tk.woke
	m.holds[owner] = h
	if taker != 0 {
		m.takers[owner] = taker
	}
	return h, nil
}

// Path returns the lock's path.
func (m *Mutex) Path() string { return m.li.Dir() }

// IsAcquiredInThisProcess reports whether any owner in this process holds
// the lock through this Mutex (a lost hold does not count).
func (m *Mutex) IsAcquiredInThisProcess() bool {
	m.mu.Lock()
	defer m.mu.Unlock()
	for _, h := range m.holds {
		if h.isCurrent() {
			return true
		}
	}
	return false
}

// holdOf returns o's hold, or nil; a hold being released counts as gone.
func (m *Mutex) holdOf(o *Owner) *Hold {
	m.mu.Lock()
	h := m.holds[o]
	m.mu.Unlock()
	if h == nil || h.isReleased() {
		return nil
	}
	return h
}

// takerOf returns the goroutine that took o's hold without an Owner, or 0.
func (m *Mutex) takerOf(o *Owner) uint64 {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.takers[o]
}

// ownerOf returns the owner whose hold h is, if h is current, else nil.
func (m *Mutex) ownerOf(h *Hold) *Owner {
	if h == nil {
		return nil
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	for o, held := range m.holds {
		if held == h && h.isCurrent() {
			return o
		}
	}
	return nil
}

// IsOwnedBy reports whether o holds the lock through this Mutex
// (Curator's isOwnedByCurrentThread); a lost hold is not held.
func (m *Mutex) IsOwnedBy(o *Owner) bool {
	h := m.holdOf(o)
	return h != nil && h.isCurrent()
}

// Participants returns the full paths of every participant's node, holder
// first, in queue order (Curator's getParticipantNodes).
func (m *Mutex) Participants(ctx context.Context) ([]string, error) {
	nodes, err := m.li.Participants(ctx)
	if err != nil || m.only == "" {
		return nodes, err
	}
	return slices.DeleteFunc(nodes, func(p string) bool {
		_, name := framework.SplitPath(p)
		return !strings.Contains(name, m.only)
	}), nil
}

// MakeRevocable calls fn when another process asks a holder of this mutex to
// release (Revoke on its node). Holds acquired afterwards watch for such
// requests; fn should release the hold, and may do so itself: it runs on
// the goroutine that watches the hold's node, which Release then does not
// wait for.
func (m *Mutex) MakeRevocable(fn func()) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.revoke = fn
}

// Revoke asks the holder of the node at path to release it, by writing
// RevokeMessage into the node as Curator's Revoker does. A node already
// gone is not an error.
func Revoke(ctx context.Context, client *framework.Client, path string) error {
	_, err := client.Set(ctx, path, RevokeMessage, -1)
	if err != nil && !isNoNode(err) {
		return err
	}
	return nil
}
