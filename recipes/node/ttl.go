package node

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/gocurator/curator/framework"
)

// touchName is the keep-alive child's name, Curator's
// PersistentTtlNode.DEFAULT_CHILD_NODE_NAME: Java and Go TTLNodes on one
// path touch the same child.
const touchName = "touch"

// TTLNode is Curator's PersistentTtlNode: a container node at its path,
// kept as a Node is (created again if it goes, with this TTLNode's data),
// and a child path/touch in mode framework.PersistentWithTTL, written every
// half TTL. When no process touches the child any more, the server deletes
// it once the TTL has passed, and then reaps the empty container: the node
// outlives its last owner by about a TTL, plus the server's container check
// interval (znode.container.checkIntervalMs, one minute by default).
//
// The node is meant to be shared: several processes may keep the same
// path alive, so Close stops touching it and deletes nothing, as Curator's
// close does.
type TTLNode struct {
	node  *Node
	child string
	ttl   time.Duration

	mu      sync.Mutex
	started bool
	stop    context.CancelFunc
	done    chan struct{} // closed when the toucher returns
}

// NewTTL returns a TTLNode for path holding data, whose keep-alive child
// lives for ttl. It sends nothing until Start.
func NewTTL(client *framework.Client, path string, data []byte, ttl time.Duration) (*TTLNode, error) {
	if ttl < 2*time.Millisecond {
		return nil, fmt.Errorf("%w: TTL node %s: TTL %v, want at least 2ms", ErrInvalidArg, path, ttl)
	}
	n, err := New(client, path, data, WithMode(framework.Container))
	if err != nil {
		return nil, err
	}
	n.keep = true
	return &TTLNode{node: n, child: framework.JoinPath(path, touchName), ttl: ttl}, nil
}

// Start creates the keep-alive child (and the container, and its missing
// parents, as containers), puts the container's data in place, and then
// touches the child every half TTL in a goroutine of its own until Close.
// It waits for both, bounded by ctx, so that a server without TTL nodes
// fails Start with ErrTTLUnsupported, having created nothing (Curator's
// touch task only logs that at debug level). ctx is the TTLNode's lifetime:
// when it ends, the TTLNode stops as Close stops it.
func (t *TTLNode) Start(ctx context.Context) error {
	t.mu.Lock()
	switch {
	case t.started:
		t.mu.Unlock()
		return fmt.Errorf("%w: TTL node %s", ErrAlreadyStarted, t.node.base)
	case t.node.closedOrDone():
		t.mu.Unlock()
		return fmt.Errorf("TTL node %s: %w", t.node.base, ErrClosed)
	}
	t.started = true
	t.mu.Unlock()
	err := t.touch(ctx, true)
	if err == nil {
		err = t.node.Start(ctx)
	}
	if err == nil {
		err = t.node.WaitForInitialCreate(ctx)
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	if err == nil && t.node.closedOrDone() {
		err = fmt.Errorf("TTL node %s: %w", t.node.base, ErrClosed)
	}
	if err != nil {
		t.node.Close()
		return err
	}
	tctx, cancel := context.WithCancel(ctx)
	t.stop, t.done = cancel, make(chan struct{})
	go t.toucher(tctx)
	return nil
}

// Close stops touching the child and keeping the container in place; it
// deletes nothing (see TTLNode). It is idempotent.
func (t *TTLNode) Close() error {
	t.mu.Lock()
	stop, done := t.stop, t.done
	t.mu.Unlock()
	if stop != nil {
		stop()
		<-done
	}
	return t.node.Close()
}

// Data returns the container's data.
func (t *TTLNode) Data() []byte { return t.node.Data() }

// SetData sets the container's data, as Node.SetData does.
func (t *TTLNode) SetData(ctx context.Context, data []byte) error { return t.node.SetData(ctx, data) }

// toucher touches the child every half TTL until ctx ends.
func (t *TTLNode) toucher(ctx context.Context) {
	defer close(t.done)
	tick := time.NewTicker(t.ttl / 2)
	defer tick.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-tick.C:
		}
		if err := t.touch(ctx, false); err != nil && ctx.Err() == nil {
			t.node.client.Logger().Warn("node: touching the TTL node's child failed", "path", t.child, "err", err)
		}
	}
}

// touch writes the child, creating it if it is missing (Curator's setData,
// then create().orSetData() with the TTL). The first touch makes the
// missing parents too; later ones leave a missing container to the Node,
// which makes it again.
func (t *TTLNode) touch(ctx context.Context, first bool) error {
	c := t.node.client
	_, err := c.Set(ctx, t.child, []byte{}, -1)
	if !errors.Is(err, framework.ErrNoNode) {
		return err
	}
	opts := []framework.CreateOption{framework.WithMode(framework.PersistentWithTTL), framework.WithTTL(t.ttl)}
	if first {
		opts = append(opts, framework.WithContainerParents())
	}
	_, err = c.Create(ctx, t.child, []byte{}, opts...)
	switch {
	case errors.Is(err, framework.ErrNodeExists):
		_, err = c.Set(ctx, t.child, []byte{}, -1)
	case errors.Is(err, framework.ErrUnimplemented):
		err = fmt.Errorf("%w: %w", ErrTTLUnsupported, err)
	}
	if errors.Is(err, framework.ErrNoNode) {
		return nil
	}
	return err
}
