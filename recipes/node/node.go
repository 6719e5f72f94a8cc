package node

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"sync"

	"github.com/gocurator/curator/framework"
	"github.com/gocurator/curator/internal/delivery"
)

// Node is Curator's PersistentNode: a node that exists, with this Node's
// data, from Start until Close, created again whenever it goes. Make one
// with New, Start it, and Close it before its client.
type Node struct {
	client *framework.Client
	base   string // the path asked for
	opts   options
	keep   bool // Close leaves the node (a TTLNode's container)
	events *delivery.Container[Event]

	mu       sync.Mutex
	state    runState
	data     []byte
	gen      uint64        // how many times the data was set (New counts as the first)
	written  uint64        // the gen the node holds, as far as the Node knows
	path     string        // the node's path once first made; it never changes after
	inPlace  bool          // the node is there, as far as the Node knows
	refusal  error         // why the latest attempt failed, nil after a success
	refusals uint64        // how many attempts failed with a refusal
	first    chan struct{} // closed once the node is first in place
	progress chan struct{} // closed and replaced at each change of the fields above
	wake     chan struct{} // capacity 1: SetData asks for a write
	stop     context.CancelFunc
	done     chan struct{} // closed when the run goroutine returns
}

type runState int

const (
	created runState = iota
	started
	closed
)

// New returns a Node for path holding data (nil is empty data, not the
// client's default). It sends nothing until Start.
func New(client *framework.Client, path string, data []byte, opts ...Option) (*Node, error) {
	if client == nil {
		return nil, fmt.Errorf("%w: node %s: nil client", ErrInvalidArg, path)
	}
	o, err := applyOptions(path, opts)
	if err != nil {
		return nil, err
	}
	if err := framework.ValidatePath(path, false); err != nil || path == "/" {
		return nil, fmt.Errorf("%w: node path %q: %w", ErrInvalidArg, path, errors.Join(err, framework.ErrInvalidPath))
	}
	return newNode(client, path, data, o), nil
}

func newNode(client *framework.Client, path string, data []byte, o options) *Node {
	return &Node{
		client:   client,
		base:     path,
		opts:     o,
		events:   newEvents(),
		data:     bytes.Clone(data),
		gen:      1,
		first:    make(chan struct{}),
		progress: make(chan struct{}),
		wake:     make(chan struct{}, 1),
	}
}

// Start begins keeping the node in place, in a goroutine of the Node's,
// and returns: like Curator's start, it does not wait for the node, except
// in a TTL mode, where it waits for the first create so that a server
// without TTL nodes fails Start with ErrTTLUnsupported. ctx is the Node's
// lifetime: when it ends, the Node stops as Close stops it.
func (n *Node) Start(ctx context.Context) error {
	if err := n.start(ctx); err != nil {
		return err
	}
	if n.opts.mode == framework.PersistentWithTTL || n.opts.mode == framework.PersistentSequentialWithTTL {
		if err := n.WaitForInitialCreate(ctx); err != nil {
			n.Close()
			return err
		}
	}
	return nil
}

// start launches the run goroutine.
func (n *Node) start(ctx context.Context) error {
	n.mu.Lock()
	defer n.mu.Unlock()
	switch n.state {
	case started:
		return fmt.Errorf("%w: node %s", ErrAlreadyStarted, n.base)
	case closed:
		return fmt.Errorf("node %s: %w", n.base, ErrClosed)
	}
	rctx, cancel := context.WithCancel(ctx)
	n.state, n.stop, n.done = started, cancel, make(chan struct{})
	go n.run(rctx)
	return nil
}

