package node

import (
	"bytes"
	"context"
	"errors"
	"fmt"

	"github.com/gocurator/curator/framework"
)

// sync puts the node in place with the current data and a watch on it.
func (n *Node) sync(ctx context.Context, watch *watcher) error {
	for range 10 { // each round is a race lost to another client; give up for a pause after a few
		n.mu.Lock()
		inPlace, path := n.inPlace, n.path
		n.mu.Unlock()
		if !inPlace {
			done, err := n.create(ctx, watch)
			if err != nil || !done {
				if err != nil {
					return err
				}
				continue
			}
			path = n.Path() // the first create names it
		}
		if !watch.armed {
			ok, _, w, err := n.client.ExistsW(ctx, path)
			if err != nil {
				return err
			}
			if !ok {
				n.setInPlace(false)
				continue
			}
			watch.w, watch.armed = w, true
		}
		if n.pending() {
			data, gen := n.snapshot()
			if _, err := n.client.Set(ctx, path, data, -1); err != nil {
				if errors.Is(err, framework.ErrNoNode) {
					n.setInPlace(false)
					continue
				}
				return err
			}
			n.setWritten(gen)
		}
		return nil
	}
	return fmt.Errorf("node %s: the node went again each time it was made", n.base)
}

// create makes the node, or takes over the one already there (Curator
// adopts it and writes its data to it). It reports false when the node
// went again before it could be watched.
func (n *Node) create(ctx context.Context, watch *watcher) (bool, error) {
	n.mu.Lock()
	path, data, gen := n.path, n.data, n.gen
	n.mu.Unlock()
	mode, opts := n.opts.mode, []framework.CreateOption{}
	if path == "" { // the first create: the server and the protection name it
		path = n.base
		if n.opts.protected {
			opts = append(opts, framework.WithProtection())
		}
	} else {
		mode = fixed(mode) // the name is already unique: make it again as it is
	}
	opts = append(opts, framework.WithMode(mode))
	if n.opts.ttl > 0 {
		opts = append(opts, framework.WithTTL(n.opts.ttl))
	}
	if !n.opts.noParents {
		opts = append(opts, framework.WithContainerParents())
	}
	if data == nil {
		data = []byte{}
	}
	made, err := n.client.Create(ctx, path, data, opts...)
	switch {
	case err == nil:
		n.setPath(made)
		ok, _, w, err := n.client.ExistsW(ctx, made)
		if err != nil {
			n.setInPlace(true)
			n.setWritten(gen)
			return true, nil // in place; the next round sets the watch
		}
		if !ok {
			return false, nil
		}
		watch.w, watch.armed = w, true
		n.setWritten(gen)
		n.setInPlace(true)
		return true, nil
	case errors.Is(err, framework.ErrNodeExists):
		return n.adopt(ctx, path, data, gen, watch)
	case errors.Is(err, framework.ErrUnimplemented) && n.opts.ttl > 0:
		return false, fmt.Errorf("%w: %w", ErrTTLUnsupported, err)
	}
	return false, err
}

// adopt takes over the node already at path: it watches it and writes the
// Node's data to it if it holds other data.
func (n *Node) adopt(ctx context.Context, path string, data []byte, gen uint64, watch *watcher) (bool, error) {
	// The node is ours from here, as in Curator: if the read below is cut
	// short (Close, or Start's context ending), Close deletes it. On a first
	// create it may be our own, made by a create whose answer was lost.
	n.setPath(path)
	got, stat, w, err := n.client.GetW(ctx, path)
	if errors.Is(err, framework.ErrNoNode) {
		return false, nil
	}
	if err != nil {
		return false, err
	}
	if (stat.EphemeralOwner != 0) != n.opts.mode.IsEphemeral() {
		n.client.Logger().Warn("node: the node found in place is not of the mode asked for; using it", "path", path, "mode", n.opts.mode)
	} else if stat.EphemeralOwner != 0 && stat.EphemeralOwner != n.client.SessionID() {
		n.client.Logger().Warn("node: the node found in place belongs to another session; using it", "path", path,
			"owner", fmt.Sprintf("%#x", stat.EphemeralOwner))
	}
	watch.w, watch.armed = w, true
	if !bytes.Equal(got, data) {
		if _, err := n.client.Set(ctx, path, data, -1); err != nil {
			if errors.Is(err, framework.ErrNoNode) {
				return false, nil
			}
			return false, err
		}
	}
	n.setWritten(gen)
	n.setInPlace(true)
	return true, nil
}

// fixed returns the mode that makes a sequential node's existing name
// again, as Curator's getCreateMode does for a node whose path is set.
func fixed(m framework.CreateMode) framework.CreateMode {
	switch m {
	case framework.EphemeralSequential:
		return framework.Ephemeral
	case framework.PersistentSequential:
		return framework.Persistent
	case framework.PersistentSequentialWithTTL:
		return framework.PersistentWithTTL
	}
	return m
}
