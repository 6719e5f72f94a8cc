package leader

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/gocurator/curator/driver"
	"github.com/gocurator/curator/framework"
	"github.com/gocurator/curator/recipes/locks"
)

// Observe follows the election at path from outside it, as etcd's
// Election.Observe: the channel receives the current leader, then each new
// one, and a zero Participant whenever the election has no participant. It
// works for a Latch's election and a Selector's alike (both sort on their
// nodes' sequence numbers), and for Curator's.
//
// The observer watches only the leader's node (or, with no participant,
// the election's path), so joins and departures behind the leader wake
// nothing: one notification per change of leader. It keeps only the latest
// value for a slow receiver: a receiver that falls behind skips leaders it
// did not read in time, and never delays the client. The channel is closed
// when ctx ends or the client closes; the observer sends nothing else and
// retries failed reads until then.
func Observe(ctx context.Context, client *framework.Client, path string) (<-chan Participant, error) {
	if client == nil {
		return nil, fmt.Errorf("%w: nil client", ErrInvalidArg)
	}
	if err := framework.ValidatePath(path, false); err != nil || path == "/" {
		return nil, fmt.Errorf("%w: election path %q: %w", ErrInvalidArg, path, err)
	}
	out := make(chan Participant)
	o := &observer{client: client, dir: path, out: out}
	go o.run(ctx)
	return out, nil
}

type observer struct {
	client *framework.Client
	dir    string
	out    chan<- Participant
}

func (o *observer) run(ctx context.Context) {
	defer close(o.out)
	var (
		pending *Participant // the latest leader the receiver has not had
		sent    = "\x00"     // the node last handed over ("" for none); nothing matches it at first
		pause   time.Duration
	)
	for {
		p, w, err := o.look(ctx)
		if err != nil {
			if ctx.Err() != nil || errors.Is(err, framework.ErrClosed) {
				return
			}
			o.client.Logger().Warn("leader observer: reading the election failed", "path", o.dir, "err", err)
			pause = nextPause(pause)
		} else {
			pause = 0
			if p.Node != sent {
				pending = &p
			}
		}
		var wake <-chan struct{}
		var retry <-chan time.Time
		if err == nil {
			wake = w.Done()
		} else {
			retry = time.After(pause)
		}
		for woken := false; !woken; {
			var send chan<- Participant
			var next Participant
			if pending != nil {
				send, next = o.out, *pending
			}
			select {
			case send <- next:
				sent, pending = next.Node, nil
			case <-wake:
				woken = true
			case <-retry:
				woken = true
			case <-o.client.Done():
				return
			case <-ctx.Done():
				return
			}
		}
	}
}

// look returns the leader and a watch that fires when it may have changed:
// the leader's node's data watch, or, with no participant, a watch on the
// election's children (or on its path, while that does not exist).
func (o *observer) look(ctx context.Context) (Participant, framework.Watch, error) {
	for {
		children, _, err := o.client.Children(ctx, o.dir)
		if errors.Is(err, framework.ErrNoNode) {
			ok, _, w, err := o.client.ExistsW(ctx, o.dir)
			if err != nil || ok {
				if err != nil {
					return Participant{}, framework.Watch{}, err
				}
				continue // made in between
			}
			return Participant{}, w, nil
		}
		if err != nil {
			return Participant{}, framework.Watch{}, err
		}
		if !hasParticipant(children) {
			children, _, w, err := o.client.ChildrenW(ctx, o.dir)
			if errors.Is(err, framework.ErrNoNode) {
				continue
			}
			if err != nil {
				return Participant{}, framework.Watch{}, err
			}
			if hasParticipant(children) {
				continue // joined in between; the watch is abandoned
			}
			return Participant{}, w, nil
		}
		first := framework.JoinPath(o.dir, driver.SortChildren(children, "", electionKey)[0])
		data, _, w, err := o.client.GetW(ctx, first)
		if errors.Is(err, framework.ErrNoNode) {
			continue
		}
		if err != nil {
			return Participant{}, framework.Watch{}, err
		}
		return Participant{ID: string(data), IsLeader: true, Node: first}, w, nil
	}
}

// electionKey is an election node's sort key, as driver.SortChildren takes
// it: the text after its lock name, LatchLockName for a Latch's node and
// locks.MutexLockName for a Selector's (Curator's and ours alike).
func electionKey(name, _ string) string {
	if strings.Contains(name, LatchLockName) {
		return driver.StandardFixForSorting(name, LatchLockName)
	}
	return driver.StandardFixForSorting(name, locks.MutexLockName)
}

// isParticipant reports whether an election's child is a participant's
// node: its key is a sequence number. Any other node was made by hand, or
// to pass for the leader: it sorts after the participants and is never
// reported.
func isParticipant(name string) bool { return driver.IsSequence(electionKey(name, "")) }

// hasParticipant reports whether a listing holds a participant's node.
func hasParticipant(children []string) bool { return slices.ContainsFunc(children, isParticipant) }
