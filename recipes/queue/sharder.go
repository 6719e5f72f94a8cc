package queue

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"log/slog"
	"maps"
	mathrand "math/rand/v2"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/gocurator/curator/framework"
	"github.com/gocurator/curator/recipes/leader"
)

// Shard is a queue a Sharder manages: a Queue, IDQueue, PriorityQueue or
// DelayQueue of this package, or any type with their lifecycle whose Start
// makes the shard's node if it is missing, as theirs does.
type Shard interface {
	Start(ctx context.Context) error
	Close() error
}

// SharderPolicies are a Sharder's settings (Curator's
// QueueSharderPolicies); a zero field takes Curator's default.
type SharderPolicies struct {
	// Threshold is the number of nodes in a shard that makes the leader add
	// a shard (Curator's newQueueThreshold; default 10,000).
	Threshold int
	// CheckInterval is how often each Sharder counts the shards' nodes
	// (thresholdCheckMs; default 30 s).
	CheckInterval time.Duration
	// MaxShards is the most shards the leader makes (maxQueues; default
	// 10).
	MaxShards int
}

// Curator's defaults (QueueSharderPolicies).
const (
	defaultThreshold     = 10_000
	defaultCheckInterval = 30 * time.Second
	defaultMaxShards     = 10
)

// Sharder is Curator's QueueSharder: one queue spread over shards, the
// queues path/queue-<uuid>, so that no node holds too many items for
// ZooKeeper to list. Every CheckInterval each Sharder counts the nodes of
// every shard; when one holds Threshold or more, the Sharder that leads a
// leader.Latch at the leader path adds a shard, up to MaxShards. Shards
// are never removed. Queue hands out a shard chosen at random among those
// not filling up, for a put. Every Sharder runs a queue (made by its
// allocator) on every shard, those other Sharders added included: Java's
// QueueSharder and this one share shards, node names and leader nodes.
// Items keep their order within a shard only.
//
// Make one with NewSharder, Start it, and Close it when done.
type Sharder[Q Shard] struct {
	client   *framework.Client
	path     string
	policies SharderPolicies
	alloc    func(path string) (Q, error)
	latch    *leader.Latch
	log      *slog.Logger

	mu         sync.Mutex // guards the fields below
	state      int
	life       context.Context // from Start; nil before
	cancel     context.CancelFunc
	done       chan struct{} // closed once everything Start began has stopped
	latchOn    bool          // the latch was started
	shards     map[string]Q  // by path
	stopping   map[string]Q  // the shards stop is closing
	preferred  map[string]bool
	closeError error
}

// NewSharder returns a Sharder of the shards under path, whose leader is
// elected at leaderPath (neither under the other), with policies, and
// whose shards alloc makes, each at the path it is given: alloc builds a
// queue and must not start it. Nothing is sent until Start.
func NewSharder[Q Shard](client *framework.Client, path, leaderPath string, policies SharderPolicies, alloc func(path string) (Q, error)) (*Sharder[Q], error) {
	bad := func(format string, args ...any) (*Sharder[Q], error) {
		return nil, fmt.Errorf("%w: sharder %s: %s", ErrInvalidArg, path, fmt.Sprintf(format, args...))
	}
	switch {
	case client == nil:
		return bad("nil client")
	case alloc == nil:
		return bad("nil allocator")
	case framework.ValidatePath(path, false) != nil:
		return bad("%v", framework.ValidatePath(path, false))
	case path == "/":
		return bad("the root cannot be a sharder's path")
	case framework.ValidatePath(leaderPath, false) != nil:
		return bad("leader path: %v", framework.ValidatePath(leaderPath, false))
	case leaderPath == "/":
		return bad("the root cannot be a leader path")
	case within(leaderPath, path) || within(path, leaderPath):
		return bad("leader path %s and the shards' path are one or nested: the latch's nodes and the shards would mix", leaderPath)
	case policies.Threshold < 0, policies.CheckInterval < 0, policies.MaxShards < 0:
		return bad("policies %+v: negative", policies)
	}
	if policies.Threshold == 0 {
		policies.Threshold = defaultThreshold
	}
	if policies.CheckInterval == 0 {
		policies.CheckInterval = defaultCheckInterval
	}
	if policies.MaxShards == 0 {
		policies.MaxShards = defaultMaxShards
	}
	latch, err := leader.NewLatch(client, leaderPath)
	if err != nil {
		return nil, err
	}
	return &Sharder[Q]{
		client: client, path: path, policies: policies, alloc: alloc, latch: latch,
		log:    client.Logger().With("recipe", "sharder", "path", path),
		shards: make(map[string]Q), preferred: make(map[string]bool),
	}, nil
}

