package barrier

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"slices"

	"github.com/gocurator/curator/framework"
)

// ReadyNode is the name of the node that the member completing the group
// creates under the barrier's path, as Curator names it.
const ReadyNode = "ready"

// DoubleBarrier is Curator's DistributedDoubleBarrier: one member of a
// group that enters together and leaves together. A member enters and
// leaves one round at a time; calls wait for one another.
type DoubleBarrier struct {
	client  *framework.Client
	path    string
	members int
	name    string        // under turn: our node's name, a random UUID as Curator's, new at each Enter
	turn    chan struct{} // one call at a time
	entered bool          // under turn: our node was made and not yet left
}

// NewDoubleBarrier returns a member of the double barrier at path, which
// lets its members in once members (at least 1) have entered. It checks
// its arguments and sends nothing.
func NewDoubleBarrier(client *framework.Client, path string, members int) (*DoubleBarrier, error) {
	if err := checkArgs(client, path); err != nil {
		return nil, err
	}
	if members < 1 {
		return nil, fmt.Errorf("%w: double barrier %s: %d members, want at least 1", ErrInvalidArg, path, members)
	}
	return &DoubleBarrier{client: client, path: path, members: members, turn: make(chan struct{}, 1)}, nil
}

// Enter creates the member's node and blocks until the group is complete:
// the ready node exists, or this member completes the group and creates it.
// If Enter fails, the member's node is deleted before it returns, or, if
// the connection cannot do it while ctx lasts, by the client in the
// background (a guaranteed delete); if ctx ends, Enter returns at once and
// leaves the delete to the client. A member that gives up just as the
// group completed may have been counted by the others all the same.
func (b *DoubleBarrier) Enter(ctx context.Context) error {
	if err := b.take(ctx); err != nil {
		return err
	}
	defer b.give()
	if b.entered {
		return fmt.Errorf("%w: double barrier %s: entered already", ErrInvalidArg, b.path)
	}
	b.name = newUUID()
	err := b.enter(ctx)
	if err != nil {
		b.cleanup(ctx, false)
		return err
	}
	b.entered = true
	return nil
}

func (b *DoubleBarrier) enter(ctx context.Context) error {
	ready := framework.JoinPath(b.path, ReadyNode)
	ok, _, w, err := b.client.ExistsW(ctx, ready)
	if err != nil {
		return err
	}
	_, err = b.client.Create(ctx, b.ourPath(), nil, framework.WithMode(framework.Ephemeral), framework.WithContainerParents())
	if err != nil && !errors.Is(err, framework.ErrNodeExists) { // exists: a retry after a lost reply found the node made; its name is ours alone
		return err
	}
	if ok {
		return nil
	}
	kids, _, err := b.client.Children(ctx, b.path)
	if errors.Is(err, framework.ErrNoNode) || err == nil && !slices.Contains(kids, b.name) {
		// Listed after our create: our node is gone, our session with it
		// (and the emptied directory too, the server having reaped it).
		return fmt.Errorf("double barrier %s: entering: %w: %s is gone", b.path, ErrMemberLost, b.name)
	}
	if err != nil {
		return err
	}
	if len(kids) >= b.members { // every child counts, as in Curator
		// Kept even if ctx ends before the answer: the others may have
		// seen it and entered.
		if _, err := b.client.Create(ctx, ready, nil, framework.WithoutUndo()); err != nil && !errors.Is(err, framework.ErrNodeExists) {
			return err
		}
		return nil
	}
	for {
		select {
		case <-w.Done():
			switch e, _ := w.Event(); e.Type {
			case framework.EventNodeCreated:
				return nil
			case framework.EventNotWatching: // the session ended, and our node with it
				return fmt.Errorf("double barrier %s: entering: %w: %w", b.path, ErrMemberLost, e.Err)
			}
			if ok, _, w, err = b.client.ExistsW(ctx, ready); err != nil || ok {
				return err
			}
		case <-ctx.Done():
			return ctx.Err()
		}
	}
}

// Leave deletes the member's node and blocks until every member has left,
// as Curator's leave does: the member whose node sorts first waits for the
// others' nodes to go, and the others for it. It then deletes the ready
// node. If Leave fails or ctx ends, the member's node is deleted as after
// a failed Enter: a Leave with a context already done withdraws the member
// at once, the client deleting its node in the background. The ready node
// is then left to the members still leaving, each of which deletes it once
// it has left, unless Leave failed with ctx still live (if every member's
// Leave ends so, the ready node stays, and would let the next round's
// members in at once). If the member's node was gone before Leave deleted
// it, Leave returns an error wrapping ErrMemberLost.
func (b *DoubleBarrier) Leave(ctx context.Context) error {
	if err := b.take(ctx); err != nil {
		return err
	}
	defer b.give()
	if !b.entered {
		return fmt.Errorf("%w: double barrier %s: not entered", ErrInvalidArg, b.path)
	}
	b.entered = false
	if err := b.leave(ctx); err != nil {
		b.cleanup(ctx, true)
		return err
	}
	b.deleteReady(ctx) // done: the ready node goes, as in Curator
	return nil
}

