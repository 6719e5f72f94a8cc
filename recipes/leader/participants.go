package leader

import (
	"context"
	"errors"
	"fmt"
	"slices"

	"golang.org/x/sync/errgroup"

	"github.com/gocurator/curator/framework"
	"github.com/gocurator/curator/recipes/locks"
)

// Participant is one participant of an election, as Curator's Participant.
type Participant struct {
	// ID is the participant's id: its node's data as text (for a Selector
	// without an id, the client's default data, the local IP address).
	ID string
	// IsLeader reports whether the participant's node is the first.
	IsLeader bool
	// Node is the participant's node, a full path.
	Node string
}

// maxReads is how many node reads one listing of participants has in flight.
const maxReads = 16

// participants lists the election's participants in queue order, the leader
// first (nodes that are not participants' left out, see isParticipant): one listing, then one read per node (pipelined). A node that goes
// between the listing and its read is left out, as Curator leaves it out.
func participants(ctx context.Context, client *framework.Client, li *locks.LockInternals) ([]Participant, error) {
	children, err := li.Participants(ctx)
	if err != nil {
		return nil, err
	}
	children = onlyParticipants(children)
	ps := make([]Participant, len(children))
	found := make([]bool, len(children))
	g, gctx := errgroup.WithContext(ctx)
	g.SetLimit(maxReads)
	for i, node := range children {
		g.Go(func() error {
			data, _, err := client.Get(gctx, node)
			switch {
			case errors.Is(err, framework.ErrNoNode):
				return nil
			case err != nil:
				return err
			}
			ps[i], found[i] = Participant{ID: string(data), Node: node}, true
			return nil
		})
	}
	if err := g.Wait(); err != nil {
		return nil, err
	}
	out := ps[:0]
	for i, p := range ps {
		if found[i] {
			out = append(out, p)
		}
	}
	if len(out) > 0 {
		out[0].IsLeader = true
	}
	return out, nil
}

// leaderOf returns the first participant: one listing and one read.
func leaderOf(ctx context.Context, client *framework.Client, li *locks.LockInternals) (Participant, error) {
	for {
		children, err := li.Participants(ctx)
		if err != nil {
			return Participant{}, err
		}
		children = onlyParticipants(children)
		if len(children) == 0 {
			return Participant{}, fmt.Errorf("%w at %s", ErrNoLeader, li.Dir())
		}
		data, _, err := client.Get(ctx, children[0])
		if errors.Is(err, framework.ErrNoNode) {
			continue // the leader left between the listing and the read
		}
		if err != nil {
			return Participant{}, err
		}
		return Participant{ID: string(data), IsLeader: true, Node: children[0]}, nil
	}
}

// onlyParticipants leaves out of paths the nodes that are not participants'
// (see isParticipant).
func onlyParticipants(paths []string) []string {
	return slices.DeleteFunc(paths, func(p string) bool {
		_, name := framework.SplitPath(p)
		return !isParticipant(name)
	})
}