// within reports whether p is dir or under it.
func within(p, dir string) bool { return p == dir || strings.HasPrefix(p, dir+"/") }

// Start makes the shards' path (a container, as Curator's), starts a
// queue on each shard there, or on a new one if there is none, joins the
// leader election and begins counting. ctx is the Sharder's lifetime, and
// every shard's: when it ends the Sharder stops as if closed. A Sharder
// starts once; one whose Start failed is closed.
func (s *Sharder[Q]) Start(ctx context.Context) error {
	s.mu.Lock()
	switch s.state {
	case started:
		s.mu.Unlock()
		return fmt.Errorf("%w: sharder %s", ErrAlreadyStarted, s.path)
	case closed:
		s.mu.Unlock()
		return fmt.Errorf("%w: sharder %s", ErrClosed, s.path)
	}
	s.state = started
	s.life, s.cancel = context.WithCancel(ctx)
	s.done = make(chan struct{})
	life := s.life
	s.mu.Unlock()
	if err := s.begin(life); err != nil {
		s.mu.Lock()
		s.state = closed
		s.mu.Unlock()
		s.cancel()
		s.stop()
		close(s.done)
		return err
	}
	go s.run(life)
	return nil
}

// begin is Start's work with ZooKeeper: Curator's start.
func (s *Sharder[Q]) begin(ctx context.Context) error {
	_, err := s.client.Create(ctx, s.path, []byte{}, framework.WithMode(framework.Container), framework.WithContainerParents())
	if err != nil && !errors.Is(err, framework.ErrNodeExists) {
		return err
	}
	names, _, err := s.client.Children(ctx, s.path)
	if err != nil {
		return err
	}
	if len(names) == 0 {
		names = append(names, shardPrefix+newUUID())
	}
	for _, name := range names {
		if err := s.adopt(ctx, framework.JoinPath(s.path, name)); err != nil {
			return err
		}
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.state == closed {
		return fmt.Errorf("%w: sharder %s: closed while starting", ErrClosed, s.path)
	}
	if err := s.latch.Start(ctx); err != nil {
		return err
	}
	s.latchOn = true
	return nil
}

// shardPrefix starts a shard's name: queue-<uuid>.
const shardPrefix = "queue-"

// adopt starts a queue on the shard at path, unless there is one.
func (s *Sharder[Q]) adopt(ctx context.Context, path string) error {
	s.mu.Lock()
	_, ok := s.shards[path]
	s.mu.Unlock()
	if ok {
		return nil
	}
	q, err := s.alloc(path)
	if err != nil {
		return fmt.Errorf("sharder %s: allocating the shard %s: %w", s.path, path, err)
	}
	if err := q.Start(ctx); err != nil {
		q.Close()
		return fmt.Errorf("sharder %s: starting the shard %s: %w", s.path, path, err)
	}
	s.mu.Lock()
	s.shards[path] = q
	s.preferred[path] = true
	s.mu.Unlock()
	return nil
}

// run counts the shards every CheckInterval until ctx ends, and then stops
// everything.
func (s *Sharder[Q]) run(ctx context.Context) {
	defer close(s.done)
	defer s.stop()
	t := time.NewTicker(s.policies.CheckInterval)
	defer t.Stop()
	var lastErr string
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
		err := s.check(ctx)
		switch {
		case err == nil || ctx.Err() != nil:
			lastErr = ""
		case err.Error() != lastErr: // once per kind of failure
			lastErr = err.Error()
			s.log.Warn("queue: counting the shards failed; trying again at the next check", "err", err)
		}
	}
}

// check is Curator's checkThreshold: it starts a queue on every shard it
// has not seen, counts each shard's nodes, prefers for puts those at half
// the threshold or less and no longer those at the threshold or more, and,
// if one is at the threshold and this Sharder leads, adds a shard.
func (s *Sharder[Q]) check(ctx context.Context) error {
	names, _, err := s.client.Children(ctx, s.path)
	if err != nil {
		return err
	}
	full := 0          // the nodes of a shard at the threshold, 0 if none
	var failed []error // shards that could not be taken up: the others are counted
	for _, name := range names {
		p := framework.JoinPath(s.path, name)
		if err := s.adopt(ctx, p); err != nil {
			failed = append(failed, err)
			continue
		}
		ok, stat, err := s.client.Exists(ctx, p)
		if err != nil {
			return err
		}
		if !ok {
			continue // deleted by hand
		}
		n := int(stat.NumChildren)
		s.mu.Lock()
		if n >= s.policies.Threshold {
			full = n
			delete(s.preferred, p)
		} else if n <= s.policies.Threshold/2 {
			s.preferred[p] = true
		}
		s.mu.Unlock()
	}
	if full > 0 && s.latch.HasLeadership() {
		s.mu.Lock()
		count := len(s.shards)
		s.mu.Unlock()
		if count < s.policies.MaxShards {
			s.log.Info("queue: adding a shard: one is at the threshold", "nodes", full, "threshold", s.policies.Threshold)
			failed = append(failed, s.adopt(ctx, framework.JoinPath(s.path, shardPrefix+newUUID())))
		} else {
			s.log.Warn("queue: a shard is at the threshold, and the shards are at their maximum", "nodes", full, "threshold", s.policies.Threshold, "max shards", s.policies.MaxShards)
		}
	}
	return errors.Join(failed...)
}

