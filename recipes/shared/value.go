package shared

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/gocurator/curator/framework"
	"github.com/gocurator/curator/internal/delivery"
	"github.com/gocurator/curator/listener"
	"github.com/gocurator/curator/retry"
)

var (
	// ErrNotStarted is returned by a Value's (or Count's) calls before
	// Start: Curator's "not started".
	ErrNotStarted = errors.New("not started")

	// ErrAlreadyStarted is returned by a second Start.
	ErrAlreadyStarted = errors.New("already started")

	// ErrClosed is returned by a Value's calls after Close (or after the
	// context given to Start ended, or a Start that failed), and by Start
	// after Close. errors.Is also matches it with framework.ErrClosed, the
	// library's one sign of "closed".
	ErrClosed error = closedError("closed")
)

// closedError is ErrClosed's type: its own text, and errors.Is matches
// framework.ErrClosed too.
type closedError string

func (e closedError) Error() string { return string(e) }

func (e closedError) Is(target error) bool { return target == framework.ErrClosed }

// Versioned is a value with the node version it was read at; TrySet takes
// it to set the value only if nobody has set it since.
type Versioned[T any] struct {
	Version int32
	Value   T
}

// Value is Curator's SharedValue: the bytes of one node, shared by every
// participant. Make one with NewValue, Start it, and Close it when done.
type Value struct {
	client *framework.Client
	path   string
	seed   []byte

	listeners *delivery.Container[[]byte]
	report    report

	mu        sync.Mutex
	cur       Versioned[[]byte]
	mzxid     int64 // of the value held: orders reads, across a delete and re-create too
	state     runState
	stop      context.CancelFunc
	stopAfter func() bool   // unregisters the Close that Start's context's end calls
	done      chan struct{} // closed when the watcher returns
	closing   bool          // Close has begun
	closed    chan struct{} // closed when the first Close has finished
}

type runState int

const (
	created  runState = iota
	starting          // Start is reading the node
	running           // the watcher runs
	closed            // Close has begun, Start failed, or Start's context ended
)

// NewValue returns a Value for the node at path, created with seed if it
// does not exist when the Value starts (a nil seed is an empty value).
func NewValue(client *framework.Client, path string, seed []byte, opts ...Option) (*Value, error) {
	return newValue(client, path, seed, "value", opts)
}

// newValue is NewValue for the recipe named recipe in the hooks' events.
func newValue(client *framework.Client, path string, seed []byte, recipe string, opts []Option) (*Value, error) {
	if client == nil {
		return nil, fmt.Errorf("%w: nil client", framework.ErrInvalidArg)
	}
	if err := framework.ValidatePath(path, false); err != nil || path == "/" {
		return nil, fmt.Errorf("%w: shared value path %q: %w", framework.ErrInvalidArg, path, err)
	}
	o, err := applyOptions(opts)
	if err != nil {
		return nil, err
	}
	if seed == nil {
		seed = []byte{} // an empty value: nil would be the client's default data
	}
	return &Value{client: client, path: path, seed: bytes.Clone(seed),
		listeners: delivery.NewContainer[[]byte](delivery.DefaultLimit, nil), closed: make(chan struct{}),
		report: report{hooks: client.Hooks(), recipe: recipe, label: o.label, path: path}}, nil
}

// Start creates the node with the seed if it is missing (with container
// parents, as Curator's creatingParentContainersIfNeeded), reads it, and
// starts watching it; as Curator's start, it returns once the node has been
// read, or with the error that kept it from being read, which leaves the
// Value closed. ctx is the Value's lifetime (docs/lifecycle.md): it bounds
// that read, and when it ends the Value closes as Close does, so pass the
// context the application runs under, not a timeout. A Value starts once;
// Start after Close returns ErrClosed.
func (v *Value) Start(ctx context.Context) error {
	v.mu.Lock()
	switch v.state {
	case starting, running:
		v.mu.Unlock()
		return fmt.Errorf("%w: shared value %s", ErrAlreadyStarted, v.path)
	case closed:
		v.mu.Unlock()
		return fmt.Errorf("%w: shared value %s was closed before Start", ErrClosed, v.path)
	}
	v.state = starting
	v.mu.Unlock()
	data, stat, w, err := v.load(ctx)
	if err != nil {
		v.mu.Lock()
		if v.state == starting {
			v.state = closed // a failed Start is final
		}
		v.mu.Unlock()
		v.Close()
		return err
	}
	v.update(stat, data)
	wctx, cancel := context.WithCancel(ctx)
	v.mu.Lock()
	defer v.mu.Unlock()
	if v.state != starting { // Close came while Start was reading: start nothing
		cancel()
		return fmt.Errorf("%w: shared value %s closed while starting", ErrClosed, v.path)
	}
	v.state, v.stop, v.done = running, cancel, make(chan struct{})
	go v.watch(wctx, w)
	v.stopAfter = context.AfterFunc(ctx, func() { _ = v.Close() })
	return nil
}

