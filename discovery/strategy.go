package discovery

import (
	"math/rand/v2"
	"slices"
	"sync"
)

// Strategy picks one of a provider's instances: Curator's ProviderStrategy.
// Pick is given the keys of the instances to choose from (their node
// names, sorted), and returns the index of its choice. A Strategy value
// belongs to one Provider.
type Strategy interface {
	Pick(keys []string) int
}

// RoundRobin returns Curator's RoundRobinStrategy, the default: each pick
// takes the next instance.
func RoundRobin() Strategy { return &roundRobin{} }

type roundRobin struct {
	mu   sync.Mutex
	next uint64
}

func (r *roundRobin) Pick(keys []string) int {
	r.mu.Lock()
	defer r.mu.Unlock()
	i := int(r.next % uint64(len(keys)))
	r.next++
	return i
}

// Random returns Curator's RandomStrategy: each pick takes an instance at
// random.
func Random() Strategy { return random{} }

type random struct{}

func (random) Pick(keys []string) int { return rand.IntN(len(keys)) }

// Sticky returns Curator's StickyStrategy: it picks what master picks,
// and then that same instance for as long as it is among the instances. A
// nil master is RoundRobin.
func Sticky(master Strategy) Strategy {
	if master == nil {
		master = RoundRobin()
	}
	return &sticky{master: master}
}

type sticky struct {
	master Strategy
	mu     sync.Mutex
	ours   string // the key of the instance stuck to; "" if none
}

func (s *sticky) Pick(keys []string) int {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.ours != "" {
		if i := slices.Index(keys, s.ours); i >= 0 {
			return i
		}
	}
	i := s.master.Pick(keys)
	if i >= 0 && i < len(keys) { // else the Provider refuses the pick
		s.ours = keys[i]
	}
	return i
}
