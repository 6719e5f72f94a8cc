package discovery

import (
	"context"
	"fmt"
	"slices"
	"sync"
	"time"
)

// ProviderConfig configures a Provider; its zero value is Curator's
// defaults.
type ProviderConfig[T any] struct {
	// Strategy picks an instance (nil: RoundRobin, Curator's default).
	Strategy Strategy
	// Filter keeps only the instances it returns true for (nil: all);
	// Curator's InstanceFilter. Disabled instances are always left out.
	Filter func(Instance[T]) bool
	// DownTimeout is how long an instance stays down after the errors
	// that put it down (0: 30s), and DownThreshold how many errors noted
	// (NoteError) put it down (0: 2): Curator's DownInstancePolicy.
	DownTimeout   time.Duration
	DownThreshold int
}

// Provider is Curator's ServiceProvider: it picks an instance of one
// service for a call, from a Cache of its instances, leaving out the
// disabled ones, those its Filter refuses and those its callers found down.
// Make one with Discovery.NewProvider, Start it, and Close it.
type Provider[T any] struct {
	cache    *Cache[T]
	strategy Strategy
	filter   func(Instance[T]) bool
	down     *downInstances
}

// NewProvider returns a provider of the instances of the service name. It
// sends nothing until Start.
func (d *Discovery[T]) NewProvider(name string, cfg ProviderConfig[T]) (*Provider[T], error) {
	if cfg.DownTimeout < 0 || cfg.DownThreshold < 0 {
		return nil, fmt.Errorf("%w: provider of %s: down-instance policy %v, %d", ErrInvalidArg, name, cfg.DownTimeout, cfg.DownThreshold)
	}
	c, err := d.NewCache(name)
	if err != nil {
		return nil, err
	}
	p := &Provider[T]{cache: c, strategy: cfg.Strategy, filter: cfg.Filter,
		down: newDownInstances(cfg.DownTimeout, cfg.DownThreshold, time.Now)}
	if p.strategy == nil {
		p.strategy = RoundRobin()
	}
	return p, nil
}

// Start loads the service's instances and waits until they are loaded,
// bounded by ctx; see Cache.Start. ctx is the provider's lifetime.
func (p *Provider[T]) Start(ctx context.Context) error { return p.cache.Start(ctx) }

// Close stops the provider. It is idempotent.
func (p *Provider[T]) Close() error { return p.cache.Close() }

// Instances returns the instances a pick chooses from (Curator's
// getAllInstances): enabled, kept by the Filter, and not down; sorted by
// node name.
func (p *Provider[T]) Instances() []Instance[T] {
	insts, _ := p.candidates()
	return insts
}

// candidates returns the instances to choose from and their keys.
func (p *Provider[T]) candidates() ([]Instance[T], []string) {
	p.cache.mu.Lock()
	keys := make([]string, 0, len(p.cache.instances))
	for k := range p.cache.instances {
		keys = append(keys, k)
	}
	all := make(map[string]Instance[T], len(keys))
	for _, k := range keys {
		all[k] = p.cache.instances[k]
	}
	p.cache.mu.Unlock()
	slices.Sort(keys)
	var insts []Instance[T]
	var kept []string
	for _, k := range keys {
		inst := all[k]
		if inst.Disabled || (p.filter != nil && !p.filter(inst)) || p.down.isDown(downKey(inst)) {
			continue
		}
		insts = append(insts, inst)
		kept = append(kept, k)
	}
	return insts, kept
}

// Instance picks an instance with the provider's strategy (Curator's
// getInstance); false if there is none to pick.
func (p *Provider[T]) Instance() (Instance[T], bool) {
	insts, keys := p.candidates()
	if len(insts) == 0 {
		var zero Instance[T]
		return zero, false
	}
	i := p.strategy.Pick(keys)
	if i < 0 || i >= len(insts) {
		var zero Instance[T]
		return zero, false
	}
	return insts[i], true
}

// NoteError records that a call to inst failed (Curator's noteError):
// after DownThreshold errors the instance is down, left out of picks,
// until DownTimeout has passed since its first error (checked at most once
// per half DownTimeout, as Curator does: up to 1.5 DownTimeout). An instance is
// known by its name, id and registration time, so one registered again is
// a new instance.
func (p *Provider[T]) NoteError(inst Instance[T]) { p.down.note(downKey(inst)) }

// downKey identifies an instance for the down-instance policy.
func downKey[T any](i Instance[T]) string {
	return fmt.Sprintf("%s\x00%s\x00%d", i.Name, i.ID, millis(i.RegistrationTime))
}

// downInstances is Curator's DownInstanceManager.
type downInstances struct {
	timeout   time.Duration
	threshold int
	now       func() time.Time

	mu        sync.Mutex
	statuses  map[string]*downStatus
	lastPurge time.Time
}

type downStatus struct {
	since  time.Time
	errors int
}

func newDownInstances(timeout time.Duration, threshold int, now func() time.Time) *downInstances {
	if timeout == 0 {
		timeout = 30 * time.Second
	}
	if threshold == 0 {
		threshold = 2
	}
	return &downInstances{timeout: timeout, threshold: threshold, now: now, statuses: make(map[string]*downStatus), lastPurge: now()}
}

func (d *downInstances) note(key string) {
	d.mu.Lock()
	defer d.mu.Unlock()
	d.purgeLocked()
	s := d.statuses[key]
	if s == nil {
		s = &downStatus{since: d.now()}
		d.statuses[key] = s
	}
	s.errors++
}

func (d *downInstances) isDown(key string) bool {
	d.mu.Lock()
	defer d.mu.Unlock()
	d.purgeLocked()
	s := d.statuses[key]
	return s != nil && s.errors >= d.threshold
}

// purgeLocked forgets the statuses older than the timeout, at most once
// per half timeout, as Curator does.
func (d *downInstances) purgeLocked() {
	now := d.now()
	if now.Sub(d.lastPurge) < d.timeout/2 {
		return
	}
	d.lastPurge = now
	for k, s := range d.statuses {
		if now.Sub(s.since) >= d.timeout {
			delete(d.statuses, k)
		}
	}
}