// calledFromAShardLocked reports whether the caller is one of the shards'
// Consumers (of this package's queues; another Shard cannot say). s.mu is
// held.
func (s *Sharder[Q]) calledFromAShardLocked() bool {
	for _, m := range []map[string]Q{s.shards, s.stopping} {
		for _, q := range m {
			if c, ok := any(q).(interface{ consuming() bool }); ok && c.consuming() {
				return true
			}
		}
	}
	return false
}

// stop leaves the election and closes every shard's queue.
func (s *Sharder[Q]) stop() {
	s.mu.Lock()
	latchOn := s.latchOn
	s.latchOn = false
	shards := s.shards
	s.shards = make(map[string]Q)
	s.stopping = shards
	s.preferred = make(map[string]bool)
	s.mu.Unlock()
	var errs []error
	if latchOn {
		errs = append(errs, s.latch.Close())
	}
	for _, p := range slices.Sorted(maps.Keys(shards)) {
		if err := shards[p].Close(); err != nil {
			errs = append(errs, fmt.Errorf("closing the shard %s: %w", p, err))
		}
	}
	if err := errors.Join(errs...); err != nil {
		s.mu.Lock()
		s.closeError = fmt.Errorf("sharder %s: %w", s.path, err)
		s.mu.Unlock()
	}
}

// Close leaves the leader election and closes every shard's queue,
// returning once they have stopped; items stay in the shards. Called from a
// shard's Consumer, it does not wait, as that shard's Close waits for its
// Consumer to return: the shards stop once it has. Close is idempotent.
func (s *Sharder[Q]) Close() error {
	s.mu.Lock()
	prev := s.state
	s.state = closed
	cancel, done := s.cancel, s.done
	fromShard := s.calledFromAShardLocked()
	s.mu.Unlock()
	if prev == created || done == nil {
		return nil
	}
	cancel()
	if fromShard {
		return nil
	}
	<-done
	s.mu.Lock()
	defer s.mu.Unlock()
	err := s.closeError
	s.closeError = nil // reported once
	return err
}

// Queue returns a shard's queue for a put, at random among those the last
// count found at half the threshold or less (and shards new since), or
// among all if none is (Curator's getQueue).
func (s *Sharder[Q]) Queue() (Q, error) {
	var zero Q
	s.mu.Lock()
	defer s.mu.Unlock()
	if err := s.checkLocked(); err != nil {
		return zero, err
	}
	pick := s.preferred
	if len(pick) == 0 {
		pick = make(map[string]bool, len(s.shards))
		for p := range s.shards {
			pick[p] = true
		}
	}
	k := mathrand.IntN(len(pick))
	for p := range pick {
		if k == 0 {
			return s.shards[p], nil
		}
		k--
	}
	return zero, fmt.Errorf("%w: sharder %s", ErrClosed, s.path) // no shard: unreachable once started
}

// Paths returns the paths of the shards this Sharder runs a queue on,
// sorted (Curator's getQueuePaths; getShardQty is its length).
func (s *Sharder[Q]) Paths() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return slices.Sorted(maps.Keys(s.shards))
}

// checkLocked returns an error unless the Sharder has started and is not
// closed. Callers hold s.mu.
func (s *Sharder[Q]) checkLocked() error {
	switch {
	case s.state == created:
		return fmt.Errorf("%w: sharder %s", ErrNotStarted, s.path)
	case s.state == closed || s.life.Err() != nil:
		return fmt.Errorf("%w: sharder %s", ErrClosed, s.path)
	case len(s.shards) == 0 || !s.latchOn:
		return fmt.Errorf("%w: sharder %s: still starting", ErrNotStarted, s.path)
	}
	return nil
}

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