// load creates the node if it is missing, and reads it with a watch.
func (v *Value) load(ctx context.Context) ([]byte, *framework.Stat, framework.Watch, error) {
	// Kept if ctx ends before the answer: others may already read it.
	_, err := v.client.Create(ctx, v.path, v.seed, framework.WithContainerParents(), framework.WithoutUndo())
	if err != nil && !errors.Is(err, framework.ErrNodeExists) {
		return nil, nil, framework.Watch{}, err
	}
	return v.client.GetW(ctx, v.path)
}

// Get returns the value as last seen, with its version.
func (v *Value) Get() Versioned[[]byte] {
	v.mu.Lock()
	defer v.mu.Unlock()
	return Versioned[[]byte]{v.cur.Version, bytes.Clone(v.cur.Value)}
}

// Set sets the value whatever it is now.
func (v *Value) Set(ctx context.Context, value []byte) error {
	if err := v.check(); err != nil {
		return err
	}
	stat, err := v.client.Set(ctx, v.path, value, -1)
	if err != nil {
		return err
	}
	v.update(stat, value)
	return nil
}

// TrySet sets the value only if prev is still the value: it returns false,
// and reads the value again, if another participant set it since prev was
// read (or if prev is not the value this Value last saw), as Curator's
// trySetValue. If the write's reply is lost (the connection dropped) and
// the node cannot tell whether it was applied, TrySet returns an error
// wrapping framework.ErrOutcomeUnknown, never false: Curator retries the
// write, which then finds the version moved on by its own first attempt,
// and reports a refusal for a value it set.
func (v *Value) TrySet(ctx context.Context, prev Versioned[[]byte], value []byte) (bool, error) {
	if err := v.check(); err != nil {
		return false, err
	}
	if err := ctx.Err(); err != nil {
		return false, err // nothing sent
	}
	if cur := v.Get(); cur.Version != prev.Version || !bytes.Equal(cur.Value, prev.Value) {
		v.report.trySet(true)
		return false, nil
	}
	// One attempt, without the client's retries (see retry.Do on nested
	// loops): a retry after a lost reply would be refused if the first was
	// applied. A write whose reply was lost goes to settle.
	var stat *framework.Stat
	err := retry.Do(ctx, nil, func(ctx context.Context) error {
		var err error
		stat, err = v.client.Set(ctx, v.path, value, prev.Version)
		return err
	})
	switch {
	case err == nil:
		v.update(stat, value)
		v.report.trySet(false)
		return true, nil
	case errors.Is(err, framework.ErrBadVersion):
		v.report.trySet(true)
		return false, v.read(ctx)
	case refused(err):
		return false, err
	}
	return v.settle(ctx, prev.Version, value, err)
}

// settle finds out what became of a set at version whose reply was lost
// (lost is the error it ended with). It sends the same set again, with the
// client's retries: of the sets at one version at most one succeeds, so if
// this one does, the first was not applied, and the value was set once. If
// it is refused, the node says whose set won where it can: one that moved
// the node on by one version with other bytes than ours was another
// participant's.
func (v *Value) settle(ctx context.Context, version int32, value []byte, lost error) (bool, error) {
	unknown := func(cause error) (bool, error) {
		if ctx.Err() == nil {
			_ = v.read(ctx) // the next TrySet starts from the node as it is
		}
		return false, fmt.Errorf("shared value %s: the set may or may not have been applied: %w: %w", v.path, framework.ErrOutcomeUnknown, cause)
	}
	if ctx.Err() != nil {
		return unknown(lost)
	}
	stat, err := v.client.Set(ctx, v.path, value, version)
	switch {
	case err == nil:
		v.update(stat, value)
		v.report.trySet(false)
		return true, nil
	case !errors.Is(err, framework.ErrBadVersion):
		return unknown(errors.Join(lost, err))
	}
	data, stat, err := v.client.Get(ctx, v.path)
	if err != nil {
		return unknown(errors.Join(lost, err))
	}
	if stat.Version == version+1 && !bytes.Equal(data, value) {
		v.update(stat, data)
		v.report.trySet(true)
		return false, nil // the set at our version was another's
	}
	return unknown(lost)
}