// Close stops the Node and deletes its node (Curator's guaranteed delete:
// if the connection is down, the client deletes it once it is back, or an
// ephemeral node goes with its session). It waits for the Node's
// goroutines, after the events already queued have reached the listeners.
// Called from a listener, Close does not wait, since that goroutine waits
// for the listener: the Node deletes its node and stops once the listener
// has returned. Close is idempotent; Close before Start is allowed.
func (n *Node) Close() error {
	n.mu.Lock()
	switch n.state {
	case created:
		n.state = closed
		n.mu.Unlock()
		return nil
	case closed:
		done := n.done
		n.mu.Unlock()
		if done != nil && !n.events.Delivering() {
			<-done
		}
		return nil
	}
	n.state = closed
	n.changedLocked()
	stop, done := n.stop, n.done
	n.mu.Unlock()
	stop()
	if !n.events.Delivering() {
		<-done
	}
	return nil
}

// Path returns the node's path ("" until the node is first made): the path
// given to New, or, with a protected name or a sequential mode, the name the
// server gave it, which re-creations keep.
func (n *Node) Path() string {
	n.mu.Lock()
	defer n.mu.Unlock()
	return n.path
}

// Data returns the data the Node keeps in its node.
func (n *Node) Data() []byte {
	n.mu.Lock()
	defer n.mu.Unlock()
	return bytes.Clone(n.data)
}

// AddListener registers fn to hear of the node's Created and Lost events,
// in order, on a goroutine of the Node's own (a listener that blocks delays
// the ones after it, never the Node). remove unregisters it.
func (n *Node) AddListener(fn func(Event)) (remove func(), err error) {
	if fn == nil {
		return nil, fmt.Errorf("%w: node %s: nil listener", ErrInvalidArg, n.base)
	}
	return n.events.Add(fn), nil
}

// WaitForInitialCreate waits until the node has been made the first time
// (Curator's waitForInitialCreate). It returns early with the error of an
// attempt ZooKeeper refused (not authorised, a missing parent
// WithoutParents, ErrTTLUnsupported): the Node goes on trying, except after
// ErrTTLUnsupported or the client's Close. It returns ErrNotStarted before
// Start, ErrClosed after Close, and ctx's error when ctx ends.
func (n *Node) WaitForInitialCreate(ctx context.Context) error {
	for {
		n.mu.Lock()
		state, refusal, progress := n.state, n.refusal, n.progress
		n.mu.Unlock()
		switch state {
		case created:
			return fmt.Errorf("%w: node %s", ErrNotStarted, n.base)
		case closed:
			return fmt.Errorf("node %s: %w", n.base, ErrClosed)
		}
		select {
		case <-n.first:
			return nil
		default:
		}
		if refusal != nil {
			return refusal
		}
		select {
		case <-n.first:
			return nil
		case <-progress:
		case <-ctx.Done():
			return ctx.Err()
		}
	}
}

// SetData sets the data the Node keeps in its node and waits until the
// node holds it (Curator's setData). Before the node is first made, that
// is when it is made. If ctx ends first, SetData returns ctx's error and
// the Node still writes the data once it can. It returns early with the
// error of a write ZooKeeper refused, as WaitForInitialCreate does.
func (n *Node) SetData(ctx context.Context, data []byte) error {
	n.mu.Lock()
	switch n.state {
	case created:
		n.mu.Unlock()
		return fmt.Errorf("%w: node %s", ErrNotStarted, n.base)
	case closed:
		n.mu.Unlock()
		return fmt.Errorf("node %s: %w", n.base, ErrClosed)
	}
	n.data = bytes.Clone(data)
	n.gen++
	gen, refusals := n.gen, n.refusals
	n.mu.Unlock()
	select {
	case n.wake <- struct{}{}:
	default:
	}
	for {
		n.mu.Lock()
		state, written, progress := n.state, n.written, n.progress
		refusal := n.refusal
		if n.refusals == refusals {
			refusal = nil
		}
		n.mu.Unlock()
		switch {
		case written >= gen:
			return nil
		case state == closed:
			return fmt.Errorf("node %s: %w", n.base, ErrClosed)
		case refusal != nil:
			return refusal
		}
		select {
		case <-progress:
		case <-ctx.Done():
			return ctx.Err()
		}
	}
}
