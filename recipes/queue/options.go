package queue

import (
	"fmt"
	"strings"

	"github.com/gocurator/curator/framework"
)

// ErrorMode says what a lock-safe queue does with an item whose Consumer
// returned an error (Curator's ErrorMode).
type ErrorMode int

const (
	// Requeue puts the item back at the end of the queue (in one
	// transaction with its removal), to be delivered again: Curator's
	// default.
	Requeue ErrorMode = iota
	// Delete removes the item.
	Delete
)

// String returns the mode's name.
func (m ErrorMode) String() string {
	switch m {
	case Requeue:
		return "Requeue"
	case Delete:
		return "Delete"
	}
	return fmt.Sprintf("ErrorMode(%d)", int(m))
}

// Option configures a queue.
type Option func(*options)

type options struct {
	lockPath        string
	lockSet         bool
	errorMode       ErrorMode
	errorModeSet    bool
	maxItems        int // 0: unbounded
	maxItemsSet     bool
	minBeforeReload int
	minSet          bool
}

// WithLockPath makes the queue lock-safe (Curator's lockPath): before a
// consumer takes an item it creates an ephemeral node named after it under
// path, and removes the item only once its Consumer has returned nil, so
// an item whose consumer fails or dies is delivered again (at least once).
// Every consumer of the queue, Java ones too, must use the same lock path.
// Without it the item is removed before the Consumer runs (at most once).
func WithLockPath(path string) Option { return func(o *options) { o.lockPath, o.lockSet = path, true } }

// WithErrorMode sets what a lock-safe queue does with an item whose
// Consumer returned an error (default Requeue). It needs WithLockPath:
// without a lock the item is already gone when the Consumer runs.
func WithErrorMode(m ErrorMode) Option {
	return func(o *options) { o.errorMode, o.errorModeSet = m, true }
}

// WithMaxItems bounds the queue (Curator's maxItems): a Put waits while
// the queue has n or more nodes. The bound is approximate: producers that
// check at the same moment may all put.
func WithMaxItems(n int) Option { return func(o *options) { o.maxItems, o.maxItemsSet = n, true } }

// WithMinItemsBeforeRefresh sets how many items a PriorityQueue's consumer
// delivers from one listing before it lists the queue again if it has
// changed (Curator's minItemsBeforeRefresh; default 0, a new listing after
// every item once the queue has changed): a higher number costs fewer
// listings and serves a newly put item of higher priority later. It is a
// PriorityQueue's option only.
func WithMinItemsBeforeRefresh(n int) Option {
	return func(o *options) { o.minBeforeReload, o.minSet = n, true }
}

// config is a queue's validated settings.
type config[T any] struct {
	kind     kind
	client   *framework.Client
	path     string
	ser      Serializer[T]
	consumer Consumer[T]
	options
}

// newConfig validates a queue's arguments; nothing is sent.
func newConfig[T any](k kind, client *framework.Client, path string, ser Serializer[T], consumer Consumer[T], opts []Option) (*config[T], error) {
	c := &config[T]{kind: k, client: client, path: path, ser: ser, consumer: consumer}
	for _, opt := range opts {
		if opt == nil {
			return nil, fmt.Errorf("%w: %s %s: nil option", ErrInvalidArg, k.name, path)
		}
		opt(&c.options)
	}
	bad := func(format string, args ...any) (*config[T], error) {
		return nil, fmt.Errorf("%w: %s %s: %s", ErrInvalidArg, k.name, path, fmt.Sprintf(format, args...))
	}
	if client == nil {
		return bad("nil client")
	}
	if ser == nil {
		return bad("nil serializer")
	}
	if err := framework.ValidatePath(path, false); err != nil {
		return bad("%v", err)
	}
	if path == "/" {
		return bad("the root cannot be a queue")
	}
	if k.name == idKind().name && strings.Contains(path, separator) {
		return bad("an id queue's path cannot contain %q", separator)
	}
	if c.lockSet {
		if err := framework.ValidatePath(c.lockPath, false); err != nil {
			return bad("lock path: %v", err)
		}
	} else if c.errorModeSet {
		return bad("WithErrorMode needs WithLockPath")
	}
	switch {
	case c.lockPath == path || strings.HasPrefix(c.lockPath, path+"/"):
		return bad("lock path %s is the queue's or under it: its nodes would be taken for items", c.lockPath)
	case c.lockPath == "/":
		return bad("the root cannot be a lock path")
	case c.errorMode != Requeue && c.errorMode != Delete:
		return bad("error mode %d", c.errorMode)
	case c.maxItemsSet && c.maxItems < 1:
		return bad("max items %d, want at least 1", c.maxItems)
	case c.minSet && !k.refresh:
		return bad("WithMinItemsBeforeRefresh is a PriorityQueue's option")
	case c.minBeforeReload < 0:
		return bad("min items before refresh %d, want 0 or more", c.minBeforeReload)
	}
	if !k.refresh {
		c.minBeforeReload = -1 // never: Curator's Integer.MAX_VALUE
	}
	return c, nil
}