func (b *DoubleBarrier) leave(ctx context.Context) error {
	ours := true // our node should exist: we have not deleted it
	for {
		kids, _, err := b.client.Children(ctx, b.path)
		if err != nil && !errors.Is(err, framework.ErrNoNode) {
			return err
		}
		kids = slices.DeleteFunc(kids, func(k string) bool { return k == ReadyNode })
		slices.Sort(kids)
		if len(kids) == 0 {
			return nil
		}
		i := slices.Index(kids, b.name)
		if i < 0 && ours {
			return fmt.Errorf("double barrier %s: leaving: %w: %s is gone", b.path, ErrMemberLost, b.name)
		}
		if len(kids) == 1 {
			if ours {
				return b.deleteOurs(ctx)
			}
			return nil
		}
		// The first waits for the last to go; the others go, and wait
		// for the first.
		watch := kids[len(kids)-1]
		if i != 0 {
			watch = kids[0]
		}
		// A data watch, not an exists watch: on a node gone already an
		// exists would leave a watch for its creation, which never comes
		// (each member's node has a name of its own), on the server and in
		// the client until the session ends.
		_, _, w, err := b.client.GetW(ctx, framework.JoinPath(b.path, watch))
		ok := err == nil
		if err != nil && !errors.Is(err, framework.ErrNoNode) {
			return err
		}
		if i != 0 && ours {
			if err := b.deleteOurs(ctx); err != nil {
				return err
			}
			ours = false
		}
		if !ok {
			continue
		}
		select {
		case <-w.Done():
		case <-ctx.Done():
			return ctx.Err()
		}
	}
}

// deleteOurs deletes our node; one already gone is lost.
func (b *DoubleBarrier) deleteOurs(ctx context.Context) error {
	err := b.client.Delete(ctx, b.ourPath())
	if errors.Is(err, framework.ErrNoNode) {
		return fmt.Errorf("double barrier %s: leaving: %w: %s is gone", b.path, ErrMemberLost, b.name)
	}
	return err
}

// cleanup deletes our node after a failed or cancelled call, and with
// ready the ready node. Our node's delete is guaranteed: it runs while ctx
// lasts, and the client goes on with it in the background once ctx has
// ended (at once if it had) or the connection failed, so that a cancelled
// call returns at once and leaves nothing behind. Each Enter names its
// node afresh, so a late delete cannot take a later round's node.
//
// The ready node's delete cannot go to the background, as a late one could
// take the next round's ready node: it is made only while ctx lasts. A
// Leave that failed as ctx ended leaves it to the other members: one of
// them at least has not finished leaving (the first member waits for all
// the others, and they for it), and each deletes it once it has left. If
// every member gives up, the ready node stays.
func (b *DoubleBarrier) cleanup(ctx context.Context, ready bool) {
	if err := b.client.Delete(ctx, b.ourPath(), framework.Quietly(), framework.Guaranteed()); err != nil && ctx.Err() == nil {
		b.client.Logger().Warn("double barrier: deleting the member node after a failed call; the client goes on trying", "node", b.ourPath(), "err", err)
	}
	if ready && ctx.Err() == nil {
		b.deleteReady(ctx)
	}
}

// deleteReady deletes the ready node once the member has left, while ctx
// lasts. Not in the background: a late delete could take the next round's
// ready node. If ctx ends first, the other members delete it as they
// leave.
func (b *DoubleBarrier) deleteReady(ctx context.Context) {
	ready := framework.JoinPath(b.path, ReadyNode)
	if err := b.client.Delete(ctx, ready, framework.Quietly()); err != nil && ctx.Err() == nil {
		b.client.Logger().Warn("double barrier: deleting the ready node after leaving", "node", ready, "err", err)
	}
}

// ourPath is our member node's path.
func (b *DoubleBarrier) ourPath() string { return framework.JoinPath(b.path, b.name) }

// take waits for the member's turn, or for ctx. A free turn is taken even
// if ctx is done, so that a Leave with a done context withdraws the member.
func (b *DoubleBarrier) take(ctx context.Context) error {
	select {
	case b.turn <- struct{}{}:
		return nil
	default:
	}
	select {
	case b.turn <- struct{}{}:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

func (b *DoubleBarrier) give() { <-b.turn }

// newUUID returns a random (version 4) UUID in its canonical text form, as
// Java's UUID.randomUUID().toString() gives it.
func newUUID() string {
	var u [16]byte
	_, _ = rand.Read(u[:]) // crypto/rand.Read never fails
	u[6] = u[6]&0x0f | 0x40
	u[8] = u[8]&0x3f | 0x80
	h := hex.EncodeToString(u[:])
	return h[0:8] + "-" + h[8:12] + "-" + h[12:16] + "-" + h[16:20] + "-" + h[20:32]
}