// refused reports whether err says a set was not applied, or failed before
// it was sent: anything but a lost reply.
func refused(err error) bool {
	for _, e := range []error{framework.ErrNoNode, framework.ErrNoAuth, framework.ErrInvalidArg, framework.ErrInvalidPath, framework.ErrNotStarted, ErrNotStarted} {
		if errors.Is(err, e) {
			return true
		}
	}
	return false
}

// AddListener calls fn with every new value the Value sees, in order, on a
// goroutine of the Value's (a listener that blocks delays the ones after
// it, never the Value or the client): the values it reads and the ones this
// Value sets itself. It returns a function that removes it. Values set in a
// row reach fn as the last of them only, if the watch saw only that one;
// a listener more than 1024 values behind loses the oldest. fn must not
// call Close.
func (v *Value) AddListener(fn func(value []byte)) (remove func()) {
	return v.listeners.Add(fn)
}

// Close stops watching and the listeners' goroutine; the node stays.
// Close is idempotent (a later call waits for the first to finish and
// returns nil), and a Value closed before Start never starts. It must not
// be called from a listener.
func (v *Value) Close() error {
	v.mu.Lock()
	first := !v.closing
	v.closing, v.state = true, closed
	stop, stopAfter, done := v.stop, v.stopAfter, v.done
	v.mu.Unlock()
	if !first {
		<-v.closed
		return nil
	}
	if stopAfter != nil {
		stopAfter()
	}
	if stop != nil {
		stop()
		<-done
	}
	v.listeners.Close()
	close(v.closed)
	return nil
}

// check returns ErrNotStarted before Start and ErrClosed after Close, and
// nil while the Value runs.
func (v *Value) check() error {
	v.mu.Lock()
	defer v.mu.Unlock()
	switch {
	case v.state == created || v.state == starting:
		return fmt.Errorf("%w: shared value %s", ErrNotStarted, v.path)
	case v.state == closed || v.done == nil:
		return fmt.Errorf("%w: shared value %s", ErrClosed, v.path)
	}
	select {
	case <-v.done: // Start's context ended; Close is under way
		return fmt.Errorf("%w: shared value %s", ErrClosed, v.path)
	default:
		return nil
	}
}

// update records a value read or set with stat, and tells the listeners,
// if it is newer than the one held: a later modification zxid, which a
// version alone would not tell after the node was deleted and made again.
func (v *Value) update(stat *framework.Stat, value []byte) {
	v.mu.Lock()
	if stat.Mzxid <= v.mzxid {
		v.mu.Unlock()
		return
	}
	v.cur, v.mzxid = Versioned[[]byte]{stat.Version, bytes.Clone(value)}, stat.Mzxid
	v.listeners.Post(bytes.Clone(value)) // under v.mu, so that listeners hear values in the order they were taken; Post never blocks
	v.mu.Unlock()
}

// read reads the node again.
func (v *Value) read(ctx context.Context) error {
	data, stat, err := v.client.Get(ctx, v.path)
	if err != nil {
		return err
	}
	v.update(stat, data)
	return nil
}

// watch reads the node each time its watch fires, and after every new
// session (a watch does not survive one, and changes made meanwhile are not
// replayed), until ctx ends.
func (v *Value) watch(ctx context.Context, w framework.Watch) {
	defer close(v.done)
	var lastErr string
	for {
		_, changed := v.client.StateChanged()
		select {
		case <-w.Done():
		case <-changed:
			if v.client.State() != listener.Reconnected {
				continue
			}
		case <-ctx.Done():
			return
		}
		for {
			data, stat, next, err := v.client.GetW(ctx, v.path)
			if err == nil {
				v.update(stat, data)
				w = next
				break
			}
			if errors.Is(err, framework.ErrClosed) {
				return // the client is closed: nothing more to see
			}
			if errors.Is(err, framework.ErrNoNode) { // deleted: wait for it to come back
				if ok, _, next, err := v.client.ExistsW(ctx, v.path); err == nil && !ok {
					w = next
					break
				}
			}
			if msg := err.Error(); msg != lastErr { // once per kind of failure, not every try
				lastErr = msg
				v.client.Logger().Warn("shared value: reading the node failed; trying again", "path", v.path, "err", err)
			}
			select {
			case <-ctx.Done():
				return
			case <-time.After(100 * time.Millisecond): // the retry policy gave up for now
			}
		}
	}
}
